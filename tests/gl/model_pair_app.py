#!/usr/bin/python3
"""The desktop app's Contrast view with a second model (issue 51), in a real window under
xvfb-run: `headscope --model A --model-b B` on stories260K's F32 GGUF against its Q8_0 GGUF.

1. The heads table shows the numbers of `headscope-cli compare --model A --model-b B --json`: the
   visible rows, in rank order, each head's change to 4 decimals, and the next-token agreement line.
   A and B share one colour range; B - A has its own symmetric one.
2. A session file with model.checkpoint_b opens on the same comparison (the session's reader in the
   app; the writer's round trip is tests/core/session's).
3. The same file twice: "identical: change 0 everywhere" and every change 0.
4. Refusals keep the app running with the reason in the status line: model B missing, of another
   family (the teaching model), failing to load (refuse_arch.gguf); bad flags exit 1 or 2 with one
   "error:" line.

usage: model_pair_app.py HEADSCOPE HEADSCOPE_CLI XVFB_RUN GGUF_TEST_FILES
"""
import json
import os
import re
import subprocess
import sys
import tempfile

SENTENCE = "Once upon a time, there was a little girl named Lily. She liked to play in the park."
HEAD = re.compile(r"^L(\d+) h(\d+)$")
FOUR = re.compile(r"^\d+\.\d{4}$")


def fail(problems):
    for p in problems:
        print("FAIL:", p)
    sys.exit(1)


class Runner:
    def __init__(self, app, cli, xvfb, work):
        self.app, self.cli, self.xvfb, self.work = app, cli, xvfb, work

    def shot(self, name, args, size=(1280, 720), expect_exit=0):
        png = os.path.join(self.work, name + ".png")
        cmd = [self.xvfb, "-a", "-s", "-screen 0 %dx%dx24" % (size[0], size[1]), self.app] + args + [
            "--width", str(size[0]), "--height", str(size[1]), "--screenshot", png, "--frames", "6"]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
        if p.returncode != expect_exit:
            fail(["%s: exit %d (expected %d): %s" % (name, p.returncode, expect_exit, p.stderr.strip()[-600:])])
        if expect_exit != 0:
            return p.stderr
        with open(png + ".json", encoding="utf-8") as f:
            return json.load(f)

    def compare_json(self, a, b):
        out = os.path.join(self.work, "compare.json")
        subprocess.run([self.cli, "compare", "--model", a, "--model-b", b, "--sentence", SENTENCE, "--json", out],
                       check=True, capture_output=True, timeout=240)
        with open(out, encoding="utf-8") as f:
            return json.load(f)


def table_rows(side):
    """(layer, head, change text) of each heads-table row drawn, top to bottom: a head name, and on
    its line the first 4-decimal number to its right (the change column)."""
    texts = [t for t in side["texts"] if not t.get("clipped")]
    rows = []
    for t in texts:
        m = HEAD.match(t["text"])
        if not m:
            continue
        line = [u for u in texts if abs(u["y0"] - t["y0"]) < 2 and u["x0"] > t["x1"] and FOUR.match(u["text"])]
        if not line:
            continue
        change = min(line, key=lambda u: u["x0"])
        rows.append((t["y0"], int(m.group(1)), int(m.group(2)), change["text"]))
    rows.sort()
    return [(l, h, c) for _, l, h, c in rows]


def expected_order(j):
    heads = [(cell["rank"], l, h, cell["distance"]) for l, layer in enumerate(j["heads"]) for h, cell in enumerate(layer)]
    heads.sort()
    return [(l, h, "%.4f" % d) for _, l, h, d in heads]


def all_text(side):
    return "\n".join(t["text"] for t in side["texts"])


