#!/usr/bin/python3
"""Tiny random Hugging Face folders of today's decoder families, checked live against headscope-cli.

One folder per family (written into OUT_DIR, the build tree), with the family's real tensor names
and shapes and config.json keys, random weights, small sizes but the family's structure:
  llama-llama3   Llama 3.2 style: rope_scaling llama3, GQA 4:1, head_dim 16 != hidden/heads, tied,
                 byte-level BPE with a Llama 3 Split regex and a BOS template
  llama-linear / llama-dynamic / llama-yarn: the other rope_scaling types (SentencePiece-style BPE)
  qwen2          q/k/v biases (no o bias), GQA 3:1, use_sliding_window with max_window_layers,
                 tied, byte-level BPE with Qwen 2's Split regex, no BOS
  qwen3          per-head q_norm/k_norm before RoPE, head_dim 16 with hidden 32, rope_scaling yarn
  mistral        sliding_window 4 on every layer, explicit head_dim 12, MQA, Metaspace tokenizer
  phi3           fused qkv_proj and gate_up_proj, partial_rotary_factor 0.5, sliding_window,
                 longrope whose long factors take over past 8 positions (also while generating)
  gemma          (1 + w) RMSNorm, GeGLU (GELU tanh), embeddings times sqrt(hidden) in bfloat16,
                 head_dim 256, MQA, tied, Gemma's tokenizer (no dummy prefix, <bos> = 2)
  gemma2         attention soft-cap small enough to bite, final logit soft-cap, even layers local
                 (window 4), query_pre_attn_scalar != head_dim, sandwich norms
  gemma3         q/k (1 + w) norms, sliding_window_pattern 3, rope_local_base_freq for local layers,
                 linear rope_scaling on global ones, float16 embedding scale
Each family has its own PyTorch float64 forward below, written from transformers' modeling_*.py and
modeling_rope_utils.py (not from headscope). Every attention map must match to 1e-4 and greedy
continuations must agree; each family's distinguishing option is also shown to change the maps
(the reference without it differs from headscope by more than 1e-3), so a loader that ignored it
would fail.

usage: hf_families_reference.py HEADSCOPE_CLI OUT_DIR MODELS_DIR
"""
import copy
import json
import math
import os
import shutil
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
from hf_reference import save_weights, gpt2_files  # noqa: E402

TOL = 1e-4
MATTERS = 1e-3
NEG_INF = float("-inf")


# ---------------------------------------------------------------- shared maths (transformers' building blocks)

def rms_norm(x, w, eps):
    """LlamaRMSNorm / Qwen2RMSNorm / Phi3RMSNorm: x / sqrt(mean(x^2) + eps) * w."""
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * w


