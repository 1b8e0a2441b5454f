#!/usr/bin/python3
"""`headscope-cli export --what scores|q|k|v` (core/export/vectors_export.h) for every model family.

For each family's small test model (the synthetic layer, --weights, the teaching model, stories260K,
a tiny GPT-2, the Hugging Face decoder families, GGUF files, BERT and ModernBERT encoders):
  - shapes: q [layers, heads, T, d_head], k and v [layers, kv_heads, T, d_head], scores [layers,
    heads, T, T]; --layer L gives the same with a first axis of 1;
  - the maps: softmax of each row of the scores (masked cells -inf, weight 0) equals the exported
    attention to 1e-5, and every masked cell is -inf exactly where the map holds 0 by the mask;
  - q and k: every visible score equals the family's scale times q_h . k_g (query head h reads
    key/value head h / (heads / kv_heads)), soft-capped where the family caps, divided by the
    synthetic layer's temperature (relative 1e-5);
  - stories260K: q (after RoPE), k (after RoPE) and v of every layer equal the PyTorch float64
    llama2.c reference's to 1e-4.

usage: vectors_reference.py HEADSCOPE_CLI OUT_DIR MODELS_DIR
exit 0: every check holds; 1: a mismatch (the model, the array and the error are printed); 77: no numpy.
"""
import json
import math
import os
import shutil
import subprocess
import sys

try:
    import numpy as np
    import torch
except ImportError as e:
    print("SKIP: %s (install python3-torch and python3-numpy)" % e)
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "core", "pretrained"))
import llama2c_reference as llama2c  # noqa: E402
import hf_reference as hf  # noqa: E402
import hf_families_reference as fam  # noqa: E402
import hf_encoder_reference as enc  # noqa: E402
import gguf_families_reference as gguf  # noqa: E402

MAP_TOL = 1e-5
SCORE_TOL = 1e-5  # relative to max(1, |score|)
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def export(cli, out, args, what=None, layer=None):
    path = os.path.join(out, "%s.npy" % (what or "attention"))
    cmd = [cli, "export"] + args + ["--out", path] + (["--what", what] if what else []) + (["--layer", str(layer)] if layer is not None else [])
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(cmd[1:]), p.stderr.strip()))
    return np.load(path).astype(np.float64)


def softmax_rows(s):
    finite = np.isfinite(s)
    m = np.where(finite, s, -np.inf).max(-1, keepdims=True)
    e = np.where(finite, np.exp(np.where(finite, s, 0) - m), 0.0)
    return e / e.sum(-1, keepdims=True)