def check_table(name, side, j, problems, at_least=6):
    rows, want = table_rows(side), expected_order(j)
    if len(rows) < at_least:
        problems.append("%s: %d heads-table rows drawn, expected at least %d" % (name, len(rows), at_least))
    for i, row in enumerate(rows):
        if i >= len(want) or row != want[i]:
            problems.append("%s: table row %d (rank %d) is L%d h%d %s; compare --json: %s" %
                            (name, i, i + 1, row[0], row[1], row[2], "L%d h%d %s" % want[i] if i < len(want) else "no row"))
            break
    n = j["next_token"]
    line = "the same top-1 after %d of %d positions" % (n["top1_matches"], n["positions"])
    if line not in all_text(side):
        problems.append("%s: no next-token line '%s' (compare --json: %s)" % (name, line, n))
    maps = {h["key"]: h for h in side["heatmaps"]}
    for key in ("contrast a", "contrast b", "contrast diff", "contrast change"):
        if key not in maps:
            problems.append("%s: no '%s' map drawn" % (name, key))
    if "contrast a" in maps and "contrast b" in maps:
        a, b = maps["contrast a"], maps["contrast b"]
        if (a["lo"], a["hi"]) != (b["lo"], b["hi"]):
            problems.append("%s: A [%g, %g] and B [%g, %g] are not on one scale" % (name, a["lo"], a["hi"], b["lo"], b["hi"]))
    print("%s: %d rows drawn; ranks 1-%d match compare --json (%s ...)" % (name, len(rows), len(rows), rows[:3]))
    return rows


def main():
    app, cli, xvfb, gguf = sys.argv[1:5]
    fa = os.path.join(gguf, "stories260K_f32.gguf")
    fq = os.path.join(gguf, "stories260K_q8_0.gguf")
    problems = []
    with tempfile.TemporaryDirectory() as work:
        r = Runner(app, cli, xvfb, work)
        pair = ["--model", fa, "--model-b", fq, "--sentence", SENTENCE]
        # 1. The table against compare --json, at two window sizes.
        j = r.compare_json(fa, fq)
        check_table("F32 vs Q8_0 1280x720", r.shot("q8", pair), j, problems, at_least=5)
        check_table("F32 vs Q8_0 1920x1080", r.shot("q8_big", pair + ["--theme", "light"], size=(1920, 1080)), j, problems,
                    at_least=9)
        # 2. A session with the second model opens on the comparison.
        session = os.path.join(work, "pair.json")
        with open(session, "w", encoding="utf-8") as f:
            json.dump({"format": "headscope-session", "version": 1, "input": {"sentence": SENTENCE},
                       "model": {"checkpoint": fa, "checkpoint_b": fq}, "view": {"panel": "contrast"}}, f)
        check_table("session with checkpoint_b", r.shot("session", [session]), j, problems, at_least=5)
        # 3. The same file twice.
        same = r.shot("same", ["--model", fa, "--model-b", fa, "--sentence", SENTENCE])
        if "identical: change 0 everywhere" not in all_text(same):
            problems.append("same file twice: no 'identical: change 0 everywhere'")
        zeros = table_rows(same)
        if not zeros or any(c != "0.0000" for _, _, c in zeros):
            problems.append("same file twice: changes %s, expected 0.0000 in every row" % zeros[:5])
        # 4. Refusals: the app keeps running and says why in the status line.
        for name, b, phrase in (("missing", os.path.join(work, "nope.gguf"), "model B ("),
                                ("other family", "teaching", "different families"),
                                ("load failure", os.path.join(gguf, "refuse_arch.gguf"), "model B (")):
            side = r.shot("refuse_" + name.replace(" ", "_"), ["--model", fa, "--model-b", b, "--sentence", SENTENCE])
            status = [t["text"] for t in side["texts"] if t["text"].startswith("\u26a0 compare with model:")]
            if not status or phrase not in status[0]:
                problems.append("%s: status line %s, expected '\u26a0 compare with model: ...%s...'" % (name, status, phrase))
            else:
                print("%s: %s" % (name, status[0][:160]))
        for name, args, phrase in (("--model-b without --model", ["--model-b", fq], "give the first model too"),
                                   ("--tokenizer-b alone", ["--model", fa, "--tokenizer-b", fq], "give --model-b"),
                                   ("--model-b with --contrast", pair + ["--contrast", "x"], "give one of them")):
            err = r.shot("flags", args, expect_exit=1)
            lines = [l for l in err.splitlines() if l.startswith("error:")]
            if len(lines) != 1 or phrase not in lines[0]:
                problems.append("%s: stderr %r, expected one error: line with '%s'" % (name, err[-300:], phrase))
    if problems:
        fail(problems)
    print("ok")


if __name__ == "__main__":
    main()
