#!/usr/bin/python3
"""Oracle for logit differences and activation patching (core/analysis/activation_patching.h,
`headscope-cli compare --target TEXT --versus TEXT --patch`).

1. The finding it answers: `compare` on "The keys to the cabinet are" / "is" printed only the
   log-probabilities of two different last sub-tokens ("A re -2.423   B is -0.717"); there was no
   logit difference of chosen continuations and no patching. The line is still there, and now
   --target/--versus add logit(target) - logit(versus) after each sentence.
2. stories260K: the continuations' first pieces (encode(sentence + text) past encode(sentence),
   with the reference's own tokenizer), LD after A and after B, and every head's patched LD and
   share against the PyTorch float64 llama2.c reference with the same hook (A's context, attention
   @ v before the output projection, put into B's run at the patched positions): 1e-4 on logit
   differences, 1e-3 on shares; an equal-length pair (every position) and a pair of different
   lengths (the alignment's same and replaced steps).
3. No gap (B = A): every share null, and a note says why.
4. A tiny random GPT-2 folder (the other decoder implementation) against its own reference.
5. Refused: --patch without --target, --target without --versus, equal first pieces, an encoder.

usage: patching_reference.py HEADSCOPE_CLI MODELS_DIR
exit 0: match; 1: mismatch (the head and the error are printed); 77: no torch or model (skip).
"""
import json
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

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "pretrained"))
import llama2c_reference as ref  # noqa: E402
import hf_reference as hf  # noqa: E402
import hf_encoder_reference as enc  # noqa: E402

