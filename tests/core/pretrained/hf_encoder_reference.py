#!/usr/bin/python3
"""Tiny random Hugging Face encoder folders, checked live against headscope-cli.

One folder per encoder family (written into OUT_DIR, the build tree), with the family's real tensor
names, prefixes and shapes and config.json keys, random weights:
  bert        "bert." prefix, token types 2, LayerNorm stored as gamma/beta (old TF conversions),
              a sentence pair [CLS] A [SEP] B [SEP] with token types 0/1 (the types must matter)
  roberta     "roberta." prefix, positions from padding_idx + 1 (pad_token_id 1: the offset must
              matter), GPT-2 byte-level BPE tokenizer.json with RobertaProcessing: a sentence and a
              pair <s> A </s></s> B </s> encoded by headscope itself
  xlm-roberta no prefix (XLMRobertaModel), pad_token_id 1, Unigram tokenizer.json (ids given)
  distilbert  "distilbert." prefix, q_lin/sa_layer_norm names, no token types, gelu
  electra     "electra." prefix, embedding_size 16 != hidden 32 (embeddings_project), types
  modernbert  "model." prefix, Wqkv / GeGLU Wi, pre-norm (no attn_norm on layer 0), no biases,
              global_attn_every_n_layers 2 with local_attention 6 (window |i - j| <= 3), its own
              global and local RoPE bases (both must matter), byte-level tokenizer.json with a
              [CLS] $A [SEP] template
Each family has its own PyTorch float64 forward below, written from transformers'
modeling_{bert,roberta,xlm_roberta,distilbert,electra,modernbert}.py (not from headscope). Every
attention map must match to 1e-4 (and for BERT's single sentence every head's role scores and the
attention rollout, with the bidirectional definitions). Token ids are given with --input-ids where headscope's
tokenizers cannot read the folder's tokenizer yet (WordPiece, Unigram: the labels then come from
the vocabulary), and encoded by headscope from --sentence / --sentence-b where they can (checked
against an independent encoding). The byte-level cases need the GPT-2 vocabulary from MODELS_DIR.

usage: hf_encoder_reference.py HEADSCOPE_CLI OUT_DIR MODELS_DIR
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
from hf_reference import compare_roles, save_weights, gpt2_files  # noqa: E402

TOL = 1e-4
MATTERS = 1e-3


# ---------------------------------------------------------------- shared maths

def layer_norm(x, w, b, eps):
    """nn.LayerNorm (biased variance); b None: no bias (ModernBERT's norm_bias false)."""
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    y = (x - mean) / torch.sqrt(var + eps) * w
    return y + b if b is not None else y


def gelu(x):
    """ACT2FN["gelu"]: the exact GELU, x * Phi(x)."""
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def linear(w, name, x):
    return x @ w[name + ".weight"].T + (w[name + ".bias"] if name + ".bias" in w else 0)


def heads(x, n):
    T, d = x.shape
    return x.view(T, n, d // n).transpose(0, 1)


def merge(x):
    H, T, dh = x.shape
    return x.transpose(0, 1).reshape(T, H * dh)


def ln(w, base, x, eps):
    """A LayerNorm by its stored names (weight/bias, or gamma/beta)."""
    if base + ".weight" in w:
        return layer_norm(x, w[base + ".weight"], w.get(base + ".bias"), eps)
    return layer_norm(x, w[base + ".gamma"], w[base + ".beta"], eps)


# ---------------------------------------------------------------- forwards

def bert_forward(w, cfg, ids, types=None, p="bert."):
    """modeling_bert.py (BertModel; RobertaModel / XLMRobertaModel / ElectraModel share it):
    BertEmbeddings (word + position + token type, LayerNorm), then per BertLayer: self-attention
    softmax(q k^T / sqrt(dh)) v, BertSelfOutput LayerNorm(dense + input), BertIntermediate GELU,
    BertOutput LayerNorm(dense + input). RoBERTa: position ids padding_idx + 1 + t
    (create_position_ids_from_input_ids, no padding). ELECTRA: embeddings_project when
    embedding_size != hidden_size."""
    family = cfg["model_type"]
    H, T, eps = cfg["num_attention_heads"], len(ids), cfg["layer_norm_eps"]
    if family in ("roberta", "xlm-roberta"):
        positions = torch.arange(T) + cfg["pad_token_id"] + 1
    else:
        positions = torch.arange(T)
    types = torch.tensor(types if types is not None else [0] * T)
    e = p + "embeddings."
    x = w[e + "word_embeddings.weight"][ids] + w[e + "position_embeddings.weight"][positions]
    x = x + w[e + "token_type_embeddings.weight"][types]
    x = ln(w, e + "LayerNorm", x, eps)
    if p + "embeddings_project.weight" in w:
        x = linear(w, p + "embeddings_project", x)
    maps = []
    for l in range(cfg["num_hidden_layers"]):
        b = p + "encoder.layer.%d." % l
        q = heads(linear(w, b + "attention.self.query", x), H)
        k = heads(linear(w, b + "attention.self.key", x), H)
        v = heads(linear(w, b + "attention.self.value", x), H)
        a = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(q.shape[-1]), -1)
        maps.append(a)
        x = ln(w, b + "attention.output.LayerNorm", linear(w, b + "attention.output.dense", merge(a @ v)) + x, eps)
        h = gelu(linear(w, b + "intermediate.dense", x))
        x = ln(w, b + "output.LayerNorm", linear(w, b + "output.dense", h) + x, eps)
    return maps


def distilbert_forward(w, cfg, ids, types=None, p="distilbert."):
    """modeling_distilbert.py: Embeddings (word + position, LayerNorm eps 1e-12, no token types),
    MultiHeadSelfAttention (q / sqrt(dim_per_head), then q k^T), sa_layer_norm(attn + x),
    FFN lin2(gelu(lin1)), output_layer_norm(ffn + x)."""
    H, T = cfg["n_heads"], len(ids)
    e = p + "embeddings."
    x = w[e + "word_embeddings.weight"][ids] + w[e + "position_embeddings.weight"][torch.arange(T)]
    x = layer_norm(x, w[e + "LayerNorm.weight"], w[e + "LayerNorm.bias"], 1e-12)
    maps = []
    for l in range(cfg["n_layers"]):
        b = p + "transformer.layer.%d." % l
        q = heads(linear(w, b + "attention.q_lin", x), H)
        k = heads(linear(w, b + "attention.k_lin", x), H)
        v = heads(linear(w, b + "attention.v_lin", x), H)
        a = torch.softmax((q / math.sqrt(q.shape[-1])) @ k.transpose(1, 2), -1)
        maps.append(a)
        x = layer_norm(linear(w, b + "attention.out_lin", merge(a @ v)) + x, w[b + "sa_layer_norm.weight"], w[b + "sa_layer_norm.bias"], 1e-12)
        f = linear(w, b + "ffn.lin2", gelu(linear(w, b + "ffn.lin1", x)))
        x = layer_norm(f + x, w[b + "output_layer_norm.weight"], w[b + "output_layer_norm.bias"], 1e-12)
    return maps


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def modernbert_forward(w, cfg, ids, types=None, p="model."):
    """modeling_modernbert.py (eager attention): ModernBertEmbeddings LayerNorm(tok_embeddings),
    per ModernBertEncoderLayer: attn_norm (Identity on layer 0), Wqkv viewed [T, 3, H, dh], rotary
    cos/sin of the layer type's rope_theta (layer_types: sliding when i % global_attn_every_n_layers),
    scores * head_dim^-0.5, local layers masked outside |i - j| <= local_attention // 2, Wo;
    mlp_norm, Wi chunked into (input, gate), Wo(act(input) * gate); final_norm."""
    d, H, T, eps = cfg["hidden_size"], cfg["num_attention_heads"], len(ids), cfg["norm_eps"]
    dh = d // H
    every, local = cfg["global_attn_every_n_layers"], cfg["local_attention"]
    norm = lambda base, x: layer_norm(x, w[base + ".weight"], w.get(base + ".bias"), eps)

    def rope(theta):
        inv = 1.0 / (theta ** (torch.arange(0, dh, 2, dtype=torch.float64) / dh))
        freqs = torch.arange(T, dtype=torch.float64)[:, None] * inv[None, :]
        emb = torch.cat((freqs, freqs), -1)
        return emb.cos(), emb.sin()
    rope_global, rope_local = rope(cfg["global_rope_theta"]), rope(cfg["local_rope_theta"])
    dist = (torch.arange(T)[:, None] - torch.arange(T)[None, :]).abs()
    window_mask = torch.zeros(T, T, dtype=torch.float64).masked_fill(dist > local // 2, torch.finfo(torch.float64).min)

    x = norm(p + "embeddings.norm", w[p + "embeddings.tok_embeddings.weight"][ids])
    maps = []
    for l in range(cfg["num_hidden_layers"]):
        b = p + "layers.%d." % l
        sliding = bool(l % every)
        h = x if l == 0 else norm(b + "attn_norm", x)
        qkv = linear(w, b + "attn.Wqkv", h).view(T, 3, H, dh)
        q, k, v = (qkv[:, i].transpose(0, 1) for i in range(3))  # [H, T, dh]
        cos, sin = rope_local if sliding else rope_global
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        s = q @ k.transpose(1, 2) * dh ** -0.5
        if sliding:
            s = s + window_mask
        a = torch.softmax(s, -1)
        maps.append(a)
        x = x + linear(w, b + "attn.Wo", merge(a @ v))
        inp, gate = linear(w, b + "mlp.Wi", norm(b + "mlp_norm", x)).chunk(2, dim=-1)
        x = x + linear(w, b + "mlp.Wo", gelu(inp) * gate)
    return maps


# ---------------------------------------------------------------- folders

def bert_tensors(cfg, seed, p, old_norm_names=False):
    """BertModel-layout tensors (bert, roberta, xlm-roberta, electra) under prefix p."""
    g = torch.Generator().manual_seed(seed)
    r = lambda *s, std=0.2: torch.randn(*s, generator=g, dtype=torch.float64).float() * std
    d, I, V = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    e = cfg.get("embedding_size", d) if cfg["model_type"] == "electra" else d
    wn, bn = ("gamma", "beta") if old_norm_names else ("weight", "bias")
    t = {p + "embeddings.word_embeddings.weight": r(V, e, std=0.5),
         p + "embeddings.position_embeddings.weight": r(cfg["max_position_embeddings"], e, std=0.5),
         p + "embeddings.token_type_embeddings.weight": r(cfg["type_vocab_size"], e, std=0.5),
         p + "embeddings.LayerNorm." + wn: 1 + r(e, std=0.1), p + "embeddings.LayerNorm." + bn: r(e, std=0.1)}
    if e != d:
        t[p + "embeddings_project.weight"] = r(d, e, std=0.3)
        t[p + "embeddings_project.bias"] = r(d, std=0.1)
    for l in range(cfg["num_hidden_layers"]):
        b = p + "encoder.layer.%d." % l
        for name in ("query", "key"):
            t[b + "attention.self.%s.weight" % name] = r(d, d, std=0.4)
            t[b + "attention.self.%s.bias" % name] = r(d, std=0.2)
        t[b + "attention.self.value.weight"] = r(d, d)
        t[b + "attention.self.value.bias"] = r(d, std=0.1)
        t[b + "attention.output.dense.weight"] = r(d, d)
        t[b + "attention.output.dense.bias"] = r(d, std=0.1)
        t[b + "attention.output.LayerNorm." + wn] = 1 + r(d, std=0.1)
        t[b + "attention.output.LayerNorm." + bn] = r(d, std=0.1)
        t[b + "intermediate.dense.weight"] = r(I, d)
        t[b + "intermediate.dense.bias"] = r(I, std=0.1)
        t[b + "output.dense.weight"] = r(d, I)
        t[b + "output.dense.bias"] = r(d, std=0.1)
        t[b + "output.LayerNorm." + wn] = 1 + r(d, std=0.1)
        t[b + "output.LayerNorm." + bn] = r(d, std=0.1)
    t[p + "pooler.dense.weight"] = r(d, d)  # ignored by headscope, as by the maps
    t[p + "pooler.dense.bias"] = r(d)
    return t


def distilbert_tensors(cfg, seed, p):
    g = torch.Generator().manual_seed(seed)
    r = lambda *s, std=0.2: torch.randn(*s, generator=g, dtype=torch.float64).float() * std
    d, I, V = cfg["dim"], cfg["hidden_dim"], cfg["vocab_size"]
    t = {p + "embeddings.word_embeddings.weight": r(V, d, std=0.5),
         p + "embeddings.position_embeddings.weight": r(cfg["max_position_embeddings"], d, std=0.5),
         p + "embeddings.LayerNorm.weight": 1 + r(d, std=0.1), p + "embeddings.LayerNorm.bias": r(d, std=0.1)}
    for l in range(cfg["n_layers"]):
        b = p + "transformer.layer.%d." % l
        for name, std in (("q_lin", 0.4), ("k_lin", 0.4), ("v_lin", 0.2), ("out_lin", 0.2)):
            t[b + "attention.%s.weight" % name] = r(d, d, std=std)
            t[b + "attention.%s.bias" % name] = r(d, std=0.1)
        for name in ("sa_layer_norm", "output_layer_norm"):
            t[b + name + ".weight"] = 1 + r(d, std=0.1)
            t[b + name + ".bias"] = r(d, std=0.1)
        t[b + "ffn.lin1.weight"] = r(I, d)
        t[b + "ffn.lin1.bias"] = r(I, std=0.1)
        t[b + "ffn.lin2.weight"] = r(d, I)
        t[b + "ffn.lin2.bias"] = r(d, std=0.1)
    t["vocab_projector.weight"] = r(V, d)  # the MLM head: ignored
    return t


def modernbert_tensors(cfg, seed, p):
    g = torch.Generator().manual_seed(seed)
    r = lambda *s, std=0.2: torch.randn(*s, generator=g, dtype=torch.float64).float() * std
    d, I, V = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    t = {p + "embeddings.tok_embeddings.weight": r(V, d, std=0.5), p + "embeddings.norm.weight": 1 + r(d, std=0.1)}
    for l in range(cfg["num_hidden_layers"]):
        b = p + "layers.%d." % l
        if l > 0:
            t[b + "attn_norm.weight"] = 1 + r(d, std=0.1)
        t[b + "attn.Wqkv.weight"] = torch.cat([r(d, d, std=0.5), r(d, d, std=0.5), r(d, d)])
        t[b + "attn.Wo.weight"] = r(d, d)
        t[b + "mlp_norm.weight"] = 1 + r(d, std=0.1)
        t[b + "mlp.Wi.weight"] = r(2 * I, d)
        t[b + "mlp.Wo.weight"] = r(d, I)
    t[p + "final_norm.weight"] = 1 + r(d, std=0.1)
    t["head.dense.weight"] = r(d, d)  # the MLM head: ignored
    t["head.norm.weight"] = 1 + r(d, std=0.1)
    return t


def write_folder(folder, cfg, tensors, dtype="F32"):
    os.makedirs(folder, exist_ok=True)
    json.dump(cfg, open(os.path.join(folder, "config.json"), "w"), indent=1)
    return save_weights(folder, tensors, dtype)


# ---------------------------------------------------------------- tokenizers

WORDS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "on", "mat", "dog", "a", "##s", "bark",
         "##ed", "at", "moon", "all", "night", ",", ".", "it", "was", "late", "and", "quiet"]


def wordpiece_tokenizer(folder):
    """A BERT-style tokenizer.json (WordPiece, BertNormalizer, BertPreTokenizer, TemplateProcessing
    with type ids) over WORDS. Returns the vocabulary and an independent greedy longest-match
    WordPiece encoder of lower-case ASCII text (for when headscope reads WordPiece)."""
    vocab = {p: i for i, p in enumerate(WORDS)}
    special = lambda i, c: {"id": i, "content": c, "single_word": False, "lstrip": False, "rstrip": False,
                            "normalized": False, "special": True}
    tj = {"version": "1.0", "truncation": None, "padding": None,
          "added_tokens": [special(i, c) for i, c in enumerate(WORDS[:5])],
          "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                         "strip_accents": None, "lowercase": True},
          "pre_tokenizer": {"type": "BertPreTokenizer"},
          "post_processor": {"type": "TemplateProcessing",
                             "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                                        {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
                             "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                                      {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
                                      {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
                             "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
                                                "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}},
          "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
          "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                    "max_input_chars_per_word": 100, "vocab": vocab}}
    json.dump(tj, open(os.path.join(folder, "tokenizer.json"), "w"))

    def encode(text):
        ids = []
        for word in text.lower().replace(",", " , ").replace(".", " . ").split():
            start, pieces = 0, []
            while start < len(word):
                end = len(word)
                while end > start and (word[start:end] if start == 0 else "##" + word[start:end]) not in vocab:
                    end -= 1
                if end == start:
                    pieces = [vocab["[UNK]"]]
                    break
                pieces.append(vocab[word[start:end] if start == 0 else "##" + word[start:end]])
                start = end
            ids += pieces
        return ids
    return vocab, encode


def unigram_tokenizer(folder):
    """An XLM-R style tokenizer.json (Unigram, Metaspace, <s> A </s></s> B </s> template)."""
    pieces = ["<s>", "<pad>", "</s>", "<unk>"] + ["▁" + w for w in WORDS[5:]] + ["<mask>"]
    tj = {"version": "1.0", "added_tokens": [{"id": i, "content": c, "special": True} for i, c in
                                              [(0, "<s>"), (1, "<pad>"), (2, "</s>"), (3, "<unk>"), (len(pieces) - 1, "<mask>")]],
          "normalizer": {"type": "Sequence", "normalizers": [{"type": "Precompiled", "precompiled_charsmap": None}]},
          "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
          "post_processor": {"type": "TemplateProcessing",
                             "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                                        {"SpecialToken": {"id": "</s>", "type_id": 0}}],
                             "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                                      {"SpecialToken": {"id": "</s>", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}},
                                      {"Sequence": {"id": "B", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
                             "special_tokens": {"<s>": {"id": "<s>", "ids": [0], "tokens": ["<s>"]},
                                                "</s>": {"id": "</s>", "ids": [2], "tokens": ["</s>"]}}},
          "decoder": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
          "model": {"type": "Unigram", "unk_id": 3, "vocab": [[p, -float(i)] for i, p in enumerate(pieces)], "byte_fallback": False}}
    json.dump(tj, open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8"), ensure_ascii=False)
    return pieces


def roberta_tokenizer(folder, files):
    """RoBERTa's layout of GPT-2's byte-level BPE: <s> <pad> </s> <unk> first, every GPT-2 piece
    after them (ids + 4), <mask> last; RobertaProcessing. Returns (vocab size, encode of one text
    without specials)."""
    gpt2_vocab = json.load(open(files[0], encoding="utf-8"))
    merges = [l.split() for l in open(files[1], encoding="utf-8").read().split("\n")[1:] if l.strip()]
    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
    for piece, i in gpt2_vocab.items():
        if piece != "<|endoftext|>":
            vocab[piece] = i + 4
    vocab["<mask>"] = len(vocab)
    tj = {"version": "1.0",
          "added_tokens": [{"id": i, "content": c, "special": True} for c, i in
                           [("<s>", 0), ("<pad>", 1), ("</s>", 2), ("<unk>", 3), ("<mask>", vocab["<mask>"])]],
          "normalizer": None,
          "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
          "post_processor": {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0], "trim_offsets": True,
                             "add_prefix_space": False},
          "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
          "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                    "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False, "vocab": vocab, "merges": merges}}
    json.dump(tj, open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8"), ensure_ascii=False)
    enc = gpt2tok.Encoder(*files)
    return len(vocab), lambda text: [i + 4 for i in enc.encode(text)]


def modernbert_tokenizer(folder, files):
    """ModernBERT's kind of tokenizer.json: byte-level BPE (GPT-2's vocabulary here) with [CLS] /
    [SEP] added after it and a TemplateProcessing post-processor with a pair template."""
    vocab = json.load(open(files[0], encoding="utf-8"))
    merges = [l.split() for l in open(files[1], encoding="utf-8").read().split("\n")[1:] if l.strip()]
    n = len(vocab)
    specials = [("[CLS]", n), ("[SEP]", n + 1), ("[PAD]", n + 2), ("[MASK]", n + 3)]
    for c, i in specials:
        vocab[c] = i
    tj = {"version": "1.0",
          "added_tokens": [{"id": 50256, "content": "<|endoftext|>", "special": True}] +
                          [{"id": i, "content": c, "special": True} for c, i in specials],
          "normalizer": None,
          "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
          "post_processor": {"type": "TemplateProcessing",
                             "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                                        {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
                             "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                                      {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
                                      {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
                             "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [n], "tokens": ["[CLS]"]},
                                                "[SEP]": {"id": "[SEP]", "ids": [n + 1], "tokens": ["[SEP]"]}}},
          "decoder": {"type": "ByteLevel"},
          "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                    "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False, "vocab": vocab, "merges": merges}}
    json.dump(tj, open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8"), ensure_ascii=False)
    enc = gpt2tok.Encoder(*files)
    return len(vocab), n, n + 1, enc.encode


# ---------------------------------------------------------------- comparison

def run_cli(cli, folder, args):
    proc = subprocess.run([cli, "maps", "--model", folder, "--json", "-"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        return None, proc.stderr.decode().strip()
    return json.loads(proc.stdout), None


def ids_arg(ids):
    return ",".join(str(i) for i in ids)


def check(cli, name, folder, forward, w, cfg, ids, args, types=None, labels=None, matters=(), roles=False):
    """headscope's maps for `args` against forward(ids, types); `matters`: (what, forward_changed)
    pairs, each of which must move the reference away from headscope by more than MATTERS."""
    got, err = run_cli(cli, folder, args)
    if got is None:
        print("%s: headscope-cli failed: %s" % (name, err))
        return False, 0.0
    if got["token_ids"] != ids:
        print("%s: token ids differ\n  headscope %s\n  reference %s" % (name, got["token_ids"], ids))
        return False, 0.0
    if labels is not None and got["tokens"] != labels:
        print("%s: token labels differ\n  headscope %s\n  expected  %s" % (name, got["tokens"], labels))
        return False, 0.0
    if types is not None and any(types) and got.get("token_type_ids") != list(types):
        print("%s: token_type_ids in the JSON differ\n  headscope %s\n  reference %s" % (name, got.get("token_type_ids"), list(types)))
        return False, 0.0
    if types is not None and any(types) and got.get("segment_b_start") != list(types).index(1):
        print("%s: segment_b_start is %s; expected %d" % (name, got.get("segment_b_start"), list(types).index(1)))
        return False, 0.0
    if "next_tokens" in got:
        print("%s: an encoder must predict no next tokens, got %s" % (name, got["next_tokens"]))
        return False, 0.0
    if got["config"]["causal"]:
        print("%s: an encoder is not causal" % name)
        return False, 0.0
    maps = forward(w, cfg, ids, types)
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
    for what, alt_forward in matters:
        alt = alt_forward()
        moved = max(float(np.abs(ours[l] - alt[l].numpy()).max()) for l in range(len(alt)))
        notes.append("%s moves the maps by %.3g" % (what, moved))
        if moved <= MATTERS:
            print("%s: %s changes the maps by only %.3g: the test would not notice it ignored" % (name, what, moved))
            ok = False
    print("%s: %d tokens, max map error %.3g over %d layers x %d heads%s%s" % (
        name, len(ids), worst, len(maps), maps[0].shape[0], "; " + ", ".join(notes) if notes else "", "" if ok else "  FAILED"))
    if roles:  # bidirectional definitions; induction on the JSON's probe through this forward
        ok &= compare_roles(name, got, maps, ids, forward, w, cfg, causal=False)
    return ok, worst


def expect_error(cli, name, folder, args, part):
    proc = subprocess.run([cli, "maps", "--model", folder, "--json", "-"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    msg = proc.stderr.decode().strip()
    if proc.returncode not in (1, 2) or part not in msg:
        print("%s: expected exit 1 or 2 with a message containing %r; got %d: %s" % (name, part, proc.returncode, msg))
        return False
    print("%s: refused as expected: %s" % (name, msg))
    return True


def bert_config(family, vocab, **kw):
    cfg = {"model_type": family, "vocab_size": vocab, "hidden_size": 32, "num_hidden_layers": 3, "num_attention_heads": 4,
           "intermediate_size": 48, "hidden_act": "gelu", "max_position_embeddings": 40, "type_vocab_size": 2,
           "layer_norm_eps": 1e-12, "pad_token_id": 0, "position_embedding_type": "absolute", "torch_dtype": "float32"}
    cfg.update(kw)
    return cfg


A_WORDS = "the cat sat on the mat , it was late".split()
B_WORDS = "a dog barked at the moon all night .".split()


def main():
    cli, out, models = sys.argv[1], sys.argv[2], os.environ.get("HEADSCOPE_MODELS_DIR") or sys.argv[3]
    torch.set_grad_enabled(False)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    ok, worst = True, {}

    def folder(name):
        f = os.path.join(out, name)
        os.makedirs(f)
        return f

    def record(family, result):
        nonlocal ok
        ok &= result[0]
        worst[family] = max(worst.get(family, 0.0), result[1])

    vocab = {p: i for i, p in enumerate(WORDS)}
    wp = lambda words: [vocab[x] if x in vocab else vocab["[UNK]"] for x in words]
    single = [2] + wp(A_WORDS) + [3]
    pair = [2] + wp(A_WORDS) + [3] + wp(["a", "dog", "bark", "##ed", "at", "the", "moon", "all", "night", "."]) + [3]
    pair_types = [0] * (len(A_WORDS) + 2) + [1] * (len(pair) - len(A_WORDS) - 2)

    # BERT: "bert." prefix, gamma/beta LayerNorms, a pair with token types.
    f = folder("bert")
    _, wp_encode = wordpiece_tokenizer(f)
    cfg = bert_config("bert", len(WORDS))
    w = {k[len("bert."):]: v for k, v in write_folder(f, cfg, bert_tensors(cfg, 21, "bert.", old_norm_names=True)).items()}
    fw = lambda w_, c, ids, types=None: bert_forward(w_, c, ids, types, p="")
    record("bert", check(cli, "bert single", f, fw, w, cfg, single, ["--input-ids", ids_arg(single)],
                         labels=[WORDS[i] for i in single], roles=True))
    record("bert", check(cli, "bert pair", f, fw, w, cfg, pair, ["--input-ids", ids_arg(pair), "--token-type-ids", ids_arg(pair_types)],
                         types=pair_types, matters=[("token types 0/1", lambda: fw(w, cfg, pair, None))]))
    # Text: headscope's tokenizers may not read WordPiece yet; then it must say so and point at --input-ids.
    got, err = run_cli(cli, f, ["--sentence", " ".join(A_WORDS), "--sentence-b", "a dog barked at the moon all night."])
    if got is None:
        ok &= "--input-ids" in err
        print("bert text: %s (%s)" % ("refused with the --input-ids hint" if "--input-ids" in err else "FAILED", err))
    else:
        want = [2] + wp_encode(" ".join(A_WORDS)) + [3] + wp_encode("a dog barked at the moon all night.") + [3]
        record("bert", check(cli, "bert text pair", f, fw, w, cfg, want,
                             ["--sentence", " ".join(A_WORDS), "--sentence-b", "a dog barked at the moon all night."],
                             types=pair_types[:len(want)] if len(want) == len(pair_types) else None))
    ok &= expect_error(cli, "bert --generate", f, ["--input-ids", ids_arg(single), "--generate", "2"], "predicts no next token")
    ok &= expect_error(cli, "bert type 2", f, ["--input-ids", "2,5,3", "--token-type-ids", "0,2,0"], "type id 2")
    ok &= expect_error(cli, "bert bad id", f, ["--input-ids", "2,x5,3"], "'x5' is not a token id")
    ok &= expect_error(cli, "bert empty B", f, ["--input-ids", "2,5,3", "--sentence-b", ""], "second sentence (--sentence-b) is empty")

    # XLM-R: no prefix, positions from pad + 1, a Unigram tokenizer.json (ids given).
    f = folder("xlm-roberta")
    pieces = unigram_tokenizer(f)
    cfg = bert_config("xlm-roberta", len(pieces), type_vocab_size=1, pad_token_id=1, layer_norm_eps=1e-5,
                      max_position_embeddings=40 + 2, bos_token_id=0, eos_token_id=2)
    w = write_folder(f, cfg, bert_tensors(cfg, 22, ""))
    fw = lambda w_, c, ids, types=None: bert_forward(w_, c, ids, types, p="")
    xl = [0] + [pieces.index("▁" + x) if "▁" + x in pieces else 3 for x in A_WORDS] + [2, 2] + \
         [pieces.index("▁" + x) if "▁" + x in pieces else 3 for x in "a dog at the moon".split()] + [2]
    no_offset = copy.deepcopy(cfg)
    no_offset["pad_token_id"] = -1  # positions 0, 1, ... as BERT numbers them
    record("xlm-roberta", check(cli, "xlm-roberta pair ids", f, fw, w, cfg, xl, ["--input-ids", ids_arg(xl)],
                                labels=[pieces[i] for i in xl],
                                matters=[("RoBERTa's padding_idx + 1 position offset", lambda: fw(w, no_offset, xl))]))

    # DistilBERT: its own names, no token types.
    f = folder("distilbert")
    wordpiece_tokenizer(f)
    cfg = {"model_type": "distilbert", "vocab_size": len(WORDS), "dim": 32, "n_layers": 3, "n_heads": 4, "hidden_dim": 48,
           "activation": "gelu", "max_position_embeddings": 40, "sinusoidal_pos_embds": False, "pad_token_id": 0}
    w = write_folder(f, cfg, distilbert_tensors(cfg, 23, "distilbert."))
    record("distilbert", check(cli, "distilbert pair ids", f, distilbert_forward, w, cfg, pair, ["--input-ids", ids_arg(pair)]))
    ok &= expect_error(cli, "distilbert types", f, ["--input-ids", ids_arg(single), "--token-type-ids", ids_arg([0] * len(single))],
                       "no token type embeddings")

    # ELECTRA: embedding_size 16 projected to hidden 32, token types.
    f = folder("electra")
    wordpiece_tokenizer(f)
    cfg = bert_config("electra", len(WORDS), embedding_size=16)
    w = write_folder(f, cfg, bert_tensors(cfg, 24, "electra."))
    fw = lambda w_, c, ids, types=None: bert_forward(w_, c, ids, types, p="electra.")
    record("electra", check(cli, "electra pair ids", f, fw, w, cfg, pair,
                            ["--input-ids", ids_arg(pair), "--token-type-ids", ids_arg(pair_types)], types=pair_types))

    # ModernBERT: local layer 1 (window 3 each side), its own RoPE bases.
    files = gpt2_files(models)
    f = folder("modernbert")
    if files:
        n, cls, sep, bpe = modernbert_tokenizer(f, files)
    else:
        wordpiece_tokenizer(f)
        n, cls, sep, bpe = len(WORDS), 2, 3, None
    cfg = {"model_type": "modernbert", "vocab_size": n, "hidden_size": 32, "intermediate_size": 40, "num_hidden_layers": 3,
           "num_attention_heads": 4, "hidden_activation": "gelu", "max_position_embeddings": 64, "norm_eps": 1e-5,
           "norm_bias": False, "attention_bias": False, "mlp_bias": False, "global_attn_every_n_layers": 2,
           "local_attention": 6, "global_rope_theta": 160000.0, "local_rope_theta": 10.0, "pad_token_id": n - 2,
           "cls_token_id": cls, "sep_token_id": sep, "torch_dtype": "float32"}
    w = write_folder(f, cfg, modernbert_tensors(cfg, 25, "model."))
    fw = lambda w_, c, ids, types=None: modernbert_forward(w_, c, ids, types, p="model.")
    changed = lambda key, value: (lambda: fw(w, dict(cfg, **{key: value}), mb_ids))
    if bpe:
        sa, sb = "The cat sat on the mat, and it was late.", "A dog barked at the moon all night."
        mb_ids = [cls] + bpe(sa) + [sep] + bpe(sb) + [sep]
        record("modernbert", check(cli, "modernbert text pair", f, fw, w, cfg, mb_ids, ["--sentence", sa, "--sentence-b", sb],
                                   matters=[("local_attention 6", changed("local_attention", 1000)),
                                            ("local_rope_theta", changed("local_rope_theta", 160000.0)),
                                            ("global_rope_theta", changed("global_rope_theta", 10.0))]))
        one = [cls] + bpe(sa) + [sep]
        record("modernbert", check(cli, "modernbert text", f, fw, w, cfg, one, ["--sentence", sa]))
    else:
        print("SKIP ModernBERT text: %s/gpt2-tokenizer not found: ModernBERT runs on ids only" % models)
        mb_ids = pair
        record("modernbert", check(cli, "modernbert ids", f, fw, w, cfg, mb_ids, ["--input-ids", ids_arg(mb_ids)],
                                   matters=[("local_attention 6", changed("local_attention", 1000)),
                                            ("local_rope_theta", changed("local_rope_theta", 160000.0))]))

    # RoBERTa: "roberta." prefix, RobertaProcessing tokenizer.json (needs the GPT-2 vocabulary).
    if files:
        f = folder("roberta")
        n, bpe = roberta_tokenizer(f, files)
        cfg = bert_config("roberta", n, type_vocab_size=1, pad_token_id=1, layer_norm_eps=1e-5,
                          max_position_embeddings=64 + 2, bos_token_id=0, eos_token_id=2)
        w = {k[len("roberta."):]: v for k, v in write_folder(f, cfg, bert_tensors(cfg, 26, "roberta.")).items()}
        fw = lambda w_, c, ids, types=None: bert_forward(w_, c, ids, types, p="")
        sa, sb = "The cat sat on the mat, and the dog barked at the moon.", "It was late."
        ids = [0] + bpe(sa) + [2]
        no_offset = dict(cfg, pad_token_id=-1)
        record("roberta", check(cli, "roberta text", f, fw, w, cfg, ids, ["--sentence", sa],
                                matters=[("RoBERTa's padding_idx + 1 position offset", lambda: fw(w, no_offset, ids))]))
        ids = [0] + bpe(sa) + [2, 2] + bpe(sb) + [2]
        record("roberta", check(cli, "roberta text pair", f, fw, w, cfg, ids, ["--sentence", sa, "--sentence-b", sb]))
    else:
        print("SKIP roberta (byte-level) cases: %s/gpt2-tokenizer not found (set HEADSCOPE_MODELS_DIR)" % models)

    print("largest map error per family: " + ", ".join("%s %.2g" % kv for kv in sorted(worst.items())))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