def gemma_rms_norm(x, w, eps):
    """GemmaRMSNorm: x / sqrt(mean(x^2) + eps) * (1 + w)."""
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * (1.0 + w)


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def rope_cos_sin(inv_freq, T, attention_factor=1.0):
    """cos, sin [T, 2 * len(inv_freq)] as the rotary embedding modules return them."""
    freqs = torch.arange(T, dtype=torch.float64)[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos() * attention_factor, emb.sin() * attention_factor


def apply_rope(x, cos, sin):
    """x [heads, T, dh]; rotates the first cos.shape[-1] dims (Phi-3's partial rotary), passes the rest."""
    rd = cos.shape[-1]
    xr, xp = x[..., :rd], x[..., rd:]
    return torch.cat((xr * cos + rotate_half(xr) * sin, xp), dim=-1)


def causal_mask(T, sliding_window=None):
    """True where masked: masking_utils' causal_mask_function (kv <= q) and sliding_window_overlay (kv > q - W)."""
    q = torch.arange(T)[:, None]
    kv = torch.arange(T)[None, :]
    visible = kv <= q
    if sliding_window:
        visible &= kv > q - sliding_window
    return ~visible


def eager_attention(q, k, v, mask, scaling, softcap=None):
    """eager_attention_forward: repeat_kv, q k^T * scaling, soft-cap, mask, softmax. q [H, T, dh], k and v [G, T, dh]."""
    n_rep = q.shape[0] // k.shape[0]
    k, v = k.repeat_interleave(n_rep, 0), v.repeat_interleave(n_rep, 0)
    s = q @ k.transpose(1, 2) * scaling
    if softcap:
        s = softcap * torch.tanh(s / softcap)
    a = torch.softmax(s.masked_fill(mask, NEG_INF), -1)
    return a, a @ v


def heads(x, n, dh):
    T = x.shape[0]
    return x.view(T, n, dh).transpose(0, 1)


def merge(x):
    H, T, dh = x.shape
    return x.transpose(0, 1).reshape(T, H * dh)


def linear(w, name, x):
    return x @ w[name + ".weight"].T + (w[name + ".bias"] if name + ".bias" in w else 0)


def gelu_tanh(x):
    return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


# ---------------------------------------------------------------- RoPE (modeling_rope_utils.py)

def rope_parameters(cfg, rope_scaling, theta, dim, seq_len):
    """(inv_freq, attention_factor) of one rope_scaling dict for a sequence of seq_len positions."""
    def base(b):
        return 1.0 / (b ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim))
    rs = rope_scaling or {}
    kind = rs.get("rope_type", rs.get("type", "default"))
    max_pos = cfg["max_position_embeddings"]
    if kind == "default":
        return base(theta), 1.0
    if kind == "linear":
        return base(theta) / rs["factor"], 1.0
    if kind == "dynamic":
        # _compute_dynamic_ntk_parameters: the base grows once seq_len exceeds max_position_embeddings.
        L = max(seq_len, max_pos)
        f = rs["factor"]
        return base(theta * ((f * L / max_pos) - (f - 1)) ** (dim / (dim - 2))), 1.0
    if kind == "llama3":
        inv = base(theta)
        f, lo, hi, old = rs["factor"], rs["low_freq_factor"], rs["high_freq_factor"], rs["original_max_position_embeddings"]
        low_wavelen, high_wavelen = old / lo, old / hi
        wavelen = 2 * math.pi / inv
        scaled = torch.where(wavelen > low_wavelen, inv / f, inv)
        smooth = (old / wavelen - lo) / (hi - lo)
        smoothed = (1 - smooth) * scaled / f + smooth * scaled
        medium = ~(wavelen < high_wavelen) & ~(wavelen > low_wavelen)
        return torch.where(medium, smoothed, scaled), 1.0
    if kind == "yarn":
        f = rs["factor"]
        orig = rs.get("original_max_position_embeddings") or max_pos
        af = rs.get("attention_factor") or (0.1 * math.log(f) + 1.0 if f > 1 else 1.0)
        beta_fast, beta_slow = rs.get("beta_fast") or 32, rs.get("beta_slow") or 1

        def correction_dim(rot):
            return (dim * math.log(orig / (rot * 2 * math.pi))) / (2 * math.log(theta))
        lo = max(math.floor(correction_dim(beta_fast)), 0)
        hi = min(math.ceil(correction_dim(beta_slow)), dim - 1)
        if lo == hi:
            hi += 0.001
        ramp = torch.clamp((torch.arange(dim // 2, dtype=torch.float64) - lo) / (hi - lo), 0, 1)
        extrapolation = base(theta)
        interpolation = extrapolation / f
        e = 1 - ramp
        return interpolation * (1 - e) + extrapolation * e, af
    if kind in ("longrope", "su"):
        orig = rs.get("original_max_position_embeddings") or cfg["original_max_position_embeddings"]
        f = rs.get("factor") or max_pos / orig
        af = rs.get("attention_factor") or (1.0 if f <= 1 else math.sqrt(1 + math.log(f) / math.log(orig)))
        ext = torch.tensor(rs["long_factor"] if seq_len > orig else rs["short_factor"], dtype=torch.float64)
        return 1.0 / (ext * theta ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim)), af
    raise ValueError(kind)


def rope_for(cfg, T, rope_scaling="config", theta=None, dim=None):
    rs = cfg.get("rope_scaling") if rope_scaling == "config" else rope_scaling
    dh = cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]
    inv, af = rope_parameters(cfg, rs, theta or cfg.get("rope_theta", 10000.0), dim or dh, T)
    return rope_cos_sin(inv, T, af)


# ---------------------------------------------------------------- per-family forwards

def llama_forward(w, cfg, ids):
    """modeling_llama.py: RMSNorm, rotate_half RoPE with rope_scaling, repeat_kv GQA, SwiGLU."""
    d, H, G = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    dh, T, eps = cfg.get("head_dim") or d // H, len(ids), cfg["rms_norm_eps"]
    cos, sin = rope_for(cfg, T)
    x = w["model.embed_tokens.weight"][ids]
    mask, maps = causal_mask(T), []
    for l in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % l
        h = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = apply_rope(heads(linear(w, p + "self_attn.q_proj", h), H, dh), cos, sin)
        k = apply_rope(heads(linear(w, p + "self_attn.k_proj", h), G, dh), cos, sin)
        v = heads(linear(w, p + "self_attn.v_proj", h), G, dh)
        a, ctx = eager_attention(q, k, v, mask, dh ** -0.5)
        maps.append(a)
        x = x + linear(w, p + "self_attn.o_proj", merge(ctx))
        h = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        x = x + linear(w, p + "mlp.down_proj", torch.nn.functional.silu(linear(w, p + "mlp.gate_proj", h)) * linear(w, p + "mlp.up_proj", h))
    x = rms_norm(x, w["model.norm.weight"], eps)
    head = w["model.embed_tokens.weight"] if cfg.get("tie_word_embeddings") else w["lm_head.weight"]
    return maps, x @ head.T


def qwen_layer_types(cfg):
    """Qwen2Config / Qwen3Config: sliding layers are i >= max_window_layers when use_sliding_window."""
    window = cfg["sliding_window"] if cfg.get("use_sliding_window") else None
    return [("sliding_attention" if window is not None and i >= cfg["max_window_layers"] else "full_attention")
            for i in range(cfg["num_hidden_layers"])], window


def qwen2_forward(w, cfg, ids):
    """modeling_qwen2.py: Llama's layer with q/k/v biases (none on o), per-layer sliding windows."""
    d, H, G = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    dh, T, eps = d // H, len(ids), cfg["rms_norm_eps"]
    cos, sin = rope_for(cfg, T)
    types, window = qwen_layer_types(cfg)
    x = w["model.embed_tokens.weight"][ids]
    maps = []
    for l in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % l
        mask = causal_mask(T, window if types[l] == "sliding_attention" else None)
        h = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = apply_rope(heads(linear(w, p + "self_attn.q_proj", h), H, dh), cos, sin)
        k = apply_rope(heads(linear(w, p + "self_attn.k_proj", h), G, dh), cos, sin)
        v = heads(linear(w, p + "self_attn.v_proj", h), G, dh)
        a, ctx = eager_attention(q, k, v, mask, dh ** -0.5)
        maps.append(a)
        x = x + merge(ctx) @ w[p + "self_attn.o_proj.weight"].T
        h = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        x = x + linear(w, p + "mlp.down_proj", torch.nn.functional.silu(linear(w, p + "mlp.gate_proj", h)) * linear(w, p + "mlp.up_proj", h))
    x = rms_norm(x, w["model.norm.weight"], eps)
    head = w["model.embed_tokens.weight"] if cfg.get("tie_word_embeddings") else w["lm_head.weight"]
    return maps, x @ head.T


def qwen3_forward(w, cfg, ids):
    """modeling_qwen3.py: q_norm / k_norm (RMSNorm over head_dim) on each head before RoPE."""
    d, H, G, dh = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
    T, eps = len(ids), cfg["rms_norm_eps"]
    cos, sin = rope_for(cfg, T)
    types, window = qwen_layer_types(cfg)
    x = w["model.embed_tokens.weight"][ids]
    maps = []
    for l in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % l
        mask = causal_mask(T, window if types[l] == "sliding_attention" else None)
        h = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = rms_norm(heads(linear(w, p + "self_attn.q_proj", h), H, dh), w[p + "self_attn.q_norm.weight"], eps)
        k = rms_norm(heads(linear(w, p + "self_attn.k_proj", h), G, dh), w[p + "self_attn.k_norm.weight"], eps)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        v = heads(linear(w, p + "self_attn.v_proj", h), G, dh)
        a, ctx = eager_attention(q, k, v, mask, dh ** -0.5)
        maps.append(a)
        x = x + linear(w, p + "self_attn.o_proj", merge(ctx))
        h = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        x = x + linear(w, p + "mlp.down_proj", torch.nn.functional.silu(linear(w, p + "mlp.gate_proj", h)) * linear(w, p + "mlp.up_proj", h))
    x = rms_norm(x, w["model.norm.weight"], eps)
    head = w["model.embed_tokens.weight"] if cfg.get("tie_word_embeddings") else w["lm_head.weight"]
    return maps, x @ head.T


def mistral_forward(w, cfg, ids):
    """modeling_mistral.py: Llama's layer, every layer masked to the sliding window."""
    d, H, G = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    dh, T, eps = cfg.get("head_dim") or d // H, len(ids), cfg["rms_norm_eps"]
    cos, sin = rope_for(cfg, T)
    mask = causal_mask(T, cfg.get("sliding_window"))
    x = w["model.embed_tokens.weight"][ids]
    maps = []
    for l in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % l
        h = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = apply_rope(heads(h @ w[p + "self_attn.q_proj.weight"].T, H, dh), cos, sin)
        k = apply_rope(heads(h @ w[p + "self_attn.k_proj.weight"].T, G, dh), cos, sin)
        v = heads(h @ w[p + "self_attn.v_proj.weight"].T, G, dh)
        a, ctx = eager_attention(q, k, v, mask, dh ** -0.5)
        maps.append(a)
        x = x + merge(ctx) @ w[p + "self_attn.o_proj.weight"].T
        h = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        x = x + (torch.nn.functional.silu(h @ w[p + "mlp.gate_proj.weight"].T) * (h @ w[p + "mlp.up_proj.weight"].T)) @ w[p + "mlp.down_proj.weight"].T
    x = rms_norm(x, w["model.norm.weight"], eps)
    return maps, x @ w["lm_head.weight"].T


def phi3_forward(w, cfg, ids):
    """modeling_phi3.py: fused qkv_proj (q | k | v rows), partial rotary, gate_up_proj chunked
    (gate first), up * silu(gate), sliding window, longrope chosen by the sequence length."""
    d, H, G = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    dh, T, eps = d // H, len(ids), cfg["rms_norm_eps"]
    rotary = int(dh * cfg.get("partial_rotary_factor", 1.0))
    cos, sin = rope_for(cfg, T, dim=rotary)
    mask = causal_mask(T, cfg.get("sliding_window"))
    x = w["model.embed_tokens.weight"][ids]
    maps = []
    for l in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % l
        h = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        qkv = h @ w[p + "self_attn.qkv_proj.weight"].T
        q = heads(qkv[:, : H * dh], H, dh)
        k = heads(qkv[:, H * dh: H * dh + G * dh], G, dh)
        v = heads(qkv[:, H * dh + G * dh:], G, dh)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        a, ctx = eager_attention(q, k, v, mask, dh ** -0.5)
        maps.append(a)
        x = x + merge(ctx) @ w[p + "self_attn.o_proj.weight"].T
        h = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        gate, up = (h @ w[p + "mlp.gate_up_proj.weight"].T).chunk(2, dim=-1)
        x = x + (up * torch.nn.functional.silu(gate)) @ w[p + "mlp.down_proj.weight"].T
    x = rms_norm(x, w["model.norm.weight"], eps)
    return maps, x @ w["lm_head.weight"].T


def embed_normalizer(cfg):
    """sqrt(hidden_size) as a float32 scalar cast to the model's dtype (GemmaModel's normalizer,
    Gemma3TextScaledWordEmbedding's embed_scale)."""
    dtype = {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32}[cfg["torch_dtype"]]
    return float(torch.tensor(cfg["hidden_size"] ** 0.5, dtype=torch.float32).to(dtype).to(torch.float64))


def gemma_forward(w, cfg, ids):
    """modeling_gemma.py: embeddings * normalizer, (1 + w) RMSNorm, GeGLU with GELU tanh, tied head."""
    d, H, G, dh = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
    T, eps = len(ids), cfg["rms_norm_eps"]
    cos, sin = rope_for(cfg, T)
    mask = causal_mask(T)
    x = w["model.embed_tokens.weight"][ids] * embed_normalizer(cfg)
    maps = []
    for l in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % l
        h = gemma_rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = apply_rope(heads(h @ w[p + "self_attn.q_proj.weight"].T, H, dh), cos, sin)
        k = apply_rope(heads(h @ w[p + "self_attn.k_proj.weight"].T, G, dh), cos, sin)
        v = heads(h @ w[p + "self_attn.v_proj.weight"].T, G, dh)
        a, ctx = eager_attention(q, k, v, mask, dh ** -0.5)
        maps.append(a)
        x = x + merge(ctx) @ w[p + "self_attn.o_proj.weight"].T
        h = gemma_rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        x = x + (gelu_tanh(h @ w[p + "mlp.gate_proj.weight"].T) * (h @ w[p + "mlp.up_proj.weight"].T)) @ w[p + "mlp.down_proj.weight"].T
    x = gemma_rms_norm(x, w["model.norm.weight"], eps)
    return maps, x @ w["model.embed_tokens.weight"].T


def gemma2_layer_types(cfg):
    """Gemma2Config: layer i is sliding when (i + 1) % 2 != 0, i.e. even layers."""
    return cfg.get("layer_types") or ["sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(cfg["num_hidden_layers"])]


def gemma2_forward(w, cfg, ids):
    """modeling_gemma2.py: scaling query_pre_attn_scalar^-0.5, attention soft-cap before the mask,
    sliding windows on sliding layers, post-attention and pre/post-feedforward norms, final logit soft-cap."""
    d, H, G, dh = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
    T, eps = len(ids), cfg["rms_norm_eps"]
    cos, sin = rope_for(cfg, T)
    types = gemma2_layer_types(cfg)
    x = w["model.embed_tokens.weight"][ids] * embed_normalizer(cfg)
    maps = []
    for l in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % l
        mask = causal_mask(T, cfg["sliding_window"] if types[l] == "sliding_attention" else None)
        h = gemma_rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = apply_rope(heads(h @ w[p + "self_attn.q_proj.weight"].T, H, dh), cos, sin)
        k = apply_rope(heads(h @ w[p + "self_attn.k_proj.weight"].T, G, dh), cos, sin)
        v = heads(h @ w[p + "self_attn.v_proj.weight"].T, G, dh)
        a, ctx = eager_attention(q, k, v, mask, cfg["query_pre_attn_scalar"] ** -0.5, cfg.get("attn_logit_softcapping"))
        maps.append(a)
        x = x + gemma_rms_norm(merge(ctx) @ w[p + "self_attn.o_proj.weight"].T, w[p + "post_attention_layernorm.weight"], eps)
        h = gemma_rms_norm(x, w[p + "pre_feedforward_layernorm.weight"], eps)
        f = (gelu_tanh(h @ w[p + "mlp.gate_proj.weight"].T) * (h @ w[p + "mlp.up_proj.weight"].T)) @ w[p + "mlp.down_proj.weight"].T
        x = x + gemma_rms_norm(f, w[p + "post_feedforward_layernorm.weight"], eps)
    x = gemma_rms_norm(x, w["model.norm.weight"], eps)
    logits = x @ w["model.embed_tokens.weight"].T
    cap = cfg.get("final_logit_softcapping")
    return maps, (cap * torch.tanh(logits / cap) if cap else logits)


def gemma3_forward(w, cfg, ids):
    """modeling_gemma3.py: Gemma 2's layer with (1 + w) q_norm / k_norm before RoPE, layer types by
    sliding_window_pattern, local layers rotating with rope_local_base_freq (no scaling), global
    ones with rope_theta and rope_scaling."""
    d, H, G, dh = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
    T, eps = len(ids), cfg["rms_norm_eps"]
    rope_global = rope_for(cfg, T)
    rope_local = rope_for(cfg, T, rope_scaling=None, theta=cfg["rope_local_base_freq"])
    pattern = cfg["sliding_window_pattern"]
    types = ["sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(cfg["num_hidden_layers"])]
    x = w["model.embed_tokens.weight"][ids] * embed_normalizer(cfg)
    maps = []
    for l in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % l
        local = types[l] == "sliding_attention"
        cos, sin = rope_local if local else rope_global
        mask = causal_mask(T, cfg["sliding_window"] if local else None)
        h = gemma_rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = gemma_rms_norm(heads(h @ w[p + "self_attn.q_proj.weight"].T, H, dh), w[p + "self_attn.q_norm.weight"], eps)
        k = gemma_rms_norm(heads(h @ w[p + "self_attn.k_proj.weight"].T, G, dh), w[p + "self_attn.k_norm.weight"], eps)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        v = heads(h @ w[p + "self_attn.v_proj.weight"].T, G, dh)
        a, ctx = eager_attention(q, k, v, mask, cfg["query_pre_attn_scalar"] ** -0.5, cfg.get("attn_logit_softcapping"))
        maps.append(a)
        x = x + gemma_rms_norm(merge(ctx) @ w[p + "self_attn.o_proj.weight"].T, w[p + "post_attention_layernorm.weight"], eps)
        h = gemma_rms_norm(x, w[p + "pre_feedforward_layernorm.weight"], eps)
        f = (gelu_tanh(h @ w[p + "mlp.gate_proj.weight"].T) * (h @ w[p + "mlp.up_proj.weight"].T)) @ w[p + "mlp.down_proj.weight"].T
        x = x + gemma_rms_norm(f, w[p + "post_feedforward_layernorm.weight"], eps)
    x = gemma_rms_norm(x, w["model.norm.weight"], eps)
    logits = x @ w["model.embed_tokens.weight"].T
    cap = cfg.get("final_logit_softcapping")
    return maps, (cap * torch.tanh(logits / cap) if cap else logits)


# ---------------------------------------------------------------- folders

def make_folder(folder, cfg, seed, dtype="F32", shards=1):
    """Random weights in the family's real tensor names and shapes (model_type from cfg)."""
    family = cfg["model_type"]
    g = torch.Generator().manual_seed(seed)
    r = lambda *s, std=0.2: torch.randn(*s, generator=g, dtype=torch.float64).float() * std
    gemma = family.startswith("gemma")
    norm = (lambda n: r(n, std=0.1)) if gemma else (lambda n: 1 + r(n, std=0.1))  # Gemma stores w of (1 + w)
    d, H, G, V, I = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["vocab_size"], cfg["intermediate_size"]
    dh = cfg.get("head_dim") or d // H
    t = {"model.embed_tokens.weight": r(V, d, std=0.5 if not gemma else 0.15)}
    for l in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % l
        t[p + "input_layernorm.weight"] = norm(d)
        if family == "phi3":
            t[p + "self_attn.qkv_proj.weight"] = torch.cat([r(H * dh, d, std=0.4), r(G * dh, d, std=0.4), r(G * dh, d)])
            t[p + "mlp.gate_up_proj.weight"] = r(2 * I, d)
        else:
            t[p + "self_attn.q_proj.weight"] = r(H * dh, d, std=0.4)
            t[p + "self_attn.k_proj.weight"] = r(G * dh, d, std=0.4)
            t[p + "self_attn.v_proj.weight"] = r(G * dh, d)
            t[p + "mlp.gate_proj.weight"] = r(I, d)
            t[p + "mlp.up_proj.weight"] = r(I, d)
        t[p + "self_attn.o_proj.weight"] = r(d, H * dh)
        t[p + "mlp.down_proj.weight"] = r(d, I)
        if family == "qwen2":
            t[p + "self_attn.q_proj.bias"] = r(H * dh, std=0.3)
            t[p + "self_attn.k_proj.bias"] = r(G * dh, std=0.3)
            t[p + "self_attn.v_proj.bias"] = r(G * dh, std=0.1)
        if family in ("qwen3", "gemma3_text"):
            t[p + "self_attn.q_norm.weight"] = norm(dh)
            t[p + "self_attn.k_norm.weight"] = norm(dh)
        t[p + "post_attention_layernorm.weight"] = norm(d)
        if family in ("gemma2", "gemma3_text"):
            t[p + "pre_feedforward_layernorm.weight"] = norm(d)
            t[p + "post_feedforward_layernorm.weight"] = norm(d)
    t["model.norm.weight"] = norm(d)
    if not cfg.get("tie_word_embeddings"):
        t["lm_head.weight"] = r(V, d, std=0.5)
    os.makedirs(folder, exist_ok=True)
    json.dump(cfg, open(os.path.join(folder, "config.json"), "w"), indent=1)
    return save_weights(folder, t, dtype, shards)


def config(family, vocab, **kw):
    cfg = {"model_type": family, "vocab_size": vocab, "hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 3,
           "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 64, "rms_norm_eps": 1e-6,
           "rope_theta": 10000.0, "tie_word_embeddings": False, "bos_token_id": 1, "eos_token_id": 2, "torch_dtype": "float32"}
    cfg.update(kw)
    return cfg


# ---------------------------------------------------------------- tokenizers

SP_MERGES = [("▁", "t"), ("h", "e"), ("▁t", "he"), ("▁", "c"), ("a", "t"), ("▁c", "at"), ("▁", "s"), ("▁s", "at"),
             ("i", "n"), ("▁", "in"), ("▁", "h"), ("▁h", "at"), ("o", "n"), ("▁", "a"), ("▁", "m"), ("▁m", "at")]


def sentencepiece_tokenizer(folder, style):
    """SentencePiece-style BPE tokenizer.json with byte fallback, in three families' layouts:
    llama (Phi-3, Llama 2: Prepend + Replace normalizer, <s> = 1), metaspace (Mistral v0.3: a
    Metaspace pre-tokenizer, prepend_scheme first), gemma (Replace only, no dummy prefix, <bos> = 2).
    Returns (pieces, encode)."""
    specials = ["<pad>", "<eos>", "<bos>", "<unk>"] if style == "gemma" else ["<unk>", "<s>", "</s>"]
    bos = specials.index("<bos>" if style == "gemma" else "<s>")
    pieces = specials + ["<0x%02X>" % b for b in range(256)] + ["▁"] + [chr(c) for c in range(ord("a"), ord("z") + 1)] + list("TL.,!'")
    for a, b in SP_MERGES:
        if a + b not in pieces:
            pieces.append(a + b)
    vocab = {p: i for i, p in enumerate(pieces)}
    replace = {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}
    normalizer = {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"}, replace]}
    pre_tokenizer = None
    if style == "gemma":
        normalizer = replace
    elif style == "metaspace":
        normalizer = None
        pre_tokenizer = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": False}
    tj = {"version": "1.0",
          "added_tokens": [{"id": i, "content": c, "special": True, "single_word": False, "lstrip": False, "rstrip": False,
                            "normalized": False} for i, c in enumerate(specials)],
          "normalizer": normalizer, "pre_tokenizer": pre_tokenizer,
          "post_processor": {"type": "TemplateProcessing",
                             "single": [{"SpecialToken": {"id": specials[bos], "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
                             "pair": [], "special_tokens": {specials[bos]: {"id": specials[bos], "ids": [bos], "tokens": [specials[bos]]}}},
          "decoder": None,
          "model": {"type": "BPE", "dropout": None, "unk_token": specials[-1] if style == "gemma" else "<unk>",
                    "continuing_subword_prefix": None, "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True,
                    "ignore_merges": False, "vocab": vocab, "merges": [a + " " + b for a, b in SP_MERGES]}}
    json.dump(tj, open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8"), ensure_ascii=False)
    ranks = {m: i for i, m in enumerate(SP_MERGES)}

    def encode(text):
        s = text.replace(" ", "▁")
        word = list(s if style == "gemma" else "▁" + s) if text else []
        while len(word) > 1:
            rank, i = min((ranks.get((word[i], word[i + 1]), 1e9), i) for i in range(len(word) - 1))
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
        ids = [bos]
        for p in word:
            ids.extend([vocab[p]] if p in vocab else [vocab["<0x%02X>" % b] for b in p.encode("utf-8")])
        return ids

    return len(pieces), encode


# Qwen 2 and Llama 3's pre-tokenizer regexes. On the test sentences (letters, spaces, ',', '.',
# '!', "'m") they split as GPT-2's regex does, so gpt2_reference_tokenizer encodes them.
QWEN2_SPLIT = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
LLAMA3_SPLIT = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"


def bytelevel_tokenizer(folder, files, split, bos=None):
    """GPT-2's byte-level vocabulary in a Qwen 2 / Llama 3 style tokenizer.json: Split(regex) then
    ByteLevel without its own regex; a BOS template when `bos` is given (Llama 3; Qwen adds none)."""
    vocab = json.load(open(files[0], encoding="utf-8"))
    merges = [l.split() for l in open(files[1], encoding="utf-8").read().split("\n")[1:] if l.strip()]
    post = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
    if bos is not None:
        post = {"type": "Sequence", "processors": [post, {
            "type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<|endoftext|>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [], "special_tokens": {"<|endoftext|>": {"id": "<|endoftext|>", "ids": [bos], "tokens": ["<|endoftext|>"]}}}]}
    tj = {"version": "1.0",
          "added_tokens": [{"id": 50256, "content": "<|endoftext|>", "special": True}],
          "normalizer": None,
          "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
              {"type": "Split", "pattern": {"Regex": split}, "behavior": "Isolated", "invert": False},
              {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]},
          "post_processor": post,
          "decoder": {"type": "ByteLevel"},
          "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                    "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False, "vocab": vocab, "merges": merges}}
    json.dump(tj, open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8"), ensure_ascii=False)


# ---------------------------------------------------------------- comparison

def run_cli(cli, folder, sentence, generate):
    cmd = [cli, "maps", "--model", folder, "--json", "-", "--sentence", sentence]
    if generate:
        cmd += ["--generate", str(generate)]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        return None, proc.stderr.decode().strip()
    return json.loads(proc.stdout), None


def check(cli, folder, forward, w, cfg, encode, sentence, generate=0, matters=()):
    """headscope's maps and greedy tokens against forward(); `matters`: (what, change(cfg)) pairs,
    each of which must move the reference's maps away from headscope's by more than MATTERS."""
    name = "%s %r%s" % (os.path.basename(folder), sentence, " +%d generated" % generate if generate else "")
    got, err = run_cli(cli, folder, sentence, generate)
    if got is None:
        print("%s: headscope-cli failed: %s" % (name, err))
        return False
    ids = encode(sentence)
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
    ours = [np.array(layer, dtype=np.float64) for layer in got["attention"]]
    worst, cell = 0.0, None
    for l, layer in enumerate(maps):
        err = np.abs(ours[l] - layer.numpy())
        h, i, j = np.unravel_index(np.argmax(err), err.shape)
        if err[h, i, j] >= worst:
            worst, cell = float(err[h, i, j]), (l, int(h), int(i), int(j))
    ok = worst <= TOL
    if not ok:
        print("%s: attention[layer %d][head %d][query %d][key %d] differs by %.3g (tolerance %g)" % ((name,) + cell + (worst, TOL)))
    notes = []
    for what, change in matters:
        other = copy.deepcopy(cfg)
        change(other)
        alt, _ = forward(w, other, ids)
        moved = max(float(np.abs(ours[l] - alt[l].numpy()).max()) for l in range(len(alt)))
        notes.append("%s moves the maps by %.3g" % (what, moved))
        if moved <= MATTERS:
            print("%s: %s changes the maps by only %.3g: the test would not notice it ignored" % (name, what, moved))
            ok = False
    print("%s: %d tokens, max map error %.3g over %d layers x %d heads%s%s" % (
        name, len(ids), worst, len(maps), maps[0].shape[0], "; " + ", ".join(notes) if notes else "", "" if ok else "  FAILED"))
    return ok


def setting(key, value):
    return lambda c: c.__setitem__(key, value)


SENTENCE = "the cat sat in the hat on the mat, the cat sat"
BYTE_SENTENCE = "The cat sat on the mat, and the dog barked at the moon all night."


def main():
    cli, out, models = sys.argv[1], sys.argv[2], os.environ.get("HEADSCOPE_MODELS_DIR") or sys.argv[3]
    torch.set_grad_enabled(False)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    ok = True

    def folder(name):
        f = os.path.join(out, name)
        os.makedirs(f)
        return f

    # Mistral: every layer windowed (4 keys), explicit head_dim 12 (hidden 32 / 4 heads = 8), MQA.
    f = folder("mistral")
    n, enc = sentencepiece_tokenizer(f, "metaspace")
    cfg = config("mistral", n + 3, num_key_value_heads=1, head_dim=12, sliding_window=4)
    w = make_folder(f, cfg, 11, "BF16")
    ok &= check(cli, f, mistral_forward, w, cfg, enc, SENTENCE, matters=[("sliding_window 4", setting("sliding_window", None))])
    ok &= check(cli, f, mistral_forward, w, cfg, enc, "a cat", 8)

    # Phi-3: fused projections, half the head rotated, a window of 6, longrope past 8 positions.
    f = folder("phi3")
    n, enc = sentencepiece_tokenizer(f, "llama")
    cfg = config("phi3", n + 3, num_key_value_heads=2, partial_rotary_factor=0.5, sliding_window=6, max_position_embeddings=32,
                 original_max_position_embeddings=8, hidden_act="silu",
                 rope_scaling={"type": "longrope", "short_factor": [1.0, 1.3], "long_factor": [3.0, 7.0]})
    w = make_folder(f, cfg, 12, "F32")
    def whole_head(c):  # rotate all 8 dimensions, the same factors repeated
        c["partial_rotary_factor"] = 1.0
        c["rope_scaling"] = dict(c["rope_scaling"], short_factor=[1.0, 1.3] * 2, long_factor=[3.0, 7.0] * 2)
    ok &= check(cli, f, phi3_forward, w, cfg, enc, SENTENCE,
                matters=[("longrope", setting("rope_scaling", None)), ("partial rotary", whole_head),
                         ("sliding_window 6", setting("sliding_window", None))])
    ok &= check(cli, f, phi3_forward, w, cfg, enc, "the cat", 10)  # generation crosses the original 8 positions

    # Gemma: head_dim 256, MQA, bfloat16 embedding scale, GeGLU.
    f = folder("gemma")
    n, enc = sentencepiece_tokenizer(f, "gemma")
    cfg = config("gemma", n + 2, num_attention_heads=2, num_key_value_heads=1, head_dim=256, tie_word_embeddings=True,
                 bos_token_id=2, eos_token_id=1, hidden_act="gelu", hidden_activation="gelu_pytorch_tanh", torch_dtype="bfloat16")
    w = make_folder(f, cfg, 13, "BF16")
    ok &= check(cli, f, gemma_forward, w, cfg, enc, SENTENCE, 4)

    # Gemma 2: soft-caps, even layers local with a window of 4, query_pre_attn_scalar 24 != head_dim.
    f = folder("gemma2")
    n, enc = sentencepiece_tokenizer(f, "gemma")
    cfg = config("gemma2", n + 2, head_dim=16, tie_word_embeddings=True, bos_token_id=2, eos_token_id=1,
                 hidden_activation="gelu_pytorch_tanh", query_pre_attn_scalar=24, sliding_window=4,
                 attn_logit_softcapping=1.5, final_logit_softcapping=4.0)
    w = make_folder(f, cfg, 14, "F32")
    ok &= check(cli, f, gemma2_forward, w, cfg, enc, SENTENCE,
                matters=[("attn_logit_softcapping 1.5", setting("attn_logit_softcapping", None)),
                         ("sliding_window 4", setting("sliding_window", 1000)),
                         ("query_pre_attn_scalar 24", setting("query_pre_attn_scalar", 16))])
    ok &= check(cli, f, gemma2_forward, w, cfg, enc, "the hat", 8)

    # Gemma 3: q/k norms, local layers 0, 1, 3 (pattern 3) with their own RoPE base, linear scaling
    # on the global layer 2, float16 embedding scale.
    f = folder("gemma3")
    n, enc = sentencepiece_tokenizer(f, "gemma")
    cfg = config("gemma3_text", n + 2, num_hidden_layers=4, head_dim=16, tie_word_embeddings=True, bos_token_id=2,
                 eos_token_id=1, hidden_activation="gelu_pytorch_tanh", query_pre_attn_scalar=16, sliding_window=4,
                 sliding_window_pattern=3, rope_theta=1000000.0, rope_local_base_freq=10000.0,
                 rope_scaling={"rope_type": "linear", "factor": 8.0}, torch_dtype="float16")
    w = make_folder(f, cfg, 15, "F16")
    ok &= check(cli, f, gemma3_forward, w, cfg, enc, SENTENCE,
                matters=[("rope_local_base_freq", setting("rope_local_base_freq", 1000000.0)),
                         ("sliding_window 4", setting("sliding_window", 1000))])
    ok &= check(cli, f, gemma3_forward, w, cfg, enc, "in the", 6)

    # Llama with each remaining rope_scaling type (SentencePiece-style tokenizer).
    for kind, rs, extra, sentence, gen in [
            ("linear", {"rope_type": "linear", "factor": 4.0}, {}, SENTENCE, 4),
            ("dynamic", {"type": "dynamic", "factor": 4.0}, {"max_position_embeddings": 8}, SENTENCE, 0),
            ("yarn", {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 16}, {}, SENTENCE, 4)]:
        f = folder("llama-" + kind)
        n, enc = sentencepiece_tokenizer(f, "llama")
        cfg = config("llama", n + 3, rope_scaling=rs, hidden_act="silu", **extra)
        w = make_folder(f, cfg, 16, "F32")
        ok &= check(cli, f, llama_forward, w, cfg, enc, sentence, gen, matters=[("rope_scaling " + kind, setting("rope_scaling", None))])

    files = gpt2_files(models)
    if not files:
        print("SKIP qwen2, qwen3 and llama3 (byte-level) cases: %s/gpt2-tokenizer not found (set HEADSCOPE_MODELS_DIR)" % models)
        return 0 if ok else 1
    gpt2 = gpt2tok.Encoder(*files)

    # Qwen 2: biases, GQA 3:1, layers 1 and 2 windowed (use_sliding_window, max_window_layers 1), tied.
    f = folder("qwen2")
    bytelevel_tokenizer(f, files, QWEN2_SPLIT)
    cfg = config("qwen2", 50257, hidden_size=48, num_attention_heads=6, num_key_value_heads=2, rope_theta=1000000.0,
                 tie_word_embeddings=True, use_sliding_window=True, sliding_window=5, max_window_layers=1,
                 hidden_act="silu", torch_dtype="bfloat16")
    w = make_folder(f, cfg, 17, "BF16")
    ok &= check(cli, f, qwen2_forward, w, cfg, gpt2.encode, BYTE_SENTENCE,
                matters=[("sliding_window 5 on layers 1-2", setting("use_sliding_window", False))])
    ok &= check(cli, f, qwen2_forward, w, cfg, gpt2.encode, "Hello world", 6)

    # Qwen 3: q/k norms, head_dim 16 with hidden 32, yarn (max = factor x original, so transformers
    # 4 and 5 agree on the factor).
    f = folder("qwen3")
    bytelevel_tokenizer(f, files, QWEN2_SPLIT)
    cfg = config("qwen3", 50257, head_dim=16, rope_theta=1000000.0, attention_bias=False, hidden_act="silu",
                 rope_scaling={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 16})
    w = make_folder(f, cfg, 18, "F16", shards=2)
    ok &= check(cli, f, qwen3_forward, w, cfg, gpt2.encode, BYTE_SENTENCE,
                matters=[("rope_scaling yarn", setting("rope_scaling", None))])
    ok &= check(cli, f, qwen3_forward, w, cfg, gpt2.encode, "I'm sure", 5)

    # Llama 3.2 style: llama3 rope_scaling, GQA 4:1, head_dim 16, tied, BOS template, Llama 3 split.
    f = folder("llama-llama3")
    bytelevel_tokenizer(f, files, LLAMA3_SPLIT, bos=50256)
    cfg = config("llama", 50257, num_key_value_heads=1, head_dim=16, tie_word_embeddings=True, bos_token_id=50256,
                 eos_token_id=50256, hidden_act="silu", rope_theta=10000.0, torch_dtype="bfloat16",
                 rope_scaling={"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                               "original_max_position_embeddings": 64})
    w = make_folder(f, cfg, 19, "BF16")
    bos_encode = lambda s: [50256] + gpt2.encode(s)
    ok &= check(cli, f, llama_forward, w, cfg, bos_encode, BYTE_SENTENCE,
                matters=[("rope_scaling llama3", setting("rope_scaling", None))])
    ok &= check(cli, f, llama_forward, w, cfg, bos_encode, "Hello world!", 5)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
