#!/usr/bin/python3
"""Oracle for head ablation (core/analysis/head_ablation.h), checked live on stories260K.

The PyTorch llama2.c reference's forward pass (tests/core/pretrained/llama2c_reference.py, float64)
is rerun here with one head's context (attention @ v) replaced before the output projection, by 0
(zero ablation) or by its mean over positions in the intact run (mean ablation), for every layer x
head; the change in each next token's log-probability and in the mean loss must match
`headscope-cli ablate --json -`. The same for a tiny random GPT-2 folder against
tests/core/pretrained/hf_reference.py's GPT-2 forward (c_proj's bias stays, as in headscope).

Then on stories260K, to 1e-4 on losses and log-probs (check_group, check_target, check_reference):
a group knocked out together (`--knock-out 1.3,2.5,4.0`), a target (`--target TEXT
[--target-position P]`: the log-prob of the continuation's first piece as the prediction made at
P, the piece found with the reference's own encoder) and mean ablation over a reference file
(`--ablation mean --reference FILE`: each head's mean over every position of every usable line,
pooled), each against the float64 reference with the same heads knocked out. Each check also
recomputes the reference with a wrong head, a wrong token or the sentence's own mean and fails
unless that is far outside the tolerance (the oracle can tell them apart).

usage: head_ablation_reference.py HEADSCOPE_CLI MODELS_DIR
exit 0: match; 1: mismatch (the head and the error are printed); 77: no torch or no model (skip).
"""
import json
import math
import os
import shutil
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
import hf_reference as hf  # noqa: E402

TOL = 2e-3  # float32 engine against a float64 reference, through 5 layers and a log-softmax
TOL_PAPER = 1e-4  # group, target and reference-mean ablation on stories260K (issue 48)


