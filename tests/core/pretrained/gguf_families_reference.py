#!/usr/bin/python3
"""GGUF files of every architecture headscope runs, tied to the Hugging Face families' references.

For each case a tiny random Hugging Face folder is made with hf_families_reference.py's helpers
(the family's tensor names, shapes and config keys), then converted to GGUF in Python the way
llama.cpp's convert_hf_to_gguf.py does it:
  - tensor names token_embd, blk.N.attn_q / attn_k / attn_v / attn_output (phi3: attn_qkv),
    attn_norm, ffn_norm, ffn_gate / ffn_up / ffn_down (phi3: ffn_up = gate | up), attn_q_norm /
    attn_k_norm, post_attention_norm / post_ffw_norm (gemma2/3), output_norm, output;
  - llama architecture (Llama, Mistral): the rows of q and k permuted so RoPE pairs are adjacent
    (LlamaModel.permute); Llama 3 scaling as a rope_freqs tensor; Mistral's window as
    llama.attention.sliding_window;
  - Gemma: every norm stored as 1 + w;
  - Phi-3: LongRoPE factors as rope_factors_long / rope_factors_short with rope.scaling.attn_factor;
  - metadata <arch>.embedding_length, block_count, feed_forward_length, attention.head_count(_kv),
    attention.key_length, rope.dimension_count, rope.freq_base, rope.scaling.*, sliding_window,
    soft-caps, layer_norm_rms_epsilon; the tokenizer as tokenizer.ggml.* ("llama" SentencePiece
    with scores that reproduce the folder's merges, or "gpt2" byte-level BPE with merges and pre).
Matrices are stored in the case's type (F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K through
tests/core/formats/ggml_quantize.py; a row that is not whole blocks falls back to Q8_0 or F16, as
llama-quantize falls back); vectors stay F32.

Each file is then checked three ways:
  1. against a twin folder holding exactly the weights the file encodes (ggml_dequant.py, the
     numpy oracle, with the permutation undone and Gemma's 1 + w kept as stored) and what a GGUF
     file implies for the config (float32 embedding scale sqrt(d) as llama.cpp computes it; Gemma's
     query_pre_attn_scalar = head_dim, as llama.cpp decides for non-27B models): the same token ids,
     and every map within TIGHT (headscope on the GGUF vs headscope on the folder);
  2. against the family's float64 PyTorch forward (hf_families_reference.py) on those weights:
     maps within fam.TOL, next tokens equal wherever the reference's top two differ by > 1e-3;
  3. quantized files only: against the unquantized folder's maps, the mean total variation between
     rows within BOUND[type] (what the quantization itself does to the maps of these tiny random
     models; printed with the largest cell).

usage: gguf_families_reference.py HEADSCOPE_CLI OUT_DIR MODELS_DIR
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
except ImportError as e:  # not Debian's python3-torch / python3-numpy
    print("SKIP: %s (install python3-torch and python3-numpy)" % e)
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "formats"))
import hf_families_reference as fam  # noqa: E402
import ggml_dequant  # noqa: E402
import ggml_quantize  # noqa: E402
from gguf_writer import BOOL, FLOAT32, INT32, STRING, UINT32, GGUFWriter  # noqa: E402
from hf_reference import gpt2_files, save_weights  # noqa: E402

TIGHT = 1e-5
# How far a quantized file's maps may move from the unquantized folder's, per type: the mean over
# layers, heads and queries of the total variation between rows (0 same, 1 disjoint). Measured
# here (largest over the cases): F16 7e-4, BF16 5.8e-3, Q8_0 0.022, Q6_K 0.055, Q4_K 0.19, Q4_0
# 0.20; the bounds leave about 1.5-2x. These tiny random models have sharp maps that a 4-bit
# weight error visibly reshapes; the exactness of headscope's quantized products is check 1.
BOUND = {"F16": 2e-3, "BF16": 0.015, "Q8_0": 0.04, "Q6_K": 0.1, "Q4_K": 0.35, "Q4_0": 0.35}
NORMAL, UNKNOWN, CONTROL, BYTE = 1, 2, 3, 6
ARCH = {"llama": "llama", "mistral": "llama", "qwen2": "qwen2", "qwen3": "qwen3", "phi3": "phi3", "gemma": "gemma",
        "gemma2": "gemma2", "gemma3_text": "gemma3"}
FORWARD = {"llama": fam.llama_forward, "mistral": fam.mistral_forward, "qwen2": fam.qwen2_forward,
           "qwen3": fam.qwen3_forward, "phi3": fam.phi3_forward, "gemma": fam.gemma_forward,
           "gemma2": fam.gemma2_forward, "gemma3_text": fam.gemma3_forward}


# ---------------------------------------------------------------- llama.cpp's conventions

def permute(w, n_head):
    """convert_hf_to_gguf.py LlamaModel.permute: rows of each head from (half, i) to (i, pair) order."""
    return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def unpermute(w, n_head):
    return w.reshape(n_head, w.shape[0] // n_head // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def gguf_name(hf, family):
    """The GGUF tensor name of a Hugging Face tensor name."""
    if hf == "model.embed_tokens.weight":
        return "token_embd.weight"
    if hf == "model.norm.weight":
        return "output_norm.weight"
    if hf == "lm_head.weight":
        return "output.weight"
    parts = hf.split(".")  # model.layers.N.<module...>.<weight|bias>
    n, module, kind = parts[2], ".".join(parts[3:-1]), parts[-1]
    gemma2 = family in ("gemma2", "gemma3_text")
    names = {"input_layernorm": "attn_norm", "self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k",
             "self_attn.v_proj": "attn_v", "self_attn.o_proj": "attn_output", "self_attn.qkv_proj": "attn_qkv",
             "self_attn.q_norm": "attn_q_norm", "self_attn.k_norm": "attn_k_norm",
             "post_attention_layernorm": "post_attention_norm" if gemma2 else "ffn_norm",
             "pre_feedforward_layernorm": "ffn_norm", "post_feedforward_layernorm": "post_ffw_norm",
             "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up", "mlp.down_proj": "ffn_down", "mlp.gate_up_proj": "ffn_up"}
    return "blk.%s.%s.%s" % (n, names[module], kind)


def head_dim(cfg):
    return cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]


def llama3_rope_freqs(cfg):
    """convert_hf_to_gguf.py LlamaModel.generate_extra_tensors: Llama 3 scaling as per-frequency divisors."""
    rs, dim, base = cfg["rope_scaling"], head_dim(cfg), cfg.get("rope_theta", 10000.0)
    freqs = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
    factor, lo, hi, old = rs["factor"], rs["low_freq_factor"], rs["high_freq_factor"], rs["original_max_position_embeddings"]
    low_wavelen, high_wavelen = old / lo, old / hi
    out = []
    for f in freqs:
        wavelen = 2 * math.pi / f
        if wavelen < high_wavelen:
            out.append(1.0)
        elif wavelen > low_wavelen:
            out.append(factor)
        else:
            smooth = (old / wavelen - lo) / (hi - lo)
            out.append(1 / ((1 - smooth) / factor + smooth))
    return np.array(out, dtype=np.float32)


def matrix_type(qtype, cols):
    """The type a matrix row of `cols` values is stored in: qtype, else Q8_0, else F16 (llama-quantize's fallbacks)."""
    if cols % ggml_quantize.BLOCK[qtype] == 0:
        return qtype
    return "Q8_0" if cols % 32 == 0 else "F16"


# ---------------------------------------------------------------- tokenizers as GGUF metadata

def add_spm_tokenizer(w, folder):
    """The folder's SentencePiece-style BPE tokenizer.json as tokenizer.ggml.model "llama": pieces in id
    order, the piece a merge makes scored -rank (SentencePiece merges the best-scored piece first, so
    the merges apply in the folder's order), specials CONTROL (<unk> UNKNOWN), <0xHH> BYTE."""
    tj = json.load(open(os.path.join(folder, "tokenizer.json"), encoding="utf-8"))
    vocab = tj["model"]["vocab"]
    pieces = [None] * len(vocab)
    for p, i in vocab.items():
        pieces[i] = p
    score = {}
    for rank, m in enumerate(tj["model"]["merges"]):
        a, b = m.split(" ")
        score.setdefault(a + b, -float(rank))
    specials = {t["content"] for t in tj["added_tokens"]}
    types = [UNKNOWN if p == "<unk>" else CONTROL if p in specials else BYTE if p.startswith("<0x") and len(p) == 6 else NORMAL
             for p in pieces]
    scores = [score.get(p, -1000.0) if t == NORMAL else 0.0 for p, t in zip(pieces, types)]
    bos = next(iter(tj["post_processor"]["special_tokens"].values()))["ids"][0]
    gemma_style = tj["normalizer"] is not None and tj["normalizer"].get("type") == "Replace"
    w.add_string("tokenizer.ggml.model", "llama")
    w.add_array("tokenizer.ggml.tokens", STRING, pieces)
    w.add_array("tokenizer.ggml.scores", FLOAT32, scores)
    w.add_array("tokenizer.ggml.token_type", INT32, types)
    w.add("tokenizer.ggml.bos_token_id", UINT32, bos)
    w.add("tokenizer.ggml.unknown_token_id", UINT32, pieces.index("<unk>"))
    w.add("tokenizer.ggml.add_bos_token", BOOL, True)
    w.add("tokenizer.ggml.add_space_prefix", BOOL, not gemma_style)


def add_bytelevel_tokenizer(w, files, pre, add_bos):
    """GPT-2's vocabulary and merges as tokenizer.ggml.model "gpt2" with pre-tokenizer `pre`."""
    vocab = json.load(open(files[0], encoding="utf-8"))
    tokens = [None] * len(vocab)
    for p, i in vocab.items():
        tokens[i] = p
    merges = [l for l in open(files[1], encoding="utf-8").read().split("\n")[1:] if l.strip()]
    w.add_string("tokenizer.ggml.model", "gpt2")
    w.add_string("tokenizer.ggml.pre", pre)
    w.add_array("tokenizer.ggml.tokens", STRING, tokens)
    w.add_array("tokenizer.ggml.token_type", INT32, [CONTROL if t == "<|endoftext|>" else NORMAL for t in tokens])
    w.add_array("tokenizer.ggml.merges", STRING, merges)
    w.add("tokenizer.ggml.bos_token_id", UINT32, 50256)
    w.add("tokenizer.ggml.eos_token_id", UINT32, 50256)
    w.add("tokenizer.ggml.add_bos_token", BOOL, add_bos)


# ---------------------------------------------------------------- conversion

def convert(weights, cfg, qtype, add_tokenizer, path):
    """Writes the GGUF file of `weights` (HF names -> float64 tensors) and returns the HF-named
    float64 weights it encodes (dequantized by the oracle, permutation undone)."""
    family = cfg["model_type"]
    arch = ARCH[family]
    d, H, G, L = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["num_hidden_layers"]
    dh = head_dim(cfg)
    rotary = int(dh * cfg.get("partial_rotary_factor", 1.0))
    w = GGUFWriter()
    k = lambda name: arch + "." + name  # noqa: E731
    w.add_string("general.architecture", arch)
    w.add_string("general.name", "tiny-" + family)
    w.add_uint32(k("context_length"), cfg["max_position_embeddings"])
    w.add_uint32(k("embedding_length"), d)
    w.add_uint32(k("block_count"), L)
    w.add_uint32(k("feed_forward_length"), cfg["intermediate_size"])
    w.add_uint32(k("attention.head_count"), H)
    w.add_uint32(k("attention.head_count_kv"), G)
    if cfg.get("head_dim"):
        w.add_uint32(k("attention.key_length"), dh)
        w.add_uint32(k("attention.value_length"), dh)
    w.add_uint32(k("rope.dimension_count"), rotary)
    w.add(k("attention.layer_norm_rms_epsilon"), FLOAT32, cfg["rms_norm_eps"])
    w.add(k("rope.freq_base"), FLOAT32, cfg.get("rope_theta", 10000.0))
    extra = {}
    rs = cfg.get("rope_scaling") or {}
    kind = rs.get("rope_type", rs.get("type"))
    if kind == "linear":
        w.add_string(k("rope.scaling.type"), "linear")
        w.add(k("rope.scaling.factor"), FLOAT32, rs["factor"])
    elif kind == "yarn":
        w.add_string(k("rope.scaling.type"), "yarn")
        w.add(k("rope.scaling.factor"), FLOAT32, rs["factor"])
        w.add_uint32(k("rope.scaling.original_context_length"), rs.get("original_max_position_embeddings") or cfg["max_position_embeddings"])
    elif kind == "llama3":
        extra["rope_freqs.weight"] = llama3_rope_freqs(cfg)
    elif kind in ("longrope", "su"):
        orig = cfg["original_max_position_embeddings"]
        scale = cfg["max_position_embeddings"] / orig
        w.add(k("rope.scaling.attn_factor"), FLOAT32, math.sqrt(1 + math.log(scale) / math.log(orig)) if scale > 1 else 1.0)
        w.add_uint32(k("rope.scaling.original_context_length"), orig)
        extra["rope_factors_long.weight"] = np.array(rs["long_factor"], dtype=np.float32)
        extra["rope_factors_short.weight"] = np.array(rs["short_factor"], dtype=np.float32)
    elif kind is not None:
        raise ValueError("no GGUF form for rope_scaling " + kind)
    if family in ("mistral", "phi3", "gemma2", "gemma3_text") and cfg.get("sliding_window"):
        w.add_uint32(k("attention.sliding_window"), cfg["sliding_window"])
    if family == "gemma2":
        w.add(k("attn_logit_softcapping"), FLOAT32, cfg["attn_logit_softcapping"])
        w.add(k("final_logit_softcapping"), FLOAT32, cfg["final_logit_softcapping"])
    add_tokenizer(w)

    encoded = {}
    for name, t in weights.items():
        if family.startswith("gemma") and name == "lm_head.weight":
            continue
        a = t.numpy().astype(np.float32)
        if arch == "llama" and (".q_proj." in name or ".k_proj." in name):
            a = permute(a, H if ".q_proj." in name else G)
        if family.startswith("gemma") and name.endswith("norm.weight"):
            a = a + np.float32(1)  # GemmaModel.modify_tensors: the norms' 1 + w
        gname = gguf_name(name, family)
        typ = "F32" if a.ndim == 1 else matrix_type(qtype, a.shape[-1])
        raw = ggml_quantize.quantize(typ, a)
        w.add_tensor(gname, list(reversed(a.shape)), typ, raw)
        back = ggml_dequant.dequantize(typ, raw, a.size).reshape(a.shape)
        if arch == "llama" and (".q_proj." in name or ".k_proj." in name):
            back = unpermute(back, H if ".q_proj." in name else G)
        if family.startswith("gemma") and name.endswith("norm.weight"):
            back = back - np.float32(1)  # the twin folder's loader adds 1 again in float32: the file's value
        encoded[name] = torch.from_numpy(back.astype(np.float64))
    for name, a in extra.items():
        w.add_tensor(name, [a.size], "F32", a.astype("<f4").tobytes())
    w.write(path)
    return encoded


def gguf_config(cfg):
    """What a GGUF file implies for the config: float32 Gemma embedding scale, query_pre_attn_scalar
    = head_dim (llama.cpp outside the 27B models), Qwen without use_sliding_window."""
    c = dict(cfg, torch_dtype="float32")
    if c["model_type"] in ("gemma2", "gemma3_text"):
        c["query_pre_attn_scalar"] = head_dim(c)
    if c["model_type"] in ("qwen2", "qwen3"):
        c["use_sliding_window"] = False
    return c


# ---------------------------------------------------------------- comparison

def run_cli(cli, model, sentence, generate=0):
    cmd = [cli, "maps", "--model", model, "--json", "-", "--sentence", sentence]
    if generate:
        cmd += ["--generate", str(generate)]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        raise RuntimeError("%s: headscope-cli failed: %s" % (os.path.basename(model), proc.stderr.decode().strip()))
    return json.loads(proc.stdout)


def mean_row_distance(a, b):
    """Mean over layers, heads and queries of the total variation 0.5 sum_k |a - b| of two rows (0..1)."""
    return float(np.mean([0.5 * np.abs(np.asarray(x, dtype=np.float64) - np.asarray(y, dtype=np.float64)).sum(-1).mean()
                          for x, y in zip(a, b)]))


def max_map_difference(a, b):
    """(largest |a - b| over every map cell, (layer, head, query, key))."""
    worst, cell = 0.0, None
    for l, (x, y) in enumerate(zip(a, b)):
        err = np.abs(np.asarray(x, dtype=np.float64) - np.asarray(y, dtype=np.float64))
        h, i, j = np.unravel_index(np.argmax(err), err.shape)
        if err[h, i, j] >= worst:
            worst, cell = float(err[h, i, j]), (l, int(h), int(i), int(j))
    return worst, cell


class Checker:
    def __init__(self, cli, out):
        self.cli, self.out, self.ok, self.worst = cli, out, True, {}

    def fail(self, message):
        print("  FAILED: " + message)
        self.ok = False

    def case(self, name, cfg, seed, make_tokenizer, add_tokenizer, sentence, qtypes, generate=0):
        """make_tokenizer(folder) writes tokenizer.json; add_tokenizer(writer, folder) its GGUF form."""
        base = os.path.join(self.out, name)
        os.makedirs(base)
        make_tokenizer(base)
        weights = fam.make_folder(base, cfg, seed, "F32")
        if cfg["model_type"] == "llama" and cfg.get("attention_bias"):
            # make_folder writes no biases for llama: add q/k/v/o biases (the q and k ones are permuted in the file too).
            g = torch.Generator().manual_seed(seed + 1000)
            d, H, G = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
            for l in range(cfg["num_hidden_layers"]):
                for proj, n in (("q", H * head_dim(cfg)), ("k", G * head_dim(cfg)), ("v", G * head_dim(cfg)), ("o", d)):
                    b = torch.randn(n, generator=g, dtype=torch.float64).float() * 0.3
                    weights["model.layers.%d.self_attn.%s_proj.bias" % (l, proj)] = b.double()
            save_weights(base, {n: t.float() for n, t in weights.items()}, "F32")
        if cfg["hidden_size"] > 32:
            # make_folder's spreads suit hidden 32; wider rows sum more terms: scale the matrices by
            # sqrt(32 / hidden) so scores and maps are as varied as the small models' (not one-hot).
            s = math.sqrt(32.0 / cfg["hidden_size"])
            weights = {n: (t * s if t.dim() == 2 and n != "model.embed_tokens.weight" else t).float().double()
                       for n, t in weights.items()}
            save_weights(base, {n: t.float() for n, t in weights.items()}, "F32")
        float_run = run_cli(self.cli, base, sentence)
        forward = FORWARD[cfg["model_type"]]
        for qtype in qtypes:
            label = "%s %s" % (name, qtype)
            path = os.path.join(self.out, "%s-%s.gguf" % (name, qtype))
            encoded = convert(weights, cfg, qtype, lambda w: add_tokenizer(w, base), path)
            twin_cfg = gguf_config(cfg)
            twin = os.path.join(self.out, "%s-%s-twin" % (name, qtype))
            os.makedirs(twin)
            shutil.copy(os.path.join(base, "tokenizer.json"), twin)
            json.dump(twin_cfg, open(os.path.join(twin, "config.json"), "w"), indent=1)
            save_weights(twin, {n: t.float() for n, t in encoded.items()}, "F32")
            got = run_cli(self.cli, path, sentence, generate)
            want = run_cli(self.cli, twin, sentence, generate)
            if got["token_ids"] != want["token_ids"]:
                self.fail("%s: token ids differ from the folder's\n    gguf   %s\n    folder %s" % (label, got["token_ids"], want["token_ids"]))
                continue
            diff, cell = max_map_difference(got["attention"], want["attention"])
            if diff > TIGHT:
                self.fail("%s: attention[layer %d][head %d][query %d][key %d] differs from the folder's by %.3g (tolerance %g)"
                          % ((label,) + cell + (diff, TIGHT)))
            # The family's float64 PyTorch forward on the weights the file encodes.
            ref_maps, ref_logits = forward(encoded, twin_cfg, got["token_ids"])
            ref_diff, ref_cell = max_map_difference(got["attention"], [m.numpy() for m in ref_maps])
            if ref_diff > fam.TOL:
                self.fail("%s: attention[layer %d][head %d][query %d][key %d] differs from the PyTorch reference by %.3g (tolerance %g)"
                          % ((label,) + ref_cell + (ref_diff, fam.TOL)))
            top = torch.topk(ref_logits, 2, dim=-1)
            for i, nxt in enumerate(got["next_token_ids"]):
                margin = float(top.values[i, 0] - top.values[i, 1])
                if margin > 1e-3 and nxt != int(top.indices[i, 0]):
                    self.fail("%s: next token after position %d is %d; the reference's is %d (margin %.3g)"
                              % (label, i, nxt, int(top.indices[i, 0]), margin))
                    break
            quant = ""
            if qtype != "F32" and not generate:
                # What the quantization itself does to the maps: the mean total variation between a
                # query's rows (0: same, 1: disjoint), bounded per type; and the largest cell.
                moved = mean_row_distance(got["attention"], float_run["attention"])
                cell, _ = max_map_difference(got["attention"], float_run["attention"])
                quant = ", vs float folder: mean row distance %.3g (bound %g), largest cell %.3g" % (moved, BOUND[qtype], cell)
                w, wc = self.worst.get(qtype, (0.0, 0.0))
                self.worst[qtype] = (max(w, moved), max(wc, cell))
                if moved > BOUND[qtype]:
                    self.fail("%s: quantized maps moved %.3g (mean row distance) from the float folder's (bound %g)" % (label, moved, BOUND[qtype]))
            print("%-22s %3d tokens%s: vs twin folder %.3g, vs PyTorch %.3g%s" % (
                label, len(got["token_ids"]), " (+%d generated)" % generate if generate else "", diff, ref_diff, quant))


def wide(family, vocab, **kw):
    """Rows of 256 (and 512) values, so K-quants apply to every matrix."""
    return fam.config(family, vocab, **dict(dict(hidden_size=256, intermediate_size=512, num_hidden_layers=2,
                                                 num_attention_heads=4, num_key_value_heads=2), **kw))


def main():
    cli, out, models = sys.argv[1], sys.argv[2], os.environ.get("HEADSCOPE_MODELS_DIR") or sys.argv[3]
    torch.set_grad_enabled(False)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    c = Checker(cli, out)
    S = fam.SENTENCE

    def spm(style):
        n = {}

        def make(folder):
            n["pieces"], n["encode"] = fam.sentencepiece_tokenizer(folder, style)
        return make, n

    def spm_case(name, style, cfg_fn, seed, qtypes, generate=0, sentence=S):
        make, n = spm(style)
        probe = os.path.join(out, ".probe-" + name)
        os.makedirs(probe)
        make(probe)  # the vocabulary size the config needs
        shutil.rmtree(probe)
        c.case(name, cfg_fn(n["pieces"]), seed, make, add_spm_tokenizer, sentence, qtypes, generate)

    # --- small models (hidden 32): the families' options, F32 and the block-32 types
    spm_case("llama-linear", "llama", lambda n: fam.config("llama", n + 3, rope_scaling={"rope_type": "linear", "factor": 4.0},
                                                           hidden_act="silu"), 16, ["F32", "F16"])
    spm_case("llama-yarn", "llama", lambda n: fam.config("llama", n + 3, hidden_act="silu", attention_bias=True,
                                                         rope_scaling={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 16}),
             21, ["F32", "BF16"])
    spm_case("mistral", "metaspace", lambda n: fam.config("mistral", n + 3, num_key_value_heads=1, head_dim=12, sliding_window=4),
             11, ["F32", "Q8_0"])
    spm_case("phi3", "llama", lambda n: fam.config(
        "phi3", n + 3, num_key_value_heads=2, partial_rotary_factor=0.5, sliding_window=6, max_position_embeddings=32,
        original_max_position_embeddings=8, hidden_act="silu",
        rope_scaling={"type": "longrope", "short_factor": [1.0, 1.3], "long_factor": [3.0, 7.0]}), 12, ["F32", "Q8_0"])
    spm_case("phi3-generate", "llama", lambda n: fam.config(
        "phi3", n + 3, num_key_value_heads=2, partial_rotary_factor=0.5, sliding_window=6, max_position_embeddings=32,
        original_max_position_embeddings=8, hidden_act="silu",
        rope_scaling={"type": "longrope", "short_factor": [1.0, 1.3], "long_factor": [3.0, 7.0]}), 12, ["Q8_0"], 10, "the cat")
    spm_case("gemma", "gemma", lambda n: fam.config("gemma", n + 2, num_attention_heads=2, num_key_value_heads=1, head_dim=256,
                                                    tie_word_embeddings=True, bos_token_id=2, eos_token_id=1,
                                                    hidden_activation="gelu_pytorch_tanh"), 13, ["F32", "Q8_0"])
    spm_case("gemma2", "gemma", lambda n: fam.config("gemma2", n + 2, head_dim=16, tie_word_embeddings=True, bos_token_id=2,
                                                     eos_token_id=1, hidden_activation="gelu_pytorch_tanh", query_pre_attn_scalar=16,
                                                     sliding_window=4, attn_logit_softcapping=1.5, final_logit_softcapping=4.0),
             14, ["F32", "F16"])
    spm_case("gemma3", "gemma", lambda n: fam.config("gemma3_text", n + 2, num_hidden_layers=7, head_dim=16, tie_word_embeddings=True,
                                                     bos_token_id=2, eos_token_id=1, hidden_activation="gelu_pytorch_tanh",
                                                     query_pre_attn_scalar=16, sliding_window=4, sliding_window_pattern=6,
                                                     rope_theta=1000000.0, rope_local_base_freq=10000.0,
                                                     rope_scaling={"rope_type": "linear", "factor": 8.0}), 15, ["F32"])

    # --- wide models (hidden 256): K-quants and Q4_0 on every matrix
    spm_case("llama-wide", "llama", lambda n: wide("llama", n + 3, hidden_act="silu"), 31, ["Q4_K", "Q6_K", "Q4_0"])
    spm_case("qwen2-wide", "llama", lambda n: wide("qwen2", n + 3, tie_word_embeddings=True, hidden_act="silu"), 32, ["Q4_K"])
    spm_case("qwen3-wide", "llama", lambda n: wide("qwen3", n + 3, head_dim=64, hidden_act="silu"), 33, ["Q6_K"])
    spm_case("phi3-wide", "llama", lambda n: wide("phi3", n + 3, hidden_act="silu", sliding_window=8), 34, ["Q4_K"])
    spm_case("gemma2-wide", "gemma", lambda n: wide("gemma2", n + 2, num_attention_heads=2, num_key_value_heads=1, head_dim=128,
                                                    tie_word_embeddings=True, bos_token_id=2, eos_token_id=1,
                                                    hidden_activation="gelu_pytorch_tanh", query_pre_attn_scalar=128,
                                                    sliding_window=4, attn_logit_softcapping=20.0, final_logit_softcapping=10.0),
             35, ["Q6_K"])
    spm_case("gemma3-wide", "gemma", lambda n: wide("gemma3_text", n + 2, head_dim=64, tie_word_embeddings=True, bos_token_id=2,
                                                    eos_token_id=1, hidden_activation="gelu_pytorch_tanh", query_pre_attn_scalar=64,
                                                    sliding_window=4, sliding_window_pattern=6, rope_local_base_freq=10000.0),
             36, ["Q4_K"])

    files = gpt2_files(models)
    if not files:
        print("SKIP the byte-level cases (llama3, qwen2, qwen3): %s/gpt2-tokenizer not found (set HEADSCOPE_MODELS_DIR)" % models)
    else:
        B = fam.BYTE_SENTENCE
        c.case("llama3", fam.config("llama", 50257, num_key_value_heads=1, head_dim=16, tie_word_embeddings=True,
                                    bos_token_id=50256, eos_token_id=50256, hidden_act="silu", rope_theta=10000.0,
                                    rope_scaling={"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0,
                                                  "high_freq_factor": 4.0, "original_max_position_embeddings": 64}),
               19, lambda f: fam.bytelevel_tokenizer(f, files, fam.LLAMA3_SPLIT, bos=50256),
               lambda w, f: add_bytelevel_tokenizer(w, files, "llama-bpe", True), B, ["F32", "Q8_0"])
        c.case("qwen2", fam.config("qwen2", 50257, hidden_size=48, num_attention_heads=6, num_key_value_heads=2,
                                   rope_theta=1000000.0, tie_word_embeddings=True, hidden_act="silu"),
               17, lambda f: fam.bytelevel_tokenizer(f, files, fam.QWEN2_SPLIT),
               lambda w, f: add_bytelevel_tokenizer(w, files, "qwen2", False), B, ["F32", "F16"])
        c.case("qwen3", fam.config("qwen3", 50257, head_dim=16, rope_theta=1000000.0, attention_bias=False, hidden_act="silu",
                                   rope_scaling={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 16}),
               18, lambda f: fam.bytelevel_tokenizer(f, files, fam.QWEN2_SPLIT),
               lambda w, f: add_bytelevel_tokenizer(w, files, "qwen2", False), B, ["F32"])

    print("quantized vs float folder, per type (largest mean row distance / largest cell): " +
          ", ".join("%s %.3g / %.3g" % (t, v[0], v[1]) for t, v in sorted(c.worst.items())))
    return 0 if c.ok else 1


if __name__ == "__main__":
    sys.exit(main())
