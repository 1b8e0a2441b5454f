#!/usr/bin/python3
"""Tiny random Hugging Face checkpoints in the real layouts, checked live against headscope-cli.

Writes folders (config.json, safetensors weights, tokenizer files) into OUT_DIR (the build tree):
  gpt2-tiny       model_type gpt2, real GPT-2 vocab.json + merges.txt, F32, no name prefix
  gpt2-f16        model_type gpt2, "transformer." prefix, F16 weights, tokenizer.json (ByteLevel)
  llama-sp        model_type llama, GQA 4 query / 2 kv heads, SentencePiece-style tokenizer.json
                  (Prepend + Replace normalizer, byte fallback, BOS template), untied lm_head, BF16
  llama-bytelevel model_type llama, 4 query heads / 1 kv head, head_dim 16 != hidden/heads,
                  attention biases, rope_theta 500000, tied embeddings, GPT-2 byte-level
                  tokenizer.json, F16 weights sharded into two files + model.safetensors.index.json
Each architecture has its own PyTorch implementation below (float64, from the stored rounded
weights), written from Hugging Face's modeling code: GPT-2 (LayerNorm, Conv1D, learned positions,
GELU tanh) and Llama (RMSNorm, rotate_half RoPE, repeat_kv GQA, SwiGLU). Token ids come from
independent Python tokenizers (gpt2_reference_tokenizer.py; a SentencePiece-style BPE below).
Every attention map must match to 1e-4 and greedy continuations must agree; for one sentence of
each family the maps JSON's head_roles (README "Head roles": every score of every head, induction
on the JSON's own probe ids run through the reference) and attention_rollout must match too.

usage: hf_reference.py HEADSCOPE_CLI OUT_DIR MODELS_DIR
"""
import json
import math
import os
import shutil
import struct
import subprocess
import sys

try:
    import numpy as np
    import torch
except ImportError as e:  # not Debian's python3-torch / python3-numpy
    print("SKIP: %s (install python3-torch and python3-numpy)" % e)
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpt2_reference_tokenizer as gpt2tok  # noqa: E402

TOL = 1e-4
DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


# ---------------------------------------------------------------- safetensors writer

def write_safetensors(path, tensors, dtype):
    """tensors: name -> float tensor; stored as dtype ("F32", "F16", "BF16"). Returns the rounded tensors."""
    header, blobs, offset, rounded = {}, [], 0, {}
    for name, t in tensors.items():
        t = t.detach().to(DTYPES[dtype]).contiguous()
        rounded[name] = t.to(torch.float64)
        raw = t.numpy().tobytes() if dtype == "F32" else t.view(torch.int16).numpy().tobytes()
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    header["__metadata__"] = {"format": "pt"}
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)
    return rounded


def save_weights(folder, tensors, dtype, shards=1):
    if shards == 1:
        return write_safetensors(os.path.join(folder, "model.safetensors"), tensors, dtype)
    names = list(tensors)
    rounded, weight_map = {}, {}
    for s in range(shards):
        part = names[s::shards]
        fname = "model-%05d-of-%05d.safetensors" % (s + 1, shards)
        rounded.update(write_safetensors(os.path.join(folder, fname), {n: tensors[n] for n in part}, dtype))
        weight_map.update({n: fname for n in part})
    json.dump({"metadata": {}, "weight_map": weight_map}, open(os.path.join(folder, "model.safetensors.index.json"), "w"))
    return rounded


# ---------------------------------------------------------------- GPT-2

