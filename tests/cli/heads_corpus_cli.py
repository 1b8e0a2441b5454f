#!/usr/bin/python3
"""`headscope-cli heads --corpus` and `heads --merge` (issue 18, docs/head-roles-corpus.md):
a two-line corpus's means equal the mean of two single-sentence `heads --json` runs; shards
(--shard I/N) merged in any order equal one unsharded run; blank, invalid UTF-8 and over-long
lines are counted and skipped or cut; progress reaches stderr; bad shard specs, mismatched merges
and broken files exit 1 or 2 with one "error:" line.

Usage: heads_corpus_cli.py PATH/TO/headscope-cli MODELS_DIR
Needs only the standard library. Uses stories260K when present, else the synthetic layer.
"""
import json
import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from cli_checks import Checks  # noqa: E402

CLI = None
T = Checks()
check, run, ok, error = T.check, T.run, T.ok_err, T.error
WORK = None
ROLES = ["previous", "first", "bos", "self", "local", "duplicate", "induction", "broadness"]


def write(name, data):
    path = os.path.join(WORK, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def parse_jsonl(text, label):
    lines = [json.loads(l) for l in text.splitlines() if l.strip()]
    header, heads = lines[0], lines[1:]
    check(header.get("format") == "headscope head roles corpus" and header.get("version") == 1, f"{label}: header format")
    check(len(heads) == header["model"]["n_layers"] * header["model"]["n_heads"], f"{label}: one line per head")
    return header, heads


def close(a, b, tol):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def same_stats(a_heads, b_heads, label):
    for x, y in zip(a_heads, b_heads):
        for role in ROLES:
            if x["n"][role] != y["n"][role]:
                check(False, f"{label}: L{x['layer']} h{x['head']} {role}: n {x['n'][role]} vs {y['n'][role]}")
                return
            for stat, tol in (("mean", 1e-12), ("m2", 1e-9), ("min", 0), ("max", 0), ("std", 1e-9)):
                if not close(x[stat][role], y[stat][role], tol):
                    check(False, f"{label}: L{x['layer']} h{x['head']} {role} {stat}: {x[stat][role]} vs {y[stat][role]}")
                    return
    check(len(a_heads) == len(b_heads), f"{label}: same number of heads")


def model_args(models):
    model = os.path.join(models, "stories260K", "stories260K.bin")
    if os.path.isfile(model):
        return ["--model", model, "--tokenizer", os.path.join(models, "stories260K", "tok512.bin")], True
    print("SKIP the stories260K cases: stories260K not found; using the synthetic layer")
    return ["--d-model", "16", "--heads", "4", "--causal"], False


def test_two_lines(margs):
    s1 = "Once upon a time, there was a little girl named Lily. She saw a big red ball."
    s2 = "Tom and his dog went to the park. The dog ran and ran, and Tom laughed."
    corpus = write("two.txt", (s1 + "\n" + s2 + "\n").encode())
    out, err = ok("heads --corpus two lines", ["heads"] + margs + ["--corpus", corpus])
    if out is None:
        return
    header, heads = parse_jsonl(out, "two lines")
    check(header["lines"]["scored"] == 2 and header["corpus"]["lines"] == 2, f"two lines: counts {header['lines']}")
    check("2 / 2 lines" in err, f"two lines: progress on stderr says 2 / 2 lines: {err.strip()[:300]}")
    singles = []
    for s in (s1, s2):
        o, _ = ok("heads --json single", ["heads"] + margs + ["--sentence", s, "--json", "-", "--probe-seeds", "1"])
        if o is None:
            return
        singles.append(json.loads(o))
    for h in heads:
        l, k = h["layer"], h["head"]
        for role in ROLES:
            x, y = singles[0]["scores"][role][l][k], singles[1]["scores"][role][l][k]
            if role == "induction":
                check(close(h["mean"][role], x, 1e-6) and h["n"][role] == (0 if x is None else 1),
                      f"induction L{l} h{k}: measured once on the probe: {h['mean'][role]} vs {x}")
                continue
            vals = [v for v in (x, y) if v is not None]
            if h["n"][role] != len(vals):
                check(False, f"two lines L{l} h{k} {role}: n {h['n'][role]}, expected {len(vals)}")
                return
            if not vals:
                continue
            mean = sum(vals) / len(vals)
            if not close(h["mean"][role], mean, 1e-7):
                check(False, f"two lines L{l} h{k} {role}: mean {h['mean'][role]}, single runs give {vals} (mean {mean})")
                return
            if len(vals) == 2 and not close(h["std"][role], abs(x - y) / math.sqrt(2), 1e-6):
                check(False, f"two lines L{l} h{k} {role}: std {h['std'][role]} vs {abs(x - y) / math.sqrt(2)}")
                return
    check(True, "two-line means equal the mean of two single-sentence runs")
    check_corpus_chance(header, heads, singles)


def chance_of(single, role, layer):
    c = single["chance"][role]
    return c[layer][0] if isinstance(c, list) else c


def check_corpus_chance(header, heads, singles):
    """The header's chance is each layer's mean over the sentences of `heads`' chance, and every
    label clears it by the margin (labels use chance as `heads` does)."""
    chance, margin = header.get("chance"), header["settings"].get("chance_margin")
    if not check(chance is not None and margin == 0.1, f"corpus header: chance {chance is not None}, chance_margin {margin}"):
        return
    for role in ROLES:
        for l, got in enumerate(chance["mean"][role]):
            vals = [chance_of(s, role, l) for s in singles if chance_of(s, role, l) is not None]
            want = sum(vals) / len(vals) if vals else None
            if not ((got is None and want is None) or (got is not None and want is not None and close(got, want, 1e-6))):
                check(False, f"corpus chance.{role} layer {l}: {got}, the mean of the sentences' chance is {want}")
                return
    for h in heads:
        role = h["label"]
        if role in ROLES and role != "broadness":
            c = chance["mean"][role][h["layer"]]
            if c is not None and h["mean"][role] < c + margin - 1e-9:
                check(False, f"corpus L{h['layer']} h{h['head']} labelled {role} at {h['mean'][role]}, under chance {c} + {margin}")
                return
    check(True, "corpus chance levels are the sentences' mean chance; labels clear them by the margin")


def test_shards(margs, pretrained):
    lines = [b"Lily saw a cat.", b"", b"The cat ran up the tree and Lily laughed.", b"   \t", b"bad \xff\xfe bytes here",
             b"Tom had a red ball. He threw the ball to Lily.", b"One day, the sun was hot.\r",
             b"She went home and slept.", b"The end."]
    if pretrained:
        lines.append(b"once " * 700)  # more tokens than stories260K's 512 positions: cut, with a note
    corpus = write("corpus.txt", b"\n".join(lines) + b"\n")
    whole_out, err = ok("heads --corpus", ["heads"] + margs + ["--corpus", corpus, "--json", os.path.join(WORK, "whole.jsonl")])
    if whole_out is None:
        return
    with open(os.path.join(WORK, "whole.jsonl")) as f:
        header, whole = parse_jsonl(f.read(), "whole")
    c = header["lines"]
    scored = 7 if pretrained else 6
    check(c["blank"] == 2 and c["invalid_utf8"] == 1 and c["scored"] == scored and c["in_shard"] == len(lines),
          f"corpus counts: {c}")
    check(":5: not valid UTF-8" in err, f"the invalid line is named on stderr: {err.strip()[:400]}")
    if pretrained:
        check(c["cut"] == 1 and ":10: " in err, f"the over-long line is cut with a note: {c}, {err.strip()[:400]}")
    parts = []
    for i in range(3):
        path = os.path.join(WORK, f"part{i}.jsonl")
        out, _ = ok(f"shard {i}/3", ["heads"] + margs + ["--corpus", corpus, "--shard", f"{i}/3", "--json", path, "--quiet"])
        parts.append(path)
    for order in ([0, 1, 2], [2, 0, 1]):
        out, _ = ok("heads --merge", ["heads", "--merge"] + [parts[i] for i in order])
        if out is None:
            return
        mh, merged = parse_jsonl(out, "merged")
        check(mh["shard"]["indices"] == [0, 1, 2] and mh["shard"]["count"] == 3, f"merged shards: {mh['shard']}")
        check(mh["lines"] == header["lines"] and mh["tokens"] == header["tokens"], f"merged counts {mh['lines']} vs {header['lines']}")
        same_stats(merged, whole, f"merge {order} vs unsharded")
    # A shard given twice, shards of another count, a file that is not a corpus result.
    error("merge the same shard twice", ["heads", "--merge", parts[0], parts[1], parts[0]], ["shard 0/3", "twice"])
    other = os.path.join(WORK, "other.jsonl")
    ok("shard 0/2", ["heads"] + margs + ["--corpus", corpus, "--shard", "0/2", "--json", other, "--quiet"])
    error("merge shards of different counts", ["heads", "--merge", parts[1], other], ["shard of 2"])
    error("merge a text file", ["heads", "--merge", corpus], ["corpus.txt", "line 1"])
    error("merge a missing file", ["heads", "--merge", os.path.join(WORK, "nope.jsonl")], ["nope.jsonl"])
    # Bad shard specs and flags that do not go with --corpus.
    for spec, words in (("0/0", ["0/0", "count"]), ("3/2", ["3/2", "below"]), ("x", ["'x'", "I/N"]), ("1", ["'1'", "I/N"])):
        error(f"--shard {spec}", ["heads"] + margs + ["--corpus", corpus, "--shard", spec], words)
    error("--shard without --corpus", ["heads"] + margs + ["--sentence", "a cat", "--shard", "0/2"], ["--shard", "--corpus"])
    error("--corpus with --sentence", ["heads"] + margs + ["--corpus", corpus, "--sentence", "x"], ["--corpus", "--sentence"])
    error("--corpus with --sort", ["heads"] + margs + ["--corpus", corpus, "--sort", "previous"], ["--sort"])
    error("--corpus and --merge", ["heads"] + margs + ["--corpus", corpus, "--merge", parts[0]], ["--corpus", "--merge"])
    error("--merge with a sentence", ["heads", "--sentence", "x", "--merge", parts[0]], ["--merge"])
    error("--corpus missing file", ["heads"] + margs + ["--corpus", os.path.join(WORK, "missing.txt")], ["missing.txt"])
    # Devices, pipes and folders are refused at once (the corpus is read twice), never read forever.
    error("--corpus /dev/zero", ["heads"] + margs + ["--corpus", "/dev/zero"], ["/dev/zero", "regular file"])
    error("--corpus a folder", ["heads"] + margs + ["--corpus", WORK], ["regular file"])
    # A header claiming a huge model is refused before anything is allocated.
    with open(os.path.join(WORK, "whole.jsonl")) as f:
        h = json.loads(f.readline())
    h["model"]["n_layers"] = h["model"]["n_heads"] = 100000
    huge = write("huge.jsonl", (json.dumps(h) + "\n").encode())
    error("merge a header of 10^10 heads", ["heads", "--merge", huge], ["huge.jsonl", "heads"])
    empty = write("empty.txt", b"")
    out, _ = ok("an empty corpus", ["heads"] + margs + ["--corpus", empty])
    if out is not None:
        h, heads = parse_jsonl(out, "empty corpus")
        check(h["lines"]["scored"] == 0 and heads == [], f"an empty corpus gives a header and no head lines: {h}")


def main():
    global CLI, WORK
    CLI = sys.argv[1]
    T.cli = CLI
    models = os.environ.get("HEADSCOPE_MODELS_DIR") or (sys.argv[2] if len(sys.argv) > 2 else "")
    margs, pretrained = model_args(models)
    with tempfile.TemporaryDirectory() as work:
        WORK = work
        test_two_lines(margs)
        test_shards(margs, pretrained)
    return T.summary()


if __name__ == "__main__":
    sys.exit(main())
