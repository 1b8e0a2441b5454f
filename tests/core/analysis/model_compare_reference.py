#!/usr/bin/python3
"""Oracle for two models on one input (core/analysis/model_contrast.h, `headscope-cli compare
--model A --model-b B`), on stories260K's GGUF files from the fixture formats.gguf_test_files
(tests/core/formats/make_gguf_test_files.py: F32, Q8_0 and Q4_0 of the same checkpoint).

1. Per-head change = two separate `maps --json` runs compared in numpy (float64): for every layer
   and head, the mean over query rows of half the summed |A - B| of each row; the largest row and
   where; the ranks (largest change first, layer/head order among equals); both runs' maps as
   attention_a / attention_b; --csv, --out .npy and --json agree; --input-ids gives the same.
2. Next-token agreement: the top-1 match count equals the two `maps` runs' next_token_ids
   compared; the mean and largest KL(P_A || P_B) equal a float64 PyTorch forward pass of the
   llama2.c checkpoint with the weights each GGUF file holds (quantized and decoded in numpy).
3. The same file twice: every change 0, top-1 agreement 1, KL 0, and a note that says so; the
   llama2.c .bin against its F32 GGUF: the same weights, changes below 1e-5.
4. Bad input: a model that fails to load (named as model A or B), different families, --contrast
   or --target with --model-b, --model-b without --model, an empty --model-b: one line, exit 1 or 2.
5. The finding of docs/model-pairs.md: F32 against Q8_0 and Q4_0 on its sentence, the most changed heads
   (printed; the page's table comes from this output).

usage: model_compare_reference.py HEADSCOPE_CLI GGUF_DIR MODELS_DIR
exit 0: all match; 1: a mismatch (the head, the numbers and the error are printed).
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "pretrained"))
sys.path.insert(0, os.path.join(HERE, "..", "formats"))
import ggml_dequant  # noqa: E402
import ggml_quantize  # noqa: E402
import llama2c_reference as ref  # noqa: E402
from make_gguf_test_files import quantize_q8_0  # noqa: E402

SENTENCE = "Once upon a time, there was a little girl named Lily. She liked to play in the park with her dog."
TOL = 1e-6       # change: the same float maps, summed in another order
KL_TOL = 1e-4    # KL: float32 engine against the float64 reference (relative, plus 1e-7 absolute)
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def run(cli, *args):
    p = subprocess.run([cli] + list(args), capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("FAIL  %s exited %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()))
    return p.stdout


def maps_json(cli, model):
    return json.loads(run(cli, "maps", "--model", model, "--sentence", SENTENCE, "--json", "-"))


def compare_json(cli, a, b, *extra):
    return json.loads(run(cli, "compare", "--model", a, "--model-b", b, "--json", "-", *extra))


def changes(ma, mb):
    """[L, H] change, [L, H] largest row and its query: the definition, written out."""
    A = np.array(ma["attention"], dtype=np.float64)  # [L, H, T, T]
    B = np.array(mb["attention"], dtype=np.float64)
    rows = 0.5 * np.abs(A - B).sum(axis=-1)          # [L, H, T] total variation of each query row
    return rows.mean(axis=-1), rows.max(axis=-1), rows.argmax(axis=-1)




def check_heads(name, got, change, max_row, at):
    L, H = change.shape
    dist = np.array([[got["heads"][l][h]["distance"] for h in range(H)] for l in range(L)])
    err = np.abs(dist - change)
    l, h = np.unravel_index(np.argmax(err), err.shape)
    check(err[l, h] <= TOL, "%s: change of every head = numpy on two maps runs (worst layer %d head %d: %.9g vs %.9g, error %.3g)"
          % (name, l, h, dist[l, h], change[l, h], err[l, h]))
    mr = np.array([[got["heads"][l][h]["max_row"] for h in range(H)] for l in range(L)])
    check(np.abs(mr - max_row).max() <= TOL, "%s: largest row of every head (max error %.3g)" % (name, np.abs(mr - max_row).max()))
    steps = np.array([[got["heads"][l][h]["max_row_step"] for h in range(H)] for l in range(L)])
    clear = max_row > TOL  # where several rows tie at 0 the first is taken; compare where there is a largest
    check(bool(np.all(steps[clear] == at[clear])), "%s: the largest row's query position" % name)
    ranks = np.array([[got["heads"][l][h]["rank"] for h in range(H)] for l in range(L)])
    # Ranks of heads whose changes are within rounding of each other may swap: compare the changes in rank order.
    by_rank = np.zeros(L * H)
    by_rank[ranks.reshape(-1) - 1] = change.reshape(-1)
    check(sorted(ranks.reshape(-1).tolist()) == list(range(1, L * H + 1)) and bool(np.all(np.diff(by_rank) <= TOL)),
          "%s: ranks 1..%d, largest change first" % (name, L * H))
    return dist, ranks


def decoded(a, qtype):
    """The float weights a GGUF file of this writer holds for matrix `a` (float64 torch)."""
    x = a.numpy().astype(np.float32)
    if x.ndim == 1 or qtype == "F32":
        return a
    if x.shape[-1] % 32 == 0:
        raw = quantize_q8_0(x) if qtype == "Q8_0" else ggml_quantize.quantize(qtype, x)
        out = ggml_dequant.dequantize(qtype, raw, x.size)
    else:
        out = x.astype("<f2").astype(np.float32)
    return torch.from_numpy(out.reshape(x.shape).astype(np.float64))


def reference_logits(cfg, w, ids, qtype):
    wq = {}
    for k, v in w.items():
        if k == "cls":
            continue
        if k.startswith("rms"):  # norms: per-layer vectors, float32 in every file
            wq[k] = v
        elif v.dim() == 3:  # [layers, rows, cols]: each layer's matrix is its own tensor
            wq[k] = torch.stack([decoded(v[i], qtype) for i in range(v.shape[0])])
        else:
            wq[k] = decoded(v, qtype)
    wq["cls"] = wq["emb"]  # tied: llama.cpp's file has no output.weight, the classifier reads token_embd
    return ref.forward(cfg, wq, ids)[1]


def kl_reference(la, lb):
    pa, pb = torch.log_softmax(la, -1), torch.log_softmax(lb, -1)
    kl = (pa.exp() * (pa - pb)).sum(-1)
    return float(kl.mean()), float(kl.max()), int(kl.argmax())


def check_kl(name, got, ref_a, ref_b):
    mean, top, at = kl_reference(ref_a, ref_b)
    n = got["next_token"]
    for key, want in (("mean_kl", mean), ("max_kl", top)):
        ok = abs(n[key] - want) <= KL_TOL * abs(want) + 1e-7
        check(ok, "%s: %s %.9g, float64 reference %.9g (error %.3g)" % (name, key, n[key], want, abs(n[key] - want)))
    check(n["max_kl_position"] == at, "%s: largest KL after position %d (reference %d)" % (name, n["max_kl_position"], at))


def check_models_pair(cli, gguf, cfg, w, qtype):
    name = "F32 vs %s" % qtype
    fa, fb = os.path.join(gguf, "stories260K_f32.gguf"), os.path.join(gguf, "stories260K_%s.gguf" % qtype.lower())
    ma, mb = maps_json(cli, fa), maps_json(cli, fb)
    got = compare_json(cli, fa, fb, "--sentence", SENTENCE)
    check(got["mode"] == "models" and got["model_a"]["path"] == fa and got["model_b"]["path"] == fb,
          "%s: mode 'models', model_a and model_b name the files" % name)
    check(got["a"]["token_ids"] == ma["token_ids"] == got["b"]["token_ids"], "%s: both models read the same ids" % name)
    check(got["attention_a"] == ma["attention"] and got["attention_b"] == mb["attention"],
          "%s: attention_a / attention_b are the two maps runs' maps, exactly" % name)
    change, max_row, at = changes(ma, mb)
    dist, ranks = check_heads(name, got, change, max_row, at)
    check(change.max() > 1e-4, "%s: quantization moves some head (largest change %.3g)" % (name, change.max()))
    matches = sum(x == y for x, y in zip(ma["next_token_ids"], mb["next_token_ids"]))
    n = got["next_token"]
    check(n["positions"] == len(ma["token_ids"]) and n["top1_matches"] == matches,
          "%s: top-1 agreement %d of %d = the two maps runs' next tokens compared (%d)" % (name, n["top1_matches"], n["positions"], matches))
    ids = ma["token_ids"]
    check_kl(name, got, reference_logits(cfg, w, ids, "F32"), reference_logits(cfg, w, ids, qtype))
    by_ids = compare_json(cli, fa, fb, "--input-ids", ",".join(map(str, ids)))
    check([[h["distance"] for h in layer] for layer in by_ids["heads"]] == [[h["distance"] for h in layer] for layer in got["heads"]],
          "%s: --input-ids gives the sentence's changes" % name)
    return got, change, ranks


def check_outputs(cli, gguf, got, tmp):
    fa, fb = os.path.join(gguf, "stories260K_f32.gguf"), os.path.join(gguf, "stories260K_q8_0.gguf")
    rows = list(csv.DictReader(io.StringIO(run(cli, "compare", "--model", fa, "--model-b", fb, "--sentence", SENTENCE, "--csv", "-"))))
    ok = all(float(r["distance"]) == got["heads"][int(r["layer"])][int(r["head"])]["distance"] and
             int(r["rank"]) == got["heads"][int(r["layer"])][int(r["head"])]["rank"] for r in rows)
    check(ok and len(rows) == sum(len(layer) for layer in got["heads"]), "--csv: a row per head, the JSON's change and rank")
    grid = np.array([[h["distance"] for h in layer] for layer in got["heads"]], dtype=np.float32)
    for ext in ("npy", "png", "svg", "json"):
        path = os.path.join(tmp, "models." + ext)
        run(cli, "compare", "--model", fa, "--model-b", fb, "--sentence", SENTENCE, "--out", path)
        if ext == "npy":
            check(np.array_equal(np.load(path), grid), "--out .npy: the change, [layers, heads]")
        elif ext == "json":
            check(json.load(open(path))["heads"] == got["heads"], "--out .json: the --json object")
        else:
            check(os.path.getsize(path) > 1000, "--out .%s written (%d bytes)" % (ext, os.path.getsize(path)))
    svg = open(os.path.join(tmp, "models.svg"), encoding="utf-8").read()
    check("stories260K_q8_0.gguf" in svg and "every query row" in svg, "the figure's caption names model B and what 'change' is")
    check("change per head" in svg, "the figure draws the layers x heads change map")


def check_same(cli, gguf, models):
    fa = os.path.join(gguf, "stories260K_f32.gguf")
    got = compare_json(cli, fa, fa, "--sentence", SENTENCE)
    zero = all(h["distance"] == 0 and h["max_row"] == 0 for layer in got["heads"] for h in layer)
    n = got["next_token"]
    check(zero and n["top1_match_rate"] == 1 and n["mean_kl"] == 0 and got["same_file"],
          "the same file twice: every change 0, top-1 agreement 1, KL 0")
    check(any("same file" in s for s in got["comparison_notes"]), "the same file twice: a note says so")
    text = run(cli, "compare", "--model", fa, "--model-b", fa, "--sentence", SENTENCE)
    check("same file" in text and "0.0000" in text, "the same file twice: the text report says so")
    bin_ = os.path.join(models, "stories260K", "stories260K.bin")
    tok = os.path.join(models, "stories260K", "tok512.bin")
    got = json.loads(run(cli, "compare", "--model", bin_, "--tokenizer", tok, "--model-b", fa, "--sentence", SENTENCE, "--json", "-"))
    top = max(h["distance"] for layer in got["heads"] for h in layer)
    check(top < 1e-5 and not got["same_file"], "llama2.c .bin against its F32 GGUF: the same weights, largest change %.3g" % top)


def refused(cli, args, phrase, what, env=None):
    p = subprocess.run([cli, "compare"] + args, capture_output=True, text=True, env=env)
    lines = p.stderr.strip().splitlines()
    phrases = phrase if isinstance(phrase, list) else [phrase]
    ok = p.returncode in (1, 2) and len(lines) == 1 and all(x in p.stderr for x in phrases)
    check(ok, "%s: exit %d, %r" % (what, p.returncode, p.stderr.strip()[:300]))


def check_memory_budget(cli, gguf):
    """Both models against the memory budget, before either is read (docs/model-pairs.md#memory):
    the refusal names both files' needs, the budget and the memory available."""
    fa, fb = os.path.join(gguf, "stories260K_f32.gguf"), os.path.join(gguf, "stories260K_q8_0.gguf")
    pair = ["--model", fa, "--model-b", fb, "--sentence", SENTENCE]
    both = ["do not fit in memory", "model A (%s) needs about" % fa, "model B (%s) needs about" % fb, "mapped from the file"]
    refused(cli, pair + ["--memory-budget", "1M"], both + ["the memory budget is 1.0 MiB (--memory-budget)", "is available ("],
            "a pair over --memory-budget 1M")
    env = dict(os.environ, HEADSCOPE_MEMORY_BUDGET="1500K")
    refused(cli, pair, both + ["the memory budget is 1.5 MiB (HEADSCOPE_MEMORY_BUDGET)"], "a pair over HEADSCOPE_MEMORY_BUDGET", env)
    env = dict(os.environ, HEADSCOPE_MEMORY_AVAILABLE="1M")
    refused(cli, pair, both + ["no memory budget is set", "1.0 MiB is available (HEADSCOPE_MEMORY_AVAILABLE)"],
            "a pair over the memory available", env)
    refused(cli, pair + ["--memory-budget", "lots"], '--memory-budget is "lots"; expected MiB', "--memory-budget lots")
    refused(cli, pair + ["--memory-budget", "1"], "the memory budget is 1.0 MiB (--memory-budget)", "--memory-budget 1: a bare number is MiB")
    refused(cli, ["--model", fa, "--sentence", "a", "--contrast", "b", "--memory-budget", "1G"], "use it with --model-b",
            "--memory-budget with a sentence pair")
    got = json.loads(run(cli, "compare", *pair, "--memory-budget", "64M", "--json", "-"))
    check(got["mode"] == "models", "a pair within --memory-budget 64M runs")


def check_bad_input(cli, gguf):
    fa = os.path.join(gguf, "stories260K_f32.gguf")
    s = ["--sentence", SENTENCE]
    refused(cli, ["--model", fa, "--model-b", os.path.join(gguf, "refuse_arch.gguf")] + s, "model B (",
            "model B fails to load (an architecture headscope does not run)")
    refused(cli, ["--model", os.path.join(gguf, "missing.gguf"), "--model-b", fa] + s, "model A (", "model A does not exist")
    refused(cli, ["--model", fa, "--model-b", "teaching"] + s, "different families", "different families (stories260K, the teaching model)")
    refused(cli, ["--model", fa, "--model-b", fa, "--contrast", "x"] + s, "give one of them", "--contrast with --model-b")
    refused(cli, ["--model", fa, "--model-b", fa, "--target", " a", "--versus", " b"] + s, "leave them out", "--target with --model-b")
    refused(cli, ["--model-b", fa] + s, "give the first model too", "--model-b without --model")
    refused(cli, ["--model", fa, "--model-b="] + s, "--model-b is empty", "an empty --model-b")
    refused(cli, ["--model", fa, "--model-b", fa], "--sentence TEXT or --input-ids", "no input")


def main():
    cli, gguf, models = sys.argv[1], sys.argv[2], sys.argv[3]
    torch.set_grad_enabled(False)
    cfg, w = ref.load_checkpoint(os.path.join(models, "stories260K", "stories260K.bin"))
    findings = {}
    for qtype in ("Q8_0", "Q4_0"):
        got, change, ranks = check_models_pair(cli, gguf, cfg, w, qtype)
        findings[qtype] = (got, change, ranks)
    with tempfile.TemporaryDirectory() as tmp:
        check_outputs(cli, gguf, findings["Q8_0"][0], tmp)
    check_same(cli, gguf, models)
    check_bad_input(cli, gguf)
    check_memory_budget(cli, gguf)
    sentences = json.loads(run(cli, "compare", "--model", os.path.join(gguf, "stories260K_f32.gguf"), "--sentence", "The cat sat",
                               "--contrast", "The dog sat", "--json", "-"))
    check(sentences["mode"] == "sentences" and "rank" in sentences["heads"][0][0], "the sentence pair's JSON: mode 'sentences', ranks")
    print("\nThe finding (docs/model-pairs.md): stories260K F32 against each quantization, %r" % SENTENCE)
    A = np.array(findings["Q8_0"][0]["attention_a"], dtype=np.float64)  # [L, H, T, T] of the F32 model
    pairs = [0.5 * np.abs(A[l, i] - A[l, j]).sum(-1).mean() for l in range(A.shape[0])
             for i in range(A.shape[1]) for j in range(i + 1, A.shape[1])]
    print("  yardstick: two different heads of one layer of the F32 model differ by %.4f on average (min %.4f)" % (
        np.mean(pairs), np.min(pairs)))
    for qtype, (got, change, ranks) in findings.items():
        n = got["next_token"]
        order = np.argsort(ranks, axis=None)
        top = ", ".join("L%d h%d %.4f" % (i // change.shape[1], i % change.shape[1], change.reshape(-1)[i]) for i in order[:5])
        print("  %s: mean change %.4f, median %.4f, largest: %s; top-1 agreement %d/%d, mean KL %.3g nats" % (
            qtype, change.mean(), np.median(change), top, n["top1_matches"], n["positions"], n["mean_kl"]))
    if failures:
        print("\n%d check(s) failed" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
