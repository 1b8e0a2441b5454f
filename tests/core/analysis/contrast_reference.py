#!/usr/bin/python3
"""Oracle for minimal pairs (core/analysis/contrast.h, `headscope-cli compare`).

1. stories260K: `compare --json` on two sentences against numpy: the alignment's unchanged steps
   are a longest common subsequence of the token ids (its length from Python's own dynamic
   programme), and every head's change scores recomputed in float64 from the PyTorch llama2.c
   reference's maps of the two sentences, with the alignment's definition written out here: the
   query rows from the first changed step on (a causal model's prefix cannot move).
2. The teaching model (hand-wired heads, core/model/teaching_model.h): changing the noun that a
   later copy's induction and duplicate heads read moves those two heads (L1 h0, L1 h1) and no
   other: the positional heads (previous, first, self, broad) and who/what rows stay exactly put.
3. Bad input: a missing or empty --contrast, and --sentence-b, are refused with a sentence.

usage: contrast_reference.py HEADSCOPE_CLI MODELS_DIR
exit 0: match; 1: mismatch (the head, the number and the error are printed); 77: no torch or model.
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import torch
except ImportError as e:
    print("SKIP: %s (install python3-torch and python3-numpy)" % e)
    sys.exit(77)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pretrained"))
import llama2c_reference as ref  # noqa: E402

TOL = 2e-5
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def lcs_length(a, b):
    n, m = len(a), len(b)
    L = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            L[i][j] = L[i + 1][j + 1] + 1 if a[i] == b[j] else max(L[i + 1][j], L[i][j + 1])
    return L[0][0]


def first_changed(steps):
    return next((k for k, s in enumerate(steps) if s["op"] != "same"), len(steps))


def scores(A, B, steps, causal=True):
    """The definition: over the query rows both sides have (same or replaced), from the first changed step on in a causal model
    (the rows before it read the same tokens and cannot move), 0.5 * sum over steps of |A - B| (a side's missing key counts 0);
    the mean, the largest, and the weight each side puts on its changed tokens."""
    changed_a = {s["a"] for s in steps if s["op"] != "same" and s["a"] is not None}
    changed_b = {s["b"] for s in steps if s["op"] != "same" and s["b"] is not None}
    first = first_changed(steps) if causal else 0
    rows = []
    for q in steps[first:]:
        if q["a"] is None or q["b"] is None:  # a query only one side has
            continue
        wa = np.array([A[q["a"], k["a"]] if k["a"] is not None else 0.0 for k in steps])
        wb = np.array([B[q["b"], k["b"]] if k["b"] is not None else 0.0 for k in steps])
        rows.append((0.5 * np.abs(wa - wb).sum(), sum(A[q["a"], k] for k in changed_a), sum(B[q["b"], k] for k in changed_b)))
    r = np.array(rows)
    return {"distance": r[:, 0].mean(), "max_row": r[:, 0].max(), "weight_on_changed_a": r[:, 1].mean(),
            "weight_on_changed_b": r[:, 2].mean()}


def compare(cli, args):
    out = subprocess.run([cli, "compare"] + args + ["--json", "-"], check=True, stdout=subprocess.PIPE).stdout
    return json.loads(out)


def stories(cli, models):
    model = os.path.join(models, "stories260K", "stories260K.bin")
    tok = os.path.join(models, "stories260K", "tok512.bin")
    if not (os.path.isfile(model) and os.path.isfile(tok)):
        print("SKIP: %s not found (set HEADSCOPE_MODELS_DIR)" % model)
        return False
    torch.set_grad_enabled(False)
    cfg, w = ref.load_checkpoint(model)
    pairs = [("Lily saw the big dog. The dog was happy.", "Lily saw the little cat. The dog was happy."),
             ("Tom went to the park with his mom.", "Tom went to the park."),
             ("The girl liked the red ball.", "The girl liked the very red ball and the blue kite.")]
    for sa, sb in pairs:
        got = compare(cli, ["--model", model, "--tokenizer", tok, "--sentence", sa, "--contrast", sb])
        ia, ib = got["a"]["token_ids"], got["b"]["token_ids"]
        steps = got["alignment"]
        same = [s for s in steps if s["op"] == "same"]
        check(all(ia[s["a"]] == ib[s["b"]] for s in same), "%r: unchanged steps hold equal ids" % sb)
        check(len(same) == lcs_length(ia, ib), "%r: %d unchanged = the LCS length %d" % (sb, len(same), lcs_length(ia, ib)))
        check([s["a"] for s in steps if s["a"] is not None] == list(range(len(ia))) and
              [s["b"] for s in steps if s["b"] is not None] == list(range(len(ib))), "%r: the steps cover both sides in order" % sb)
        check(all((s["op"] == "replaced") == (s["a"] is not None and s["b"] is not None and s["op"] != "same") for s in steps),
              "%r: replaced steps pair a token of each side" % sb)
        paired_from = [k for k, s in enumerate(steps) if k >= first_changed(steps) and s["a"] is not None and s["b"] is not None]
        check(got.get("first_query_step") == first_changed(steps) and got["query_rows"] == len(paired_from),
              "%r: the change counts the %d paired query rows from the first changed step %d on" %
              (sb, got["query_rows"], got["first_query_step"]))
        maps_a, logits_a = ref.forward(cfg, w, ia)
        maps_b, logits_b = ref.forward(cfg, w, ib)
        for side, ids, logits in (("a", ia, logits_a), ("b", ib, logits_b)):
            want = float(torch.log_softmax(logits[-2].double(), -1)[ids[-1]])
            top = float(torch.log_softmax(logits[-1].double(), -1).max())
            got_last, got_next = got[side]["last_token_log_prob"], got[side]["next_token_log_prob"]
            check(abs(got_last - want) < 1e-4 and abs(got_next - top) < 1e-4,
                  "%r %s: log p of the last token %.5f (torch %.5f), of the prediction %.5f (torch %.5f)" %
                  (sb, side, got_last, want, got_next, top))
        worst = (0.0, "")
        for l in range(cfg["n_layers"]):
            for h in range(cfg["n_heads"]):
                want = scores(maps_a[l][h].double().numpy(), maps_b[l][h].double().numpy(), steps)
                for key, value in want.items():
                    err = abs(got["heads"][l][h][key] - value)
                    if err > worst[0]:
                        worst = (err, "L%d h%d %s: %.6g vs numpy %.6g" % (l, h, key, got["heads"][l][h][key], value))
        check(worst[0] <= TOL, "%r: every head's scores within %g of numpy on the reference's maps (worst %.3g %s)" %
              (sb, TOL, worst[0], worst[1]))
    # The CSV holds the JSON's numbers, one row per head.
    rows = list(csv.DictReader(io.StringIO(subprocess.run(
        [cli, "compare", "--model", model, "--tokenizer", tok, "--sentence", pairs[0][0], "--contrast", pairs[0][1], "--csv", "-"],
        check=True, stdout=subprocess.PIPE, text=True).stdout)))
    got = compare(cli, ["--model", model, "--tokenizer", tok, "--sentence", pairs[0][0], "--contrast", pairs[0][1]])
    check(len(rows) == cfg["n_layers"] * cfg["n_heads"] and all(
        abs(float(r["distance"]) - got["heads"][int(r["layer"])][int(r["head"])]["distance"]) < 1e-7 for r in rows),
        "the CSV has one row per head with the JSON's distances")
    return True


def exports(cli, models, tmp):
    """--out in every format: the figure (PNG, SVG, PDF), and the data equal to --json / --csv."""
    model = os.path.join(models, "stories260K", "stories260K.bin")
    tok = os.path.join(models, "stories260K", "tok512.bin")
    base = [cli, "compare", "--model", model, "--tokenizer", tok, "--sentence", "Lily saw the big dog.",
            "--contrast", "Lily saw the dog."]
    for ext in ("png", "svg", "pdf", "json", "csv", "npy"):
        path = os.path.join(tmp, "pair." + ext)
        p = subprocess.run(base + ["--out", path, "--layer", "1", "--head", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        check(p.returncode == 0 and os.path.getsize(path) > 0, "--out pair.%s written (%s)" % (ext, p.stderr.decode().strip()))
    got = compare(cli, base[2:])
    with open(os.path.join(tmp, "pair.json")) as f:
        check(json.load(f) == got, "--out pair.json is what --json writes")
    grid = np.load(os.path.join(tmp, "pair.npy"))
    want = np.array([[h["distance"] for h in layer] for layer in got["heads"]], dtype=np.float32)
    check(grid.shape == want.shape and np.array_equal(grid, want), "--out pair.npy is every head's change, %s" % (grid.shape,))
    with open(os.path.join(tmp, "pair.svg")) as f:
        svg = f.read()
    check("B \u2212 A" in svg and "layer 1" in svg, "the SVG figure names B \u2212 A and the layer")
    # The figure says what was compared: both sentences and what "change" is, under the maps.
    check("A: Lily saw the big dog." in svg and "B: Lily saw the dog." in svg and "change: the total variation" in svg,
          "the SVG figure prints sentence A, sentence B and the definition of change")
    p = subprocess.run(base + ["--out", os.path.join(tmp, "x.png"), "--head", "99"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(p.returncode != 0 and "head 99" in p.stderr, "a head out of range is refused: %r" % p.stderr.strip())


def teaching(cli):
    got = compare(cli, ["--model", "teaching", "--sentence", "the cat sat on the mat . the cat",
                        "--contrast", "the dog sat on the mat . the cat"])
    ops = [s["op"] for s in got["alignment"]]
    check(ops.count("replaced") == 1 and ops.count("same") == len(ops) - 1, "teaching: one replaced token (cat -> dog)")
    jobs = ["previous", "first", "who", "what", "induction", "duplicate", "self", "broad"]
    moved = []
    for l, layer in enumerate(got["heads"]):
        for h, c in enumerate(layer):
            job = jobs[l * 4 + h]
            if c["distance"] > 0.01:
                moved.append(job)
            if job in ("previous", "first", "self", "broad", "who", "what"):
                check(c["max_row"] < 1e-6, "teaching L%d h%d (%s): no row moved (largest %.3g)" % (l, h, job, c["max_row"]))
    check(sorted(moved) == ["duplicate", "induction"], "teaching: the heads that moved are induction and duplicate (%s)" % moved)
    ind = got["heads"][1][0]
    check(ind["max_row"] > 0.5, "teaching: the induction head's last row moved (%.3g)" % ind["max_row"])


def refused(cli):
    for args, says in ((["--sentence", "a b"], "--contrast"), (["--sentence", "a b", "--contrast", ""], "empty"),
                       (["--model", "teaching", "--sentence", "the cat", "--sentence-b", "x", "--contrast", "the dog"], "sentence")):
        p = subprocess.run([cli, "compare"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        check(p.returncode != 0 and says in p.stderr and p.stderr.count("\n") == 1,
              "refused %s: exit %d, %r" % (args, p.returncode, p.stderr.strip()))


def main():
    cli, models = sys.argv[1], os.environ.get("HEADSCOPE_MODELS_DIR") or sys.argv[2]
    have = stories(cli, models)
    if have:
        with tempfile.TemporaryDirectory() as tmp:
            exports(cli, models, tmp)
    teaching(cli)
    refused(cli)
    if failures:
        print("%d failed" % len(failures))
        return 1
    return 0 if have else 77


if __name__ == "__main__":
    sys.exit(main())
