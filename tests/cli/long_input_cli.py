#!/usr/bin/python3
"""headscope-cli's long-input report and JSON (issue 22): strongest keys in significant digits
(a uniform weight of 3e-4 is not 0.000), a --display-size that cannot be kept exactly is said,
and `maps --json F --long-input` writes block maxima, the block size and exact per-head numbers,
checked against whole maps of the same input computed here with numpy (the oracle): each block
maximum equals the largest whole-map weight of its block, each head's largest weight and mean
row entropy equal the whole map's. --json on long input without --long-input still refuses.

Usage: long_input_cli.py PATH/TO/headscope-cli
"""
import json
import re
import subprocess
import sys

import numpy as np

CLI = sys.argv[1]
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(args):
    p = subprocess.run([CLI] + args, capture_output=True, timeout=300)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


WORDS = " ".join("w%d" % (i % 89) for i in range(300))
BASE = ["maps", "--sentence", WORDS, "--d-model", "16", "--heads", "4", "--causal"]

# The report: significant digits, never 0.000 for a small nonzero weight.
rc, out, err = run(BASE + ["--display-size", "32", "--query", "299"])
if rc != 0:
    fail("report: exit %d: %s" % (rc, err))
else:
    weights = re.findall(r"=([0-9.e+-]+)", out)
    if not weights:
        fail("report: no strongest keys: " + out[:400])
    for w in weights:
        if float(w) > 0 and re.fullmatch(r"0\.0+", w):
            fail("report: a nonzero weight printed as %s" % w)
    if "note: --display-size 32 holds 30 x 30 cells" not in out:
        fail("report: --display-size 32 on 300 tokens (blocks of 10, 30 cells) is not said: " + out[:600])

# --json with --display-size alone still refuses (the contract), naming --long-input as the way.
rc, out, err = run(BASE + ["--display-size", "32", "--json", "-"])
if rc == 0 or "--json" not in err or "--display-size" not in err or "--long-input" not in err:
    fail("--json --display-size without --long-input: exit %d, %s" % (rc, err.strip()))

# The long-input JSON against whole maps of the same input.
rc, out, err = run(BASE + ["--display-size", "32", "--json", "-", "--long-input"])
rc2, whole_out, err2 = run(BASE + ["--json", "-"])
if rc != 0 or rc2 != 0:
    fail("long-input JSON: exit %d / %d: %s %s" % (rc, rc2, err, err2))
else:
    li = json.loads(out)
    whole = json.loads(whole_out)
    if "attention" in li:
        fail("long-input JSON carries whole maps")
    L = li["long_input"]
    f, p = L["block_size"], L["display_size"]
    if (f, p, L["tokens"]) != (10, 30, 300):
        fail("block size %s, display size %s, tokens %s; expected 10, 30, 300" % (f, p, L["tokens"]))
    if L["block_labels"][:2] != ["0-9", "10-19"]:
        fail("block labels: %r" % L["block_labels"][:2])
    if li["tokens"] != whole["tokens"] or li["config"] != whole["config"]:
        fail("tokens or config differ from the whole-maps JSON")
    A = np.array(whole["attention"], dtype=np.float64)  # [L, H, T, T]
    B = np.array(L["block_maxima"], dtype=np.float64)   # [L, H, P, P]
    want = A.reshape(A.shape[0], A.shape[1], p, f, p, f).max(axis=(3, 5))
    err_b = np.abs(B - want).max()
    if err_b > 1e-5:
        fail("block maxima differ from numpy's block maxima of the whole maps by %g" % err_b)
    for l in range(A.shape[0]):
        for h in range(A.shape[1]):
            n = L["head_numbers"][l][h]
            a = A[l, h]
            ent = float(np.mean(-np.sum(np.where(a > 0, a * np.log(np.where(a > 0, a, 1)), 0), axis=1)))
            if abs(n["max"] - a.max()) > 1e-5 or abs(n["max_skip_first"] - a[:, 1:].max()) > 1e-5:
                fail("head %d: max %g / %g, numpy %g / %g" % (h, n["max"], n["max_skip_first"], a.max(), a[:, 1:].max()))
            if abs(n["mean_entropy"] - ent) > 1e-4:
                fail("head %d: mean entropy %g, numpy %g" % (h, n["mean_entropy"], ent))

# --long-input without --display-size: the rule's size (1024 cells a side, here one token a cell).
rc, out, err = run(BASE + ["--json", "-", "--long-input"])
if rc != 0:
    fail("--long-input alone: exit %d: %s" % (rc, err))
elif json.loads(out)["long_input"]["block_size"] != 1:
    fail("--long-input alone on 300 tokens: block size is not 1")
rc, out, err = run(BASE + ["--long-input", "--whole-maps"])
if rc == 0 or "--long-input" not in err:
    fail("--long-input with --whole-maps: exit %d, %s" % (rc, err.strip()))

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("long-input CLI: all checks passed")