def forward(cfg, w, ids, knock=None, mode="zero", means=None):
    """ref.forward with head `knock` = (layer, head), or a list of them, knocked out (their contexts
    set to 0, or to means[layer]'s columns); returns logits [T, vocab] and each layer's context mean."""
    knocks = [] if knock is None else (list(knock) if isinstance(knock, list) else [knock])
    T, d, H, G = len(ids), cfg["dim"], cfg["n_heads"], cfg["n_kv"]
    hs = d // H
    x = w["emb"][ids]
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    ctx_means = []
    for l in range(cfg["n_layers"]):
        h = ref.rmsnorm(x, w["rms_att"][l])
        q = ref.rope(h @ w["wq"][l].T, H, hs).view(T, H, hs).transpose(0, 1)
        k = ref.rope(h @ w["wk"][l].T, G, hs).view(T, G, hs).transpose(0, 1)
        v = (h @ w["wv"][l].T).view(T, G, hs).transpose(0, 1)
        k = k.repeat_interleave(H // G, dim=0)
        v = v.repeat_interleave(H // G, dim=0)
        att = torch.softmax((q @ k.transpose(1, 2) / hs ** 0.5).masked_fill(mask, float("-inf")), dim=-1)
        ctx = (att @ v).transpose(0, 1).reshape(T, d).clone()  # [T, H*hs]
        ctx_means.append(ctx.mean(0))
        for kl, kh in knocks:
            if kl == l:
                cols = slice(kh * hs, (kh + 1) * hs)
                ctx[:, cols] = 0.0 if mode == "zero" else means[l][cols]
        x = x + ctx @ w["wo"][l].T
        h = ref.rmsnorm(x, w["rms_ffn"][l])
        x = x + (torch.nn.functional.silu(h @ w["w1"][l].T) * (h @ w["w3"][l].T)) @ w["w2"][l].T
    return ref.rmsnorm(x, w["rms_final"]) @ w["cls"].T, ctx_means


def next_logprob(logits, ids):
    lp = torch.log_softmax(logits, dim=-1)
    return np.array([float(lp[t, ids[t + 1]]) for t in range(len(ids) - 1)])


def check(cli, model, tok, cfg, w, sentence, mode):
    args = [cli, "ablate", "--model", model, "--tokenizer", tok, "--sentence", sentence, "--json", "-", "--quiet"]
    if mode == "mean":
        args += ["--ablation", "mean"]
    got = json.loads(subprocess.run(args, check=True, stdout=subprocess.PIPE).stdout)
    ids = got["token_ids"]
    logits, means = forward(cfg, w, ids)
    base = next_logprob(logits, ids)
    ok = True
    if abs(got["base_loss"] - float(-base.mean())) > TOL:
        print("%s: base loss %.6f, reference %.6f" % (mode, got["base_loss"], -base.mean()))
        ok = False
    worst, where, biggest = 0.0, None, (0.0, None)
    for l in range(cfg["n_layers"]):
        for h in range(cfg["n_heads"]):
            lp = next_logprob(forward(cfg, w, ids, (l, h), mode, means)[0], ids)
            want_dlp = lp - base
            want_loss = float(-lp.mean() + base.mean())
            err = max(np.abs(np.array(got["delta_logprob"][l][h]) - want_dlp).max(), abs(got["delta_loss"][l][h] - want_loss))
            if err > worst:
                worst, where = err, (l, h)
            if want_loss > biggest[0]:
                biggest = (want_loss, (l, h))
    if worst > TOL:
        print("%s ablation: layer %d head %d differs by %.3g (tolerance %g)" % (mode, where[0], where[1], worst, TOL))
        ok = False
    print("%s ablation: %d tokens, %d heads, max error %.3g; the reference's most important head L%d h%d (+%.3f nats)%s" % (
        mode, len(ids), cfg["n_layers"] * cfg["n_heads"], worst, biggest[1][0], biggest[1][1], biggest[0], "" if ok else "  FAILED"))
    return ok


def run_json(cli, model, tok, sentence, extra):
    args = [cli, "ablate", "--model", model, "--tokenizer", tok, "--sentence", sentence, "--json", "-"] + extra
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise SystemExit("FAILED: %s exited %d: %s" % (" ".join(args[1:]), p.returncode, p.stderr.strip()))
    return json.loads(p.stdout)


def target_logprob(logits, position, token):
    return float(torch.log_softmax(logits[position], dim=-1)[token])


class Verdict:
    """Worst error of a case, and the smallest error a wrong reference makes (must be large)."""

    def __init__(self, name):
        self.name, self.worst, self.where, self.wrong = name, 0.0, "", float("inf")

    def err(self, got, want, where):
        e = float(np.max(np.abs(np.asarray(got, dtype=float) - np.asarray(want, dtype=float))))
        if e > self.worst:
            self.worst, self.where = e, where
        return e

    def wrong_err(self, got, want):
        self.wrong = min(self.wrong, float(np.max(np.abs(np.asarray(got, dtype=float) - np.asarray(want, dtype=float)))))

    def report(self):
        ok = self.worst <= TOL_PAPER and self.wrong > 10 * TOL_PAPER
        print("%s: max error %.3g (%s), a wrong reference differs by %.3g%s" % (
            self.name, self.worst, self.where or "-", self.wrong, "" if ok else "  FAILED (tolerance %g)" % TOL_PAPER))
        return ok


def check_group(cli, model, tok, cfg, w, sentence, mode, heads):
    """--knock-out: every listed head knocked out in one pass."""
    got = run_json(cli, model, tok, sentence, ["--knock-out", ",".join("%d.%d" % h for h in heads)] +
                   (["--ablation", "mean"] if mode == "mean" else []))
    ids = got["token_ids"]
    v = Verdict("group %s %s (%s ablation)" % (",".join("%d.%d" % h for h in heads), "mean loss", mode))
    logits, means = forward(cfg, w, ids)
    base = next_logprob(logits, ids)
    lp = next_logprob(forward(cfg, w, ids, list(heads), mode, means)[0], ids)
    ok = got["measure"] == "mean_loss" and got["knock_out"] == [list(h) for h in heads]
    v.err(got["base_loss"], -base.mean(), "base loss")
    v.err(got["delta_logprob"], lp - base, "delta_logprob")
    v.err(got["delta_loss"], -lp.mean() + base.mean(), "delta_loss")
    v.err(got["delta_measure"], got["delta_loss"], "delta_measure")
    # A wrong head in the group (the last one's neighbour) must be caught.
    wrong = list(heads[:-1]) + [(heads[-1][0], (heads[-1][1] + 1) % cfg["n_heads"])]
    wlp = next_logprob(forward(cfg, w, ids, wrong, mode, means)[0], ids)
    v.wrong_err(got["delta_logprob"], wlp - base)
    if not ok:
        print("group: measure %r / knock_out %r" % (got["measure"], got["knock_out"]))
    return v.report() and ok


def first_piece(pieces, scores, sentence, text):
    alone, joined = ref.encode(sentence, pieces, scores), ref.encode(sentence + text, pieces, scores)
    assert joined[:len(alone)] == alone, "the continuation merges with the sentence"
    return joined[len(alone)], len(joined) - len(alone)


def check_target(cli, model, tok, cfg, w, pieces, scores, sentence, text, position, group):
    """--target TEXT [--target-position P]: each head alone (or a group) measured by one prediction."""
    extra = ["--target", text] + ([] if position is None else ["--target-position", str(position)])
    if group:
        extra += ["--knock-out", ",".join("%d.%d" % h for h in group)]
    got = run_json(cli, model, tok, sentence, extra)
    ids = got["token_ids"]
    P = len(ids) - 1 if position is None else position
    token, n_pieces = first_piece(pieces, scores, sentence, text)
    m = got["measure"]
    ok = isinstance(m, dict) and m["position"] == P and m["token_id"] == token and m["pieces"] == n_pieces
    if not ok:
        print("target %r at %d: measure %r, expected position %d token %d (%d pieces)" % (text, P, m, P, token, n_pieces))
    v = Verdict("target %r after position %d, %s" % (text, P, "group " + ",".join("%d.%d" % h for h in group) if group else "every head"))
    logits, means = forward(cfg, w, ids)
    base = target_logprob(logits, P, token)
    v.err(got["base_measure"], base, "base_measure")
    if group:
        ablated = forward(cfg, w, ids, list(group))[0]
        v.err(got["delta_measure"], target_logprob(ablated, P, token) - base, "delta_measure")
        v.wrong_err(got["delta_measure"], target_logprob(ablated, P, token + 1) - target_logprob(logits, P, token + 1))
    else:
        want = np.zeros((cfg["n_layers"], cfg["n_heads"]))
        wrong_token = np.zeros_like(want)
        for l in range(cfg["n_layers"]):
            for h in range(cfg["n_heads"]):
                ablated = forward(cfg, w, ids, (l, h))[0]
                want[l, h] = target_logprob(ablated, P, token) - base
                wrong_token[l, h] = target_logprob(ablated, P, token + 1) - target_logprob(logits, P, token + 1)
        v.err(got["delta_measure"], want, "delta_measure")
        v.wrong_err(got["delta_measure"], wrong_token)
    return v.report() and ok


def check_reference(cli, model, tok, cfg, w, pieces, scores, sentence, group):
    """--ablation mean --reference FILE: each head's mean context over every position of the file's
    usable lines (a blank line and a line that is not UTF-8 are skipped, and counted)."""
    lines = ["Tom had a big red ball.", "", "The sun was hot and the birds sang in the tall tree.",
             "One day, a little dog ran to the park to play with his friends."]
    tmp = tempfile.mkdtemp(prefix="hs_ablate_reference_")
    try:
        path = os.path.join(tmp, "reference.txt")
        with open(path, "wb") as f:
            f.write(("\n".join(lines) + "\n").encode() + b"\xff\xfe not text\n")
        extra = ["--ablation", "mean", "--reference", path]
        if group:
            extra += ["--knock-out", ",".join("%d.%d" % h for h in group)]
        got = run_json(cli, model, tok, sentence, extra)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    ids = got["token_ids"]
    texts = [ref.encode(t, pieces, scores) for t in lines if t.strip()]
    r = got.get("reference", {})
    ok = r.get("used") == len(texts) and r.get("skipped") == 2 and r.get("tokens") == sum(len(t) for t in texts)
    if not ok:
        print("reference counts %r; expected %d used, 2 skipped, %d tokens" % (r, len(texts), sum(len(t) for t in texts)))
    # Pooled: sum over every position of every line, divided by the number of positions.
    sums = None
    for t in texts:
        _, m = forward(cfg, w, t)
        s = [mm * len(t) for mm in m]
        sums = s if sums is None else [a + b for a, b in zip(sums, s)]
    means = [s / sum(len(t) for t in texts) for s in sums]
    logits, own = forward(cfg, w, ids)
    base = next_logprob(logits, ids)
    v = Verdict("reference mean over %d lines, %s" % (len(texts), "group " + ",".join("%d.%d" % h for h in group) if group else "every head"))
    if group:
        lp = next_logprob(forward(cfg, w, ids, list(group), "mean", means)[0], ids)
        v.err(got["delta_logprob"], lp - base, "delta_logprob")
        v.err(got["delta_loss"], -lp.mean() + base.mean(), "delta_loss")
        wlp = next_logprob(forward(cfg, w, ids, list(group), "mean", own)[0], ids)
        v.wrong_err(got["delta_logprob"], wlp - base)
    else:
        wrong = []
        for l in range(cfg["n_layers"]):
            for h in range(cfg["n_heads"]):
                lp = next_logprob(forward(cfg, w, ids, (l, h), "mean", means)[0], ids)
                v.err(got["delta_logprob"][l][h], lp - base, "layer %d head %d" % (l, h))
                v.err(got["delta_loss"][l][h], -lp.mean() + base.mean(), "layer %d head %d loss" % (l, h))
                wlp = next_logprob(forward(cfg, w, ids, (l, h), "mean", own)[0], ids)
                wrong.append(-wlp.mean() + base.mean())
        v.wrong_err(np.array(got["delta_loss"]).ravel(), np.array(wrong))
    return v.report() and ok


def gpt2_forward(w, cfg, ids, knock=None, mode="zero", means=None):
    """hf_reference.gpt2_forward with head `knock` knocked out (its share of the context before
    c_proj); returns logits and the context means."""
    d, H = cfg["n_embd"], cfg["n_head"]
    dh, T = d // H, len(ids)
    ln = lambda x, a, b: torch.nn.functional.layer_norm(x, (d,), a, b, cfg["layer_norm_epsilon"])
    gelu = lambda x: 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    x = w["wte.weight"][ids] + w["wpe.weight"][:T]
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
    ctx_means = []
    for l in range(cfg["n_layer"]):
        p = "h.%d." % l
        h = ln(x, w[p + "ln_1.weight"], w[p + "ln_1.bias"])
        qkv = h @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]
        q, k, v = (m.view(T, H, dh).transpose(0, 1) for m in qkv.split(d, dim=1))
        att = torch.softmax((q @ k.transpose(1, 2) / math.sqrt(dh)).masked_fill(mask, float("-inf")), -1)
        ctx = (att @ v).transpose(0, 1).reshape(T, d).clone()
        ctx_means.append(ctx.mean(0))
        if knock is not None and knock[0] == l:
            cols = slice(knock[1] * dh, (knock[1] + 1) * dh)
            ctx[:, cols] = 0.0 if mode == "zero" else means[l][cols]
        x = x + ctx @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        h = ln(x, w[p + "ln_2.weight"], w[p + "ln_2.bias"])
        x = x + gelu(h @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"]) @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
    x = ln(x, w["ln_f.weight"], w["ln_f.bias"])
    return x @ w["wte.weight"].T, ctx_means


def check_gpt2(cli, models, mode):
    """A tiny random GPT-2 folder (hf_reference.make_gpt2) with GPT-2's tokenizer."""
    files = hf.gpt2_files(models)
    if not files:
        print("SKIP gpt2: %s/gpt2-tokenizer not found" % models)
        return True
    tmp = tempfile.mkdtemp(prefix="hs_ablate_gpt2_")
    try:
        folder = os.path.join(tmp, "gpt2-tiny")
        w, cfg = hf.make_gpt2(folder, 50257, seed=11)
        shutil.copyfile(files[0], os.path.join(folder, "vocab.json"))
        shutil.copyfile(files[1], os.path.join(folder, "merges.txt"))
        w = {k: v.double() for k, v in w.items()}
        args = [cli, "ablate", "--model", folder, "--sentence", "The cat sat on the mat and the dog sat too.", "--json", "-", "--quiet"]
        if mode == "mean":
            args += ["--ablation", "mean"]
        got = json.loads(subprocess.run(args, check=True, stdout=subprocess.PIPE).stdout)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    ids = got["token_ids"]
    logits, means = gpt2_forward(w, cfg, ids)
    base = next_logprob(logits, ids)
    worst, where = abs(got["base_loss"] - float(-base.mean())), "base loss"
    for l in range(cfg["n_layer"]):
        for h in range(cfg["n_head"]):
            lp = next_logprob(gpt2_forward(w, cfg, ids, (l, h), mode, means)[0], ids)
            err = max(np.abs(np.array(got["delta_logprob"][l][h]) - (lp - base)).max(),
                      abs(got["delta_loss"][l][h] - float(-lp.mean() + base.mean())))
            if err > worst:
                worst, where = err, "layer %d head %d" % (l, h)
    ok = worst <= TOL
    print("gpt2 (tiny random) %s ablation: %d tokens, max error %.3g (%s)%s" % (mode, len(ids), worst, where, "" if ok else "  FAILED"))
    return ok


def main():
    cli, models = sys.argv[1], os.environ.get("HEADSCOPE_MODELS_DIR") or sys.argv[2]
    model = os.path.join(models, "stories260K", "stories260K.bin")
    tok = os.path.join(models, "stories260K", "tok512.bin")
    if not (os.path.isfile(model) and os.path.isfile(tok)):
        print("SKIP: %s not found (set HEADSCOPE_MODELS_DIR)" % model)
        return 77
    torch.set_grad_enabled(False)
    cfg, w = ref.load_checkpoint(model)
    sentence = "Once upon a time, there was a little girl named Lily. She loved to play outside in the park."
    ok = check(cli, model, tok, cfg, w, sentence, "zero")
    ok = check(cli, model, tok, cfg, w, sentence, "mean") and ok
    pieces, scores = ref.load_tokenizer(tok, cfg["vocab"])
    ok = check_group(cli, model, tok, cfg, w, sentence, "zero", [(1, 3), (2, 5), (4, 0)]) and ok
    ok = check_group(cli, model, tok, cfg, w, sentence, "mean", [(0, 7), (3, 2)]) and ok
    ok = check_target(cli, model, tok, cfg, w, pieces, scores, sentence, " She", None, None) and ok
    girl = ref.encode(sentence, pieces, scores).index(first_piece(pieces, scores, "Once upon a time, there was a little", " girl")[0])
    ok = check_target(cli, model, tok, cfg, w, pieces, scores, sentence, " girl", girl - 1, [(1, 3), (2, 5)]) and ok
    ok = check_reference(cli, model, tok, cfg, w, pieces, scores, sentence, None) and ok
    ok = check_reference(cli, model, tok, cfg, w, pieces, scores, sentence, [(1, 3), (2, 5), (4, 0)]) and ok
    ok = check_gpt2(cli, models, "zero") and ok
    ok = check_gpt2(cli, models, "mean") and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