def make_gpt2(folder, vocab, d=32, heads=4, layers=2, positions=64, dtype="F32", prefix="", seed=1):
    g = torch.Generator().manual_seed(seed)
    r = lambda *s, std=0.2: torch.randn(*s, generator=g) * std
    p = prefix
    t = {p + "wte.weight": r(vocab, d, std=0.5), p + "wpe.weight": r(positions, d, std=0.5)}
    for l in range(layers):
        h = "%sh.%d." % (p, l)
        t[h + "ln_1.weight"] = 1 + r(d, std=0.1)
        t[h + "ln_1.bias"] = r(d, std=0.1)
        t[h + "attn.c_attn.weight"] = r(d, 3 * d, std=0.4)
        t[h + "attn.c_attn.bias"] = r(3 * d, std=0.1)
        t[h + "attn.c_proj.weight"] = r(d, d)
        t[h + "attn.c_proj.bias"] = r(d, std=0.1)
        t[h + "ln_2.weight"] = 1 + r(d, std=0.1)
        t[h + "ln_2.bias"] = r(d, std=0.1)
        t[h + "mlp.c_fc.weight"] = r(d, 4 * d)
        t[h + "mlp.c_fc.bias"] = r(4 * d, std=0.1)
        t[h + "mlp.c_proj.weight"] = r(4 * d, d)
        t[h + "mlp.c_proj.bias"] = r(d, std=0.1)
    t[p + "ln_f.weight"] = 1 + r(d, std=0.1)
    t[p + "ln_f.bias"] = r(d, std=0.1)
    os.makedirs(folder, exist_ok=True)
    cfg = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "vocab_size": vocab, "n_embd": d,
           "n_head": heads, "n_layer": layers, "n_positions": positions, "n_ctx": positions, "n_inner": None,
           "activation_function": "gelu_new", "layer_norm_epsilon": 1e-5, "bos_token_id": 50256,
           "eos_token_id": 50256, "torch_dtype": "float32"}
    json.dump(cfg, open(os.path.join(folder, "config.json"), "w"), indent=1)
    w = save_weights(folder, t, dtype)
    return {k[len(p):]: v for k, v in w.items()}, cfg