def check_model(cli, out, name, args, scale=None, softcap=None, temperature=1.0):
    """The four arrays of one model against its maps and each other (scale None: 1/sqrt(d_head));
    the maps JSON's config must state the same scale and soft-cap. Returns the four arrays."""
    config = json.loads(subprocess.run([cli, "maps"] + args + ["--json", "-"], stdout=subprocess.PIPE, check=True).stdout)["config"]
    a = export(cli, out, args)
    s, q, k, v = (export(cli, out, args, w) for w in ("scores", "q", "k", "v"))
    L, H, T, _ = a.shape
    G, dh = k.shape[1], q.shape[3]
    check(s.shape == (L, H, T, T) and q.shape == (L, H, T, dh) and k.shape == v.shape == (L, G, T, dh) and H % G == 0,
          "%s: shapes scores %s, q %s, k %s, v %s" % (name, s.shape, q.shape, k.shape, v.shape))
    err = np.abs(softmax_rows(s) - a).max()
    masked = ~np.isfinite(s)
    check(err <= MAP_TOL and np.all(s[masked] == -np.inf) and np.all(a[masked] == 0) and np.isfinite(s).any(-1).all(),
          "%s: softmax of the scores is the map within %g (worst %.2g); %d masked cells, all -inf with weight 0" %
          (name, MAP_TOL, err, int(masked.sum())))
    scale = scale if scale is not None else dh ** -0.5
    check(abs(config["score_scale"] - scale) <= 1e-6 * scale and config["softcap"] == (softcap or 0) and
          config["temperature"] == temperature, "%s: the maps JSON states score_scale %.6g, softcap %g, temperature %g" %
          (name, config["score_scale"], config["softcap"], config["temperature"]))
    kk = np.repeat(k, H // G, axis=1)
    raw = scale * (q @ kk.transpose(0, 1, 3, 2))
    if softcap:
        raw = softcap * np.tanh(raw / softcap)
    raw /= temperature
    visible = ~masked
    rel = (np.abs(raw[visible] - s[visible]) / np.maximum(1.0, np.abs(s[visible]))).max()
    check(rel <= SCORE_TOL, "%s: every visible score is the scaled q_h . k_g%s within %g (worst %.2g)" %
          (name, " soft-capped" if softcap else "", SCORE_TOL, rel))
    return s, q, k, v


def check_layer_flag(cli, out, name, args, full):
    s, q, k, v = full
    layer = s.shape[0] - 1
    for what, arr in (("scores", s), ("q", q), ("k", k), ("v", v)):
        one = export(cli, out, args, what, layer)
        check(one.shape == (1,) + arr.shape[1:] and np.array_equal(one[0], arr[layer]), "%s: --what %s --layer %d is that layer, %s" %
              (name, what, layer, one.shape))


def stories(cli, out, models):
    model = os.path.join(models, "stories260K", "stories260K.bin")
    tok = os.path.join(models, "stories260K", "tok512.bin")
    if not os.path.isfile(model):
        print("SKIP stories260K: %s not found" % model)
        return
    args = ["--model", model, "--tokenizer", tok, "--sentence", "Lily saw a big dog. The dog was happy."]
    s, q, k, v = full = check_model(cli, out, "stories260K", args)
    check_layer_flag(cli, out, "stories260K", args, full)
    cfg, w = llama2c.load_checkpoint(model)
    pieces, scores = llama2c.load_tokenizer(tok, cfg["vocab"])
    ids = llama2c.encode(args[-1], pieces, scores)
    T, d, H, G = len(ids), cfg["dim"], cfg["n_heads"], cfg["n_kv"]
    hs = d // H
    x = w["emb"][ids]
    worst = 0.0
    for l in range(cfg["n_layers"]):  # the reference's pass, keeping q, k (after RoPE) and v
        h = llama2c.rmsnorm(x, w["rms_att"][l])
        rq = llama2c.rope(h @ w["wq"][l].T, H, hs).view(T, H, hs).transpose(0, 1)
        rk = llama2c.rope(h @ w["wk"][l].T, G, hs).view(T, G, hs).transpose(0, 1)
        rv = (h @ w["wv"][l].T).view(T, G, hs).transpose(0, 1)
        for got, want in ((q[l], rq), (k[l], rk), (v[l], rv)):
            worst = max(worst, float(np.abs(got - want.numpy()).max()))
        att = torch.softmax((rq @ rk.repeat_interleave(H // G, 0).transpose(1, 2) / hs ** 0.5).masked_fill(
            torch.triu(torch.ones(T, T, dtype=torch.bool), 1), float("-inf")), -1)
        x = x + (att @ rv.repeat_interleave(H // G, 0)).transpose(0, 1).reshape(T, d) @ w["wo"][l].T
        h = llama2c.rmsnorm(x, w["rms_ffn"][l])
        x = x + (torch.nn.functional.silu(h @ w["w1"][l].T) * (h @ w["w3"][l].T)) @ w["w2"][l].T
    check(worst <= 1e-4, "stories260K: q, k, v of every layer equal the PyTorch reference's within 1e-4 (worst %.2g)" % worst)


def synthetic(cli, out):
    check_model(cli, out, "synthetic causal GQA window", ["--sentence", "the cat sat on the mat and the dog", "--d-model", "24",
                                                           "--heads", "6", "--kv-heads", "2", "--causal", "--window", "3"])
    check_model(cli, out, "synthetic temperature 2", ["--sentence", "the cat sat on the mat", "--temperature", "2"], temperature=2.0)
    d, H = 16, 4
    g = torch.Generator().manual_seed(5)
    tensors = {"in_proj_weight": torch.randn(3 * d, d, generator=g) * 0.4, "in_proj_bias": torch.randn(3 * d, generator=g) * 0.3,
               "out_proj.weight": torch.randn(d, d, generator=g), "out_proj.bias": torch.randn(d, generator=g)}
    weights = os.path.join(out, "mha.safetensors")
    hf.write_safetensors(weights, tensors, "F32")
    x = os.path.join(out, "x.npy")
    np.save(x, (torch.randn(7, d, generator=g)).numpy().astype(np.float32))
    check_model(cli, out, "--weights", ["--weights", weights, "--input", x, "--heads", str(H)])
    check_model(cli, out, "teaching", ["--model", "teaching", "--sentence", "the cat sat on the mat . the cat"], scale=1.0)


def same_order(family, folder, file):
    """A GGUF file's layer 0 q, k, v against its Hugging Face folder's (later layers follow what each
    format keeps: GGUF has no query_pre_attn_scalar, for one): the same numbers, except that the
    llama architecture's converter permuted q and k rows so that RoPE turns adjacent pairs: there
    dimensions 2i and 2i + 1 of a head hold the folder's i and i + d_head / 2."""
    permuted = gguf.ARCH[family] == "llama"
    worst = 0.0
    for a, b, name in zip(folder[1:], file[1:], "qkv"):
        dh = a.shape[-1]
        order = np.arange(dh).reshape(2, dh // 2).T.reshape(-1) if permuted and name != "v" else np.arange(dh)
        worst = max(worst, float(np.abs(a[0][..., order] - b[0]).max()))
    check(worst <= 1e-4, "gguf %s: layer 0's q, k, v are the folder's%s (worst %.2g)" %
          (family, ", q and k in adjacent-pair order" if permuted else "", worst))


def decoders(cli, out, models):
    """The Hugging Face decoder families (tiny random folders) and their GGUF files."""
    def folder(name):
        f = os.path.join(out, name)
        os.makedirs(f)
        return f
    S = fam.SENTENCE
    cases = [("mistral", "metaspace", dict(num_key_value_heads=1, head_dim=12, sliding_window=4), {}),
             ("phi3", "llama", dict(num_key_value_heads=2, partial_rotary_factor=0.5, sliding_window=6, max_position_embeddings=32,
                                    original_max_position_embeddings=8, hidden_act="silu",
                                    rope_scaling={"type": "longrope", "short_factor": [1.0, 1.3], "long_factor": [3.0, 7.0]}), {}),
             ("gemma", "gemma", dict(num_attention_heads=2, num_key_value_heads=1, head_dim=256, tie_word_embeddings=True, bos_token_id=2,
                                     eos_token_id=1, hidden_activation="gelu_pytorch_tanh"), {}),
             ("gemma2", "gemma", dict(head_dim=16, tie_word_embeddings=True, bos_token_id=2, eos_token_id=1,
                                      hidden_activation="gelu_pytorch_tanh", query_pre_attn_scalar=24, sliding_window=4,
                                      attn_logit_softcapping=1.5, final_logit_softcapping=4.0), dict(scale=24 ** -0.5, softcap=1.5)),
             ("gemma3_text", "gemma", dict(num_hidden_layers=4, head_dim=16, tie_word_embeddings=True, bos_token_id=2, eos_token_id=1,
                                           hidden_activation="gelu_pytorch_tanh", query_pre_attn_scalar=16, sliding_window=4,
                                           sliding_window_pattern=3, rope_theta=1000000.0, rope_local_base_freq=10000.0,
                                           rope_scaling={"rope_type": "linear", "factor": 8.0}), dict(scale=0.25)),
             ("llama", "llama", dict(hidden_act="silu", rope_scaling={"rope_type": "linear", "factor": 4.0}), {})]
    for family, style, extra, expect in cases:
        f = folder(family)
        n, _ = fam.sentencepiece_tokenizer(f, style)
        cfg = fam.config(family, n + (2 if style == "gemma" else 3), **extra)
        weights = fam.make_folder(f, cfg, 31, "F32")
        folder_arrays = check_model(cli, out, "hf " + family, ["--model", f, "--sentence", S], **expect)
        path = os.path.join(out, family + ".gguf")
        gguf.convert({k: t.double() for k, t in weights.items()}, cfg, "F32", lambda w, f=f: gguf.add_spm_tokenizer(w, f), path)
        if family == "gemma2":  # GGUF keeps no query_pre_attn_scalar: llama.cpp scales by 1/sqrt(head_dim)
            expect = dict(expect, scale=None)
        file_arrays = check_model(cli, out, "gguf " + family, ["--model", path, "--sentence", S], **expect)
        same_order(family, folder_arrays, file_arrays)
    files = hf.gpt2_files(models)
    if not files:
        print("SKIP gpt2, qwen2, qwen3: %s/gpt2-tokenizer not found" % models)
        return
    f = folder("gpt2")
    hf.make_gpt2(f, 50257, seed=3)
    shutil.copyfile(files[0], os.path.join(f, "vocab.json"))
    shutil.copyfile(files[1], os.path.join(f, "merges.txt"))
    check_model(cli, out, "hf gpt2", ["--model", f, "--sentence", fam.BYTE_SENTENCE])
    for family, extra in (("qwen2", dict(hidden_size=48, num_attention_heads=6, num_key_value_heads=2, tie_word_embeddings=True,
                                          use_sliding_window=True, sliding_window=5, max_window_layers=1)),
                          ("qwen3", dict(head_dim=16, attention_bias=False))):
        f = folder(family)
        fam.bytelevel_tokenizer(f, files, fam.QWEN2_SPLIT)
        fam.make_folder(f, fam.config(family, 50257, hidden_act="silu", **extra), 32, "F32")
        check_model(cli, out, "hf " + family, ["--model", f, "--sentence", fam.BYTE_SENTENCE])


def encoders(cli, out, models):
    f = os.path.join(out, "bert")
    os.makedirs(f)
    enc.wordpiece_tokenizer(f)
    cfg = enc.bert_config("bert", len(enc.WORDS))
    enc.write_folder(f, cfg, enc.bert_tensors(cfg, 21, "bert."))
    check_model(cli, out, "hf bert (pair)", ["--model", f, "--sentence", "the cat sat on the mat", "--sentence-b", "a dog barked"])
    files = hf.gpt2_files(models)
    if not files:
        return
    f = os.path.join(out, "modernbert")
    os.makedirs(f)
    n, cls, sep, _ = enc.modernbert_tokenizer(f, files)
    cfg = {"model_type": "modernbert", "vocab_size": n, "hidden_size": 32, "intermediate_size": 40, "num_hidden_layers": 3,
           "num_attention_heads": 4, "hidden_activation": "gelu", "max_position_embeddings": 64, "norm_eps": 1e-5,
           "norm_bias": False, "attention_bias": False, "mlp_bias": False, "global_attn_every_n_layers": 2,
           "local_attention": 6, "global_rope_theta": 160000.0, "local_rope_theta": 10.0, "pad_token_id": n - 2,
           "cls_token_id": cls, "sep_token_id": sep, "torch_dtype": "float32"}
    enc.write_folder(f, cfg, enc.modernbert_tensors(cfg, 25, "model."))
    check_model(cli, out, "hf modernbert (local window)", ["--model", f, "--sentence", "The cat sat on the mat, and it was late."])


def refused(cli, out):
    for args, says in ((["--sentence", "a b", "--what", "x", "--out", os.path.join(out, "x.npy")], "scores, q, k or v"),
                       (["--sentence", "a b", "--what", "q", "--out", os.path.join(out, "x.png")], ".npy"),
                       (["--sentence", "a b", "--what", "q", "--head", "1", "--out", os.path.join(out, "x.npy")], "--head"),
                       (["--sentence", "a b", "--what", "k", "--layer", "3", "--out", os.path.join(out, "x.npy")], "layer 3")):
        p = subprocess.run([cli, "export"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        check(p.returncode != 0 and says in p.stderr and p.stderr.count("\n") == 1, "refused %s: %r" % (args[2:6], p.stderr.strip()))


def main():
    cli, out, models = sys.argv[1], sys.argv[2], os.environ.get("HEADSCOPE_MODELS_DIR") or sys.argv[3]
    torch.set_grad_enabled(False)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    synthetic(cli, out)
    stories(cli, out, models)
    decoders(cli, out, models)
    encoders(cli, out, models)
    refused(cli, out)
    if failures:
        print("%d failed" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