LD_TOL = 1e-4
SHARE_TOL = 1e-3
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def compare(cli, args, fmt="--json"):
    p = subprocess.run([cli, "compare"] + args + [fmt, "-"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError("compare %s: %s" % (args, p.stderr.strip()))
    return json.loads(p.stdout) if fmt == "--json" else p.stdout


def with_contexts(forward):
    """forward(ids, edit) -> logits, wrapped to return (logits, every layer's contexts as computed)."""
    def run(ids, edit=None):
        contexts = []

        def record(layer, ctx):
            contexts.append(ctx.clone())
            if edit:
                edit(layer, ctx)
        return forward(ids, record), contexts
    return run


def patched_positions(got):
    """Equal lengths: every position; else the alignment's steps with a token on both sides."""
    na, nb = len(got["a"]["token_ids"]), len(got["b"]["token_ids"])
    if na == nb:
        return [[i, i] for i in range(na)]
    return [[s["a"], s["b"]] for s in got["alignment"] if s["a"] is not None and s["b"] is not None]


def check_patching(name, got, forward, n_layers, n_heads, d_head):
    """Every head's patched LD and share against forward(ids, edit) -> (logits, contexts)."""
    ia, ib = got["a"]["token_ids"], got["b"]["token_ids"]
    t, v = got["target_id"], got["versus_id"]
    ld = lambda logits: float(logits[-1, t] - logits[-1, v])
    logits_a, ctx_a = forward(ia)
    logits_b, _ = forward(ib)
    ld_a, ld_b = ld(logits_a), ld(logits_b)
    err = max(abs(got["logit_diff"]["a"] - ld_a), abs(got["logit_diff"]["b"] - ld_b))
    check(err <= LD_TOL, "%s: LD A %.5f (reference %.5f), LD B %.5f (reference %.5f), error %.2g" %
          (name, got["logit_diff"]["a"], ld_a, got["logit_diff"]["b"], ld_b, err))
    positions = patched_positions(got)
    check(got["patched_positions"] == positions, "%s: patched at %d positions (%s)" %
          (name, len(positions), "every one" if len(ia) == len(ib) else "the aligned ones"))
    worst_ld, worst_share, where, best = 0.0, 0.0, "", (0.0, None)
    for l in range(n_layers):
        for h in range(n_heads):
            cols = slice(h * d_head, (h + 1) * d_head)

            def edit(layer, ctx, l=l, cols=cols):
                if layer == l:
                    for pa, pb in positions:
                        ctx[pb, cols] = ctx_a[l][pa, cols]
            want_ld = ld(forward(ib, edit)[0])
            want_share = (want_ld - ld_b) / (ld_a - ld_b)
            e_ld = abs(got["patched_logit_diff"][l][h] - want_ld)
            e_share = abs(got["patching"][l][h] - want_share)
            if e_ld > worst_ld or e_share > worst_share:
                where = "L%d h%d: share %.5f (reference %.5f), LD %.5f (reference %.5f)" % (
                    l, h, got["patching"][l][h], want_share, got["patched_logit_diff"][l][h], want_ld)
            worst_ld, worst_share = max(worst_ld, e_ld), max(worst_share, e_share)
            if abs(want_share) > abs(best[0]):
                best = (want_share, (l, h))
    check(worst_ld <= LD_TOL and worst_share <= SHARE_TOL,
          "%s: %d heads' patched LD within %g (worst %.2g) and shares within %g (worst %.2g); the reference's largest share "
          "L%d h%d %.3f; worst at %s" % (name, n_layers * n_heads, LD_TOL, worst_ld, SHARE_TOL, worst_share, best[1][0], best[1][1],
                                          best[0], where))


def finding(cli, base):
    """The issue's own pair: the log p line is still shown; --target/--versus add the logit difference."""
    pair = ["--sentence", "The keys to the cabinet are", "--contrast", "The keys to the cabinet is"]
    report = subprocess.run([cli, "compare"] + base + pair, stdout=subprocess.PIPE, text=True, check=True).stdout
    check("A re -2.423   B is -0.717" in report, "the finding reproduces: log p of the last tokens 'A re -2.423   B is -0.717'")
    report = subprocess.run([cli, "compare"] + base + ["--sentence", "The keys to the cabinet", "--contrast", "The key to the cabinet",
                                                       "--target", " are", "--versus", " is"],
                            stdout=subprocess.PIPE, text=True, check=True).stdout
    line = [x for x in report.splitlines() if x.startswith("logit(")]
    check(len(line) == 1 and "after the last token: A " in line[0], "--target/--versus add the logit difference: %r" % line)
    check("is 2 pieces; its logit is that of its first piece" in report, "a continuation of several pieces is said so")


def stories(cli, models):
    model = os.path.join(models, "stories260K", "stories260K.bin")
    tok = os.path.join(models, "stories260K", "tok512.bin")
    if not (os.path.isfile(model) and os.path.isfile(tok)):
        print("SKIP: %s not found (set HEADSCOPE_MODELS_DIR)" % model)
        return False
    torch.set_grad_enabled(False)
    cfg, w = ref.load_checkpoint(model)
    pieces, scores = ref.load_tokenizer(tok, cfg["vocab"])
    base = ["--model", model, "--tokenizer", tok]
    finding(cli, base)
    forward = with_contexts(lambda ids, edit: ref.forward(cfg, w, ids, edit)[1])
    d_head = cfg["dim"] // cfg["n_heads"]
    cases = [("equal lengths", "Once upon a time, there was a boy. One day,", "Once upon a time, there was a girl. One day,", " he", " she"),
             ("different lengths", "Tom and Lily went to the park. Lily", "Tom went to the park. Lily", " said", " was")]
    for name, sa, sb, target, versus in cases:
        got = compare(cli, base + ["--sentence", sa, "--contrast", sb, "--target", target, "--versus", versus, "--patch"])
        a_ids = ref.encode(sa, pieces, scores)
        want_t = ref.encode(sa + target, pieces, scores)[len(a_ids)]
        want_v = ref.encode(sa + versus, pieces, scores)[len(a_ids)]
        check(got["a"]["token_ids"] == a_ids and (got["target_id"], got["versus_id"]) == (want_t, want_v),
              "%s: first pieces %d / %d (reference %d / %d)" % (name, got["target_id"], got["versus_id"], want_t, want_v))
        check_patching("stories260K " + name, got, forward, cfg["n_layers"], cfg["n_heads"], d_head)
    # No gap: B = A.
    same = "Lily saw a big dog. The dog"
    got = compare(cli, base + ["--sentence", same, "--contrast", same, "--target", " was", "--versus", " ran", "--patch"])
    check(all(s is None for layer in got["patching"] for s in layer) and any("no gap" in n for n in got["notes"]),
          "no gap (B = A): every share null, noted (%s)" % got["notes"])
    # The figure and the .npy of the shares.
    with tempfile.TemporaryDirectory() as tmp:
        args = base + ["--sentence", cases[0][1], "--contrast", cases[0][2], "--target", cases[0][3], "--versus", cases[0][4], "--patch"]
        for ext in ("png", "svg", "npy"):
            path = os.path.join(tmp, "patching." + ext)
            p = subprocess.run([cli, "compare"] + args + ["--out", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            check(p.returncode == 0 and os.path.getsize(path) > 0, "--patch --out patching.%s written %s" % (ext, p.stderr.strip()))
        got = compare(cli, args)
        grid = np.load(os.path.join(tmp, "patching.npy"))
        want = np.array(got["patching"], dtype=np.float32)
        check(grid.shape == (cfg["n_layers"], cfg["n_heads"]) and np.allclose(grid, want, atol=0, rtol=0),
              "--patch --out .npy holds the shares, %s" % (grid.shape,))
        svg = open(os.path.join(tmp, "patching.svg")).read()
        check("activation patching" in svg and "share of the gap restored" in svg, "the SVG figure names what it shows")
    return True


def gpt2(cli, models):
    files = hf.gpt2_files(models)
    if not files:
        print("SKIP gpt2: %s/gpt2-tokenizer not found" % models)
        return
    tmp = tempfile.mkdtemp(prefix="hs_patch_gpt2_")
    try:
        folder = os.path.join(tmp, "gpt2-tiny")
        w, cfg = hf.make_gpt2(folder, 50257, seed=11)
        shutil.copyfile(files[0], os.path.join(folder, "vocab.json"))
        shutil.copyfile(files[1], os.path.join(folder, "merges.txt"))
        w = {k: v.double() for k, v in w.items()}
        got = compare(cli, ["--model", folder, "--sentence", "The cat sat on the mat and", "--contrast", "The dog sat on the mat and",
                            "--target", " the", "--versus", " a", "--patch"])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    d_head = cfg["n_embd"] // cfg["n_head"]
    check_patching("gpt2 tiny", got, with_contexts(lambda ids, edit: hf.gpt2_forward(w, cfg, ids, edit)[1]), cfg["n_layer"], cfg["n_head"],
                   d_head)


def refused(cli, models):
    m = os.path.join(models, "stories260K")
    base = ["--model", os.path.join(m, "stories260K.bin"), "--tokenizer", os.path.join(m, "tok512.bin"),
            "--sentence", "Lily saw a dog", "--contrast", "Lily saw a cat"]
    tmp = tempfile.mkdtemp(prefix="hs_patch_bert_")
    try:
        bert = os.path.join(tmp, "bert")
        os.makedirs(bert)
        enc.wordpiece_tokenizer(bert)
        cfg = enc.bert_config("bert", len(enc.WORDS))
        enc.write_folder(bert, cfg, enc.bert_tensors(cfg, 21, "bert."))
        cases = [(base + ["--patch"], "--target"), (base + ["--target", " was"], "together"),
                 (base + ["--target", " was", "--versus", " was"], "same token"),
                 (["--model", bert, "--sentence", "the cat sat", "--contrast", "the dog sat", "--target", " on", "--versus", " at"],
                  "encoder"),
                 (["--sentence", "the cat sat", "--contrast", "the dog sat", "--target", " on", "--versus", " at"], "language model")]
        for args, says in cases:
            p = subprocess.run([cli, "compare"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            check(p.returncode != 0 and says in p.stderr and p.stderr.count("\n") == 1,
                  "refused %s: exit %d, %r" % (args[-4:], p.returncode, p.stderr.strip()))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    cli, models = sys.argv[1], os.environ.get("HEADSCOPE_MODELS_DIR") or sys.argv[2]
    have = stories(cli, models)
    gpt2(cli, models)
    if have:
        refused(cli, models)
    if failures:
        print("%d failed" % len(failures))
        return 1
    return 0 if have else 77


if __name__ == "__main__":
    sys.exit(main())