def gpt2_forward(w, cfg, ids, edit=None):
    """Maps [L] of [H, T, T] and logits [T, vocab]; edit(layer, ctx) as llama2c_reference.forward's."""
    d, H = cfg["n_embd"], cfg["n_head"]
    dh, T = d // H, len(ids)
    ln = lambda x, a, b: torch.nn.functional.layer_norm(x, (d,), a, b, cfg["layer_norm_epsilon"])
    gelu = lambda x: 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    x = w["wte.weight"][ids] + w["wpe.weight"][:T]
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
    maps = []
    for l in range(cfg["n_layer"]):
        p = "h.%d." % l
        h = ln(x, w[p + "ln_1.weight"], w[p + "ln_1.bias"])
        qkv = h @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]  # Conv1D: x W + b
        q, k, v = (m.view(T, H, dh).transpose(0, 1) for m in qkv.split(d, dim=1))
        att = torch.softmax((q @ k.transpose(1, 2) / math.sqrt(dh)).masked_fill(mask, float("-inf")), -1)
        maps.append(att)
        ctx = (att @ v).transpose(0, 1).reshape(T, d)
        if edit:
            ctx = ctx.clone()
            edit(l, ctx)
        x = x + ctx @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        h = ln(x, w[p + "ln_2.weight"], w[p + "ln_2.bias"])
        x = x + gelu(h @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"]) @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
    x = ln(x, w["ln_f.weight"], w["ln_f.bias"])
    return maps, x @ w["wte.weight"].T


# ---------------------------------------------------------------- Llama

def make_llama(folder, vocab, d=32, heads=4, kv_heads=2, head_dim=None, layers=2, inter=48, positions=64,
               theta=10000.0, tied=False, bias=False, dtype="BF16", shards=1, seed=2):
    g = torch.Generator().manual_seed(seed)
    r = lambda *s, std=0.2: torch.randn(*s, generator=g) * std
    dh = head_dim or d // heads
    t = {"model.embed_tokens.weight": r(vocab, d, std=0.5)}
    for l in range(layers):
        p = "model.layers.%d." % l
        t[p + "input_layernorm.weight"] = 1 + r(d, std=0.1)
        t[p + "self_attn.q_proj.weight"] = r(heads * dh, d, std=0.4)
        t[p + "self_attn.k_proj.weight"] = r(kv_heads * dh, d, std=0.4)
        t[p + "self_attn.v_proj.weight"] = r(kv_heads * dh, d)
        t[p + "self_attn.o_proj.weight"] = r(d, heads * dh)
        if bias:
            t[p + "self_attn.q_proj.bias"] = r(heads * dh, std=0.2)
            t[p + "self_attn.k_proj.bias"] = r(kv_heads * dh, std=0.2)
            t[p + "self_attn.v_proj.bias"] = r(kv_heads * dh, std=0.1)
            t[p + "self_attn.o_proj.bias"] = r(d, std=0.1)
        t[p + "post_attention_layernorm.weight"] = 1 + r(d, std=0.1)
        t[p + "mlp.gate_proj.weight"] = r(inter, d)
        t[p + "mlp.up_proj.weight"] = r(inter, d)
        t[p + "mlp.down_proj.weight"] = r(d, inter)
    t["model.norm.weight"] = 1 + r(d, std=0.1)
    if not tied:
        t["lm_head.weight"] = r(vocab, d, std=0.5)
    os.makedirs(folder, exist_ok=True)
    cfg = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": vocab, "hidden_size": d,
           "intermediate_size": inter, "num_hidden_layers": layers, "num_attention_heads": heads,
           "num_key_value_heads": kv_heads, "max_position_embeddings": positions, "rms_norm_eps": 1e-6,
           "rope_theta": theta, "rope_scaling": None, "tie_word_embeddings": tied, "attention_bias": bias,
           "hidden_act": "silu", "bos_token_id": 1, "eos_token_id": 2, "torch_dtype": "bfloat16"}
    if head_dim:
        cfg["head_dim"] = head_dim
    json.dump(cfg, open(os.path.join(folder, "config.json"), "w"), indent=1)
    return save_weights(folder, t, dtype, shards), cfg


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def llama_forward(w, cfg, ids):
    d, H, G = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    dh, T, eps = cfg.get("head_dim") or d // H, len(ids), cfg["rms_norm_eps"]
    rms = lambda x, a: x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * a
    inv_freq = 1.0 / (cfg["rope_theta"] ** (torch.arange(0, dh, 2, dtype=torch.float64) / dh))
    freqs = torch.arange(T, dtype=torch.float64)[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos()[None], emb.sin()[None]  # [1, T, dh]
    lin = lambda x, name: x @ w[name + ".weight"].T + (w[name + ".bias"] if name + ".bias" in w else 0)
    x = w["model.embed_tokens.weight"][ids]
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
    maps = []
    for l in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % l
        h = rms(x, w[p + "input_layernorm.weight"])
        q = lin(h, p + "self_attn.q_proj").view(T, H, dh).transpose(0, 1)
        k = lin(h, p + "self_attn.k_proj").view(T, G, dh).transpose(0, 1)
        v = lin(h, p + "self_attn.v_proj").view(T, G, dh).transpose(0, 1)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k, v = k.repeat_interleave(H // G, 0), v.repeat_interleave(H // G, 0)  # repeat_kv
        att = torch.softmax((q @ k.transpose(1, 2) / math.sqrt(dh)).masked_fill(mask, float("-inf")), -1)
        maps.append(att)
        x = x + lin((att @ v).transpose(0, 1).reshape(T, H * dh), p + "self_attn.o_proj")
        h = rms(x, w[p + "post_attention_layernorm.weight"])
        x = x + (torch.nn.functional.silu(h @ w[p + "mlp.gate_proj.weight"].T) * (h @ w[p + "mlp.up_proj.weight"].T)) @ w[p + "mlp.down_proj.weight"].T
    x = rms(x, w["model.norm.weight"])
    head = w["lm_head.weight"] if "lm_head.weight" in w else w["model.embed_tokens.weight"]
    return maps, x @ head.T


# ---------------------------------------------------------------- tokenizers

SP_MERGES = [("▁", "t"), ("h", "e"), ("▁t", "he"), ("▁", "c"), ("a", "t"), ("▁c", "at"), ("▁", "s"),
             ("▁s", "at"), ("i", "n"), ("▁", "in"), ("▁", "h"), ("▁h", "at"), ("o", "n"), ("▁", "a")]


def sentencepiece_tokenizer(folder):
    """A SentencePiece-style tokenizer.json (as Llama 2 / TinyLlama ship) and its Python encoder."""
    pieces = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % b for b in range(256)]
    pieces += ["▁"] + [chr(c) for c in range(ord("a"), ord("z") + 1)] + list("TL.,!'")
    for a, b in SP_MERGES:
        if a + b not in pieces:
            pieces.append(a + b)
    vocab = {p: i for i, p in enumerate(pieces)}
    tj = {
        "version": "1.0",
        "added_tokens": [{"id": i, "content": c, "special": True, "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": False} for i, c in enumerate(["<unk>", "<s>", "</s>"])],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": "▁"},
            {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
        "pre_tokenizer": None,
        "post_processor": {"type": "TemplateProcessing",
                           "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
                           "pair": [], "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
        "decoder": None,
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                  "vocab": vocab, "merges": [a + " " + b for a, b in SP_MERGES]},
    }
    json.dump(tj, open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8"), ensure_ascii=False)
    ranks = {m: i for i, m in enumerate(SP_MERGES)}

    def encode(text):
        word = list("▁" + text.replace(" ", "▁")) if text else []
        while len(word) > 1:
            pairs = [(ranks.get((word[i], word[i + 1]), 1e9), i) for i in range(len(word) - 1)]
            rank, _ = min(pairs)
            if rank == 1e9:
                break
            a, b = SP_MERGES[int(rank)]
            new, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and word[i] == a and word[i + 1] == b:
                    new.append(a + b)
                    i += 2
                else:
                    new.append(word[i])
                    i += 1
            word = new
        ids = [1]
        for s in word:
            ids.extend([vocab[s]] if s in vocab else [vocab["<0x%02X>" % b] for b in s.encode("utf-8")])
        return ids

    return len(pieces), encode


def gpt2_files(models):
    d = os.path.join(models, "gpt2-tokenizer")
    enc, bpe = os.path.join(d, "encoder.json"), os.path.join(d, "vocab.bpe")
    return (enc, bpe) if os.path.isfile(enc) and os.path.isfile(bpe) else None


def bytelevel_tokenizer_json(folder, enc_path, bpe_path):
    """GPT-2's vocabulary as a tokenizer.json (ByteLevel pre-tokenizer, merges as [a, b] pairs)."""
    vocab = json.load(open(enc_path, encoding="utf-8"))
    merges = [l.split() for l in open(bpe_path, encoding="utf-8").read().split("\n")[1:] if l.strip()]
    tj = {"version": "1.0",
          "added_tokens": [{"id": 50256, "content": "<|endoftext|>", "special": True}],
          "normalizer": None,
          "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
          "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
          "decoder": {"type": "ByteLevel"},
          "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                    "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False, "vocab": vocab, "merges": merges}}
    json.dump(tj, open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8"), ensure_ascii=False)


# ---------------------------------------------------------------- comparison

def compare(cli, folder, forward, w, cfg, encode, sentence, generate=0, roles=False):
    name = "%s %r%s" % (os.path.basename(folder), sentence, " +%d generated" % generate if generate else "")
    # sentence None: no --sentence at all; the model starts from config.json's bos_token_id.
    cmd = [cli, "maps", "--model", folder, "--json", "-"] + (["--sentence", sentence] if sentence is not None else [])
    if generate:
        cmd += ["--generate", str(generate)]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        print("%s: headscope-cli failed: %s" % (name, proc.stderr.decode().strip()))
        return False
    got = json.loads(proc.stdout)
    ids = encode(sentence) if sentence is not None else [cfg["bos_token_id"]]
    if got["token_ids"][:len(ids)] != ids:
        print("%s: token ids differ\n  headscope %s\n  reference %s" % (name, got["token_ids"][:len(ids)], ids))
        return False
    for _ in range(generate):
        _, logits = forward(w, cfg, ids)
        top = torch.topk(logits[-1], 2).values
        if float(top[0] - top[1]) < 1e-4:
            print("%s: note: near tie in the reference's greedy step (margin %.2g)" % (name, float(top[0] - top[1])))
        ids.append(int(torch.argmax(logits[-1])))
    if got["token_ids"] != ids:
        print("%s: greedy continuation differs\n  headscope %s\n  reference %s" % (name, got["token_ids"], ids))
        return False
    maps, _ = forward(w, cfg, ids)
    worst, cell = 0.0, None
    for l, layer in enumerate(maps):
        for h in range(layer.shape[0]):
            err = np.abs(np.array(got["attention"][l][h], dtype=np.float64) - layer[h].numpy())
            i, j = np.unravel_index(np.argmax(err), err.shape)
            if err[i, j] >= worst:
                worst, cell = float(err[i, j]), (l, h, int(i), int(j))
    ok = worst <= TOL
    if not ok:
        print("%s: attention[layer %d][head %d][query %d][key %d] differs by %.3g (tolerance %g)" % ((name,) + cell + (worst, TOL)))
    print("%s: %d tokens, max map error %.3g over %d layers x %d heads%s" % (
        name, len(ids), worst, len(maps), maps[0].shape[0], "" if ok else "  FAILED"))
    if roles:
        ok &= compare_roles(name, got, maps, ids, forward, w, cfg)
    return ok


def reference_roles(maps, ids, bos_id, window=3, causal=True):
    """The role scores of README "Head roles", from the reference's maps: {role: [L][H]}. A causal
    row i sees keys 0..i (row 0 says nothing), a bidirectional row every key."""
    out = {r: [] for r in ("previous", "first", "bos", "self", "local", "duplicate", "broadness")}
    T = len(ids)
    later = range(1, T)  # rows with a previous token
    informative = [i for i in range(T) if (i + 1 if causal else T) >= 2]
    seen = lambda i: i + 1 if causal else T  # keys 0 .. seen(i) - 1
    mean = lambda xs: float(np.mean(xs)) if len(xs) else float("nan")
    bos = [j for j in range(T) if ids[j] == bos_id]
    dup = [i for i in range(T) if ids[i] in ids[:i]]
    for layer in maps:
        rows = {r: [] for r in out}
        for a in layer.numpy().astype(np.float64):
            rows["previous"].append(mean([a[i, i - 1] for i in later]))
            rows["first"].append(mean([a[i, 0] for i in later]))
            rows["bos"].append(mean([sum(a[i, j] for j in bos if j < seen(i)) for i in later]) if bos else float("nan"))
            rows["self"].append(mean([a[i, i] for i in informative]))
            rows["local"].append(mean([a[i, max(0, i - window + 1):min(seen(i), i + window)].sum() for i in informative]))
            rows["duplicate"].append(mean([sum(a[i, j] for j in range(i) if ids[j] == ids[i]) for i in dup]))
            ent = []
            for i in informative:
                p = a[i, :seen(i)]
                p = p[p > 0]
                ent.append(-(p * np.log(p)).sum() / math.log(seen(i)))
            rows["broadness"].append(mean(ent))
        for r in out:
            out[r].append(rows[r])
    return out


def compare_roles(name, got, maps, ids, forward, w, cfg, causal=True):
    """Every head's role scores in the maps JSON against the reference's, and the induction score
    against the reference run on the JSON's probe ids (README "Head roles")."""
    roles = got.get("head_roles")
    if not roles:
        print("%s: the maps JSON has no head_roles" % name)
        return False
    probe = roles["probe"]["ids"]
    n = roles["probe"]["length"]
    off = len(probe) - 2 * n  # 1: the probe starts with the model's BOS, which the bos score uses
    want = reference_roles(maps, ids, probe[0] if off == 1 else -1, roles["local_window"], causal)
    pmaps = forward(w, cfg, probe)
    pmaps = pmaps[0] if isinstance(pmaps, tuple) else pmaps  # decoders return (maps, logits)
    want["induction"] = [[float(np.mean([float(m[h, p, p - n + 1]) for p in range(off + n, off + 2 * n)]))
                          for h in range(m.shape[0])] for m in pmaps]
    worst, where = 0.0, None
    for role, table in want.items():
        for l, row in enumerate(table):
            for h, v in enumerate(row):
                g = roles["scores"][role][l][h]
                if math.isnan(v) != (g is None):
                    print("%s: head_roles %s L%d h%d is %s, the reference %s" % (name, role, l, h, g, v))
                    return False
                if g is not None and abs(g - v) >= worst:
                    worst, where = abs(g - v), (role, l, h, g, v)
    ok = worst <= TOL
    print("%s: head roles (8 scores x %d layers x %d heads) max error %.3g%s" % (
        name, len(maps), maps[0].shape[0], worst,
        "" if ok else "  FAILED at %s L%d h%d: headscope %.6g, reference %.6g" % where))
    # Attention rollout (Abnar & Zuidema 2020): R = prod over layers, last first, of 0.5 mean_h A + 0.5 I.
    T = len(ids)
    r = np.eye(T)
    for m in maps:
        r = (0.5 * m.numpy().astype(np.float64).mean(axis=0) + 0.5 * np.eye(T)) @ r
    err = np.abs(np.array(got["attention_rollout"], dtype=np.float64) - r)
    i, j = np.unravel_index(np.argmax(err), err.shape)
    print("%s: attention rollout max error %.3g%s" % (
        name, err[i, j], "" if err[i, j] <= TOL else "  FAILED at query %d key %d" % (i, j)))
    return ok and err[i, j] <= TOL


TRICKY = ["Hello world", " I'm sure they'll say it's 3.14159, not 42!", "café naïve Zürich 日本語 🐶🎉",
          "line one\nline two\n\n  indented\ttab  "]


def main():
    cli, out, models = sys.argv[1], sys.argv[2], os.environ.get("HEADSCOPE_MODELS_DIR") or sys.argv[3]
    torch.set_grad_enabled(False)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    ok = True

    # Llama with a SentencePiece-style tokenizer (needs no shared files).
    folder = os.path.join(out, "llama-sp")
    os.makedirs(folder)
    n, sp_encode = sentencepiece_tokenizer(folder)
    w, cfg = make_llama(folder, vocab=n + 5, heads=4, kv_heads=2, dtype="BF16")
    for s, g in [("the cat sat in the hat", 0), ("The Lat, the cat! Ünï 🐶 ok", 0), ("a", 6)]:
        ok &= compare(cli, folder, llama_forward, w, cfg, sp_encode, s, g, roles=s.startswith("the cat"))

    files = gpt2_files(models)
    if not files:
        print("SKIP gpt2 and byte-level llama cases: %s/gpt2-tokenizer not found (set HEADSCOPE_MODELS_DIR)" % models)
        return 0 if ok else 1
    enc = gpt2tok.Encoder(*files)

    folder = os.path.join(out, "gpt2-tiny")
    w, cfg = make_gpt2(folder, 50257)
    shutil.copyfile(files[0], os.path.join(folder, "vocab.json"))
    shutil.copyfile(files[1], os.path.join(folder, "merges.txt"))
    for s in TRICKY:
        ok &= compare(cli, folder, gpt2_forward, w, cfg, enc.encode, s)
    ok &= compare(cli, folder, gpt2_forward, w, cfg, enc.encode, "Once upon a time", 8, roles=True)
    ok &= compare(cli, folder, gpt2_forward, w, cfg, enc.encode, None, 3)

    folder = os.path.join(out, "gpt2-f16")
    w, cfg = make_gpt2(folder, 50257, d=48, heads=6, layers=3, dtype="F16", prefix="transformer.", seed=3)
    bytelevel_tokenizer_json(folder, *files)
    ok &= compare(cli, folder, gpt2_forward, w, cfg, enc.encode, TRICKY[1], 4)

    folder = os.path.join(out, "llama-bytelevel")
    os.makedirs(folder)
    bytelevel_tokenizer_json(folder, *files)
    w, cfg = make_llama(folder, vocab=50257, heads=4, kv_heads=1, head_dim=16, theta=500000.0, tied=True, bias=True,
                        dtype="F16", shards=2, seed=4)
    for s in TRICKY[1:3]:
        ok &= compare(cli, folder, llama_forward, w, cfg, enc.encode, s)
    ok &= compare(cli, folder, llama_forward, w, cfg, enc.encode, "Hello world", 5, roles=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
