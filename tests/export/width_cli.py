"""Issue 45 end to end: `maps --json`'s reachable_keys (shape, GQA heads sharing their kv head's
list, absent from a timing run), the text report's lines, `export --view width` with a pattern fit
as PNG, SVG and PDF, and the pattern fit's bad input refused with the reason: a pattern file that
is not T x T or not row-stochastic, a width above T, too many tokens, an unknown pattern, --pattern
on another view. Usage: width_cli.py HEADSCOPE_CLI"""
import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from cli_checks import Checks  # noqa: E402

T = Checks(sys.argv[1])
SENTENCE = ["--sentence", "the keys that Priya left on the table were not hers"]
WIDTH_ONE = SENTENCE + ["--d-model", "8", "--heads", "8"]


def main():
    j = json.loads(T.ok("maps --json", ["maps"] + WIDTH_ONE + ["--json", "-"]))
    r = j.get("reachable_keys")
    T.check(r is not None and len(r) == 1 and len(r[0]) == 8, "reachable_keys is [layer][head]")
    T.check(all(len(keys) == 2 and keys == sorted(keys) for keys in r[0]), f"width 1: 2 sorted keys a head ({r[0]})")
    gqa = json.loads(T.ok("maps --kv-heads 2", ["maps"] + SENTENCE + ["--d-model", "8", "--heads", "4", "--kv-heads", "2",
                                                                         "--json", "-"]))["reachable_keys"][0]
    T.check(gqa[0] == gqa[1] and gqa[2] == gqa[3], f"query heads of one kv head share its list ({gqa})")
    timed = json.loads(T.ok("maps --repeat", ["maps"] + WIDTH_ONE + ["--repeat", "2", "--json", "-"]))
    T.check("reachable_keys" not in timed, "a timing run (--repeat) times the engine alone")
    report = T.ok("maps report", ["maps"] + WIDTH_ONE)
    T.check("2 of 11 keys reachable, rows agree 11 of 11" in report, "the text report counts keys and rows")
    with tempfile.TemporaryDirectory() as work:
        for ext in ("png", "svg", "pdf"):
            out = os.path.join(work, "width." + ext)
            T.ok("export --view width ." + ext, ["export"] + WIDTH_ONE + ["--view", "width", "--pattern", "permutation:3",
                                                                           "--fit-widths", "1,4,10", "--out", out])
            T.check(os.path.getsize(out) > 1000, f"width.{ext} written")
        svg = open(os.path.join(work, "width.svg"), encoding="utf-8").read()
        T.check("2 of 11 keys" in svg and "width 10" in svg and "random permutation" in svg, "the SVG names counts and widths")
        wide = os.path.join(work, "wide.npy")
        np.save(wide, np.eye(3, dtype=np.float32))
        half = os.path.join(work, "half.npy")
        np.save(half, np.full((11, 11), 0.5, np.float32))
        csv = os.path.join(work, "neg.csv")
        with open(csv, "w") as f:
            for i in range(11):
                row = [0.0] * 11
                row[i], row[(i + 1) % 11] = 2.0, -1.0
                f.write(",".join(map(str, row)) + "\n")
        out = os.path.join(work, "x.png")
        base = ["export"] + WIDTH_ONE + ["--view", "width", "--out", out]
        T.error("a 3 x 3 pattern", base + ["--pattern", wide], ["3 x 3", "must be 11 x 11"])
        T.error("rows summing to 5.5", base + ["--pattern", half], ["row 0 sums to 5.5"])
        T.error("a negative weight", base + ["--pattern", csv], ["expected a number >= 0"])
        T.error("width above T", base + ["--fit-widths", "1,12"], ["head width 12", "from 1 to 11"])
        T.error("an unknown pattern", base + ["--pattern", "previos"], ["unknown pattern", "did you mean previous"])
        T.error("--pattern on another view", ["export"] + WIDTH_ONE + ["--pattern", "first", "--out", out], ["--view width"])
        long_text = ["--sentence", " ".join("word%d" % i for i in range(70)), "--d-model", "8", "--heads", "8"]
        T.error("too many tokens", ["export"] + long_text + ["--view", "width", "--pattern", "first", "--out", out],
                ["at most 64 tokens", "70"])
        T.ok("the default pattern leaves out a fit past 64 tokens", ["export"] + long_text + ["--view", "width", "--out", out])
    return T.summary()


if __name__ == "__main__":
    sys.exit(main())
