#!/usr/bin/python3
"""Writes the GGUF files the C++ GGUF tests read, into OUTDIR (the build tree; never committed).
CTest runs it first as the fixture `formats.gguf_test_files`:

    make_gguf_test_files.py OUTDIR [MODELS_DIR]

- types.gguf + expected_<TYPE>.npy: one tensor per readable GGML type (random quantized bytes,
  finite half scales) and its float32 values from the numpy oracle (ggml_dequant.py); plus
  tensors of types headscope must refuse by name (IQ2_XXS, Q8_1, TQ1_0, I32, F64).
- metadata_v2.gguf, metadata_v3.gguf: every metadata value type, arrays, nested arrays.
- aligned_64.gguf, aligned_1.gguf: general.alignment other than the default 32.
- matrices.gguf: a 70 x 512 matrix of each readable type (QuantizedMatrix tests).
- malformed/*.gguf + malformed.json: broken files, each with a phrase its FormatError must contain.
- gpt2.gguf (from MODELS_DIR/gpt2-tokenizer) and tok512.gguf (from MODELS_DIR/stories260K/tok512.bin),
  written as llama.cpp's converter writes them, when those files exist; stories260K_f32.gguf,
  stories260K_q8_0.gguf and stories260K_q4_0.gguf: the whole stories260K checkpoint under
  llama.cpp's tensor names.
- refuse_*.gguf: stories260K with one thing the GGUF loader must refuse by name (architecture,
  tensor type, missing tensor, mixture of experts, RoPE scaling type, per-layer head counts).
- bpe_<pre>.gguf, spm_small.gguf: small tokenizers for the pre-tokenizer and SentencePiece rules.
"""
import json
import os
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ggml_dequant  # noqa: E402
import ggml_quantize  # noqa: E402
from gguf_writer import (ARRAY, BOOL, FLOAT32, FLOAT64, INT8, INT16, INT32, INT64, STRING, UINT8,  # noqa: E402
                         UINT16, UINT32, UINT64, Array, GGML_TYPES, GGUFWriter)

READABLE = ["F32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K"]
REFUSED = ["IQ2_XXS", "Q8_1", "TQ1_0", "I32", "F64"]


def quantized(type_name, rows, cols, rng, specials=False):
    block, _ = ggml_dequant.LAYOUTS[type_name]
    return ggml_dequant.random_blocks(type_name, rows * cols // block, rng, specials)


def write_types(out, rng):
    w = GGUFWriter()
    w.add_string("general.architecture", "llama")
    for t in READABLE:
        block = ggml_dequant.LAYOUTS[t][0]
        cols = 512 if block == 256 else 96 if block == 32 else 40
        rows = 3 if block == 256 else 5 if block == 32 else 7
        if t == "F16":
            rows = 1024 // cols + 1  # enough random halves to hit subnormals and infinities
        raw = quantized(t, rows, cols, rng, specials=True)
        w.add_tensor("t." + t, [cols, rows], t, raw)
        np.save(os.path.join(out, "expected_%s.npy" % t), ggml_dequant.dequantize(t, raw, rows * cols).reshape(rows, cols))
    for t in REFUSED:
        _, block, size = GGML_TYPES[t]
        cols = max(block, 32)
        w.add_tensor("t." + t, [cols, 2], t, rng.integers(0, 256, 2 * cols // block * size, dtype=np.uint8).tobytes())
    w.write(os.path.join(out, "types.gguf"))


def metadata_writer(version):
    w = GGUFWriter(version=version)
    w.add_string("general.architecture", "llama")
    w.add("t.u8", UINT8, 200)
    w.add("t.i8", INT8, -100)
    w.add("t.u16", UINT16, 60000)
    w.add("t.i16", INT16, -30000)
    w.add("t.u32", UINT32, 4000000000)
    w.add("t.i32", INT32, -2000000000)
    w.add("t.f32", FLOAT32, 0.15625)
    w.add("t.bool", BOOL, True)
    w.add("t.string", STRING, "h\u00e9llo w\u00f6rld \u2713")
    w.add("t.u64", UINT64, 2 ** 63 + 5)
    w.add("t.u64_small", UINT64, 12345678901234)
    w.add("t.i64", INT64, -(2 ** 62))
    w.add("t.f64", FLOAT64, -2.5e-300)
    w.add("t.empty_string", STRING, "")
    w.add_array("t.arr.u8", UINT8, [0, 1, 255])
    w.add_array("t.arr.i32", INT32, [-1, 0, 7])
    w.add_array("t.arr.f32", FLOAT32, [1.5, -0.25])
    w.add_array("t.arr.bool", BOOL, [True, False, True])
    w.add_array("t.arr.str", STRING, ["a", "", "\u00df\u2713"])
    w.add_array("t.arr.u64", UINT64, [1, 2 ** 64 - 1])
    w.add_array("t.arr.f64", FLOAT64, [0.1])
    w.add_array("t.arr.empty", INT32, [])
    w.add_array("t.arr.nested", ARRAY, [Array(STRING, ["x", "y"]), Array(STRING, []), Array(STRING, ["z"])])
    w.add_array("t.arr.nested_int", ARRAY, [Array(INT16, [1, 2]), Array(INT16, [3])])
    w.add_f32("weight", np.arange(6, dtype=np.float32).reshape(2, 3))
    return w


def write_metadata(out):
    for version in (2, 3):
        metadata_writer(version).write(os.path.join(out, "metadata_v%d.gguf" % version))


def write_alignment(out, rng):
    for alignment in (64, 1):
        w = GGUFWriter(alignment=alignment)
        w.add_string("general.architecture", "llama")
        w.add_f32("a", np.arange(15, dtype=np.float32).reshape(3, 5))   # 60 bytes: the next offset is not 32-aligned
        w.add_f32("b", np.arange(6, dtype=np.float32).reshape(2, 3) * -1)
        w.add_tensor("q", [64, 3], "Q8_0", quantized("Q8_0", 3, 64, rng))
        w.write(os.path.join(out, "aligned_%d.gguf" % alignment))


def write_matrices(out, rng):
    w = GGUFWriter()
    w.add_string("general.architecture", "llama")
    for t in READABLE:
        w.add_tensor("w." + t, [512, 70], t, quantized(t, 70, 512, rng))
    w.add_tensor("w.IQ2_XXS", [256, 2], "IQ2_XXS", bytes(2 * 66))
    w.add_tensor("w.3d", [32, 2, 2], "F32", bytes(4 * 128))
    w.add_tensor("w.empty", [512, 0], "F32", b"")
    w.write(os.path.join(out, "matrices.gguf"))


def write_malformed(out, rng):
    folder = os.path.join(out, "malformed")
    os.makedirs(folder, exist_ok=True)
    cases = []

    def base(version=3, extra=None, tensors=None):
        w = GGUFWriter(version=version)
        w.add_string("general.architecture", "llama")
        w.add_array("tokenizer.ggml.tokens", STRING, ["<unk>", "a", "b"])
        w.add("flag", BOOL, True)
        for key, vtype, value in extra or []:
            w.add(key, vtype, value)
        for name, dims, t, data in tensors if tensors is not None else [
                ("first", [32, 2], "Q8_0", quantized("Q8_0", 2, 32, rng)),
                ("second", [4, 3], "F32", np.arange(12, dtype="<f4").tobytes())]:
            w.add_tensor(name, dims, t, data)
        data = bytearray(w.to_bytes())
        return w, data

    def case(name, data, expect):
        with open(os.path.join(folder, name + ".gguf"), "wb") as f:
            f.write(bytes(data))
        cases.append({"file": "malformed/%s.gguf" % name, "expect": expect})

    def patched(name, at, fmt, value, expect, w_data=None):
        w, data = w_data or base()
        struct.pack_into(fmt, data, at(w.layout), value)
        case(name, data, expect)

    w, data = base()
    with open(os.path.join(folder, "valid.gguf"), "wb") as f:  # the file the others break
        f.write(bytes(data))
    case("bad_magic", b"GGUX" + data[4:], "not a GGUF file")
    case("empty", b"", "not a GGUF file")
    patched("version_1", lambda l: l["version"], "<I", 1, "version 1 is not supported")
    patched("version_4", lambda l: l["version"], "<I", 4, "GGUF version 4 is not supported")
    patched("big_endian", lambda l: l["version"], ">I", 3, "big-endian")
    patched("kv_count_huge", lambda l: l["kv_count"], "<Q", 2 ** 62, "metadata count")
    patched("tensor_count_huge", lambda l: l["tensor_count"], "<Q", 2 ** 60, "tensor count")
    patched("key_length_huge", lambda l: l["kv"][0]["at"], "<Q", 2 ** 63, "has length")
    patched("value_type_bad", lambda l: l["kv"][0]["type_at"], "<I", 13, "expected a GGUF value type")
    patched("array_type_bad", lambda l: l["kv"][1]["value_at"], "<I", 77, "expected a GGUF value type")
    patched("array_count_huge", lambda l: l["kv"][1]["value_at"] + 4, "<Q", 2 ** 40, "claims")
    patched("array_string_huge", lambda l: l["kv"][1]["value_at"] + 12, "<Q", 2 ** 50, "has length")
    patched("bool_bad", lambda l: l["kv"][2]["value_at"], "<B", 2, "expected 0 or 1")
    patched("n_dims_5", lambda l: l["tensors"][0]["n_dims_at"], "<I", 5, "at most 4")
    patched("dims_overflow", lambda l: l["tensors"][0]["dims_at"] + 8, "<Q", 2 ** 61, "impossibly large")
    patched("dims_too_big", lambda l: l["tensors"][1]["dims_at"] + 8, "<Q", 2 ** 30, "more than the whole file")
    patched("unknown_type", lambda l: l["tensors"][0]["type_at"], "<I", 99, "not a GGML type")
    patched("removed_type", lambda l: l["tensors"][0]["type_at"], "<I", 4, "GGML removed")
    patched("block_mismatch", lambda l: l["tensors"][0]["dims_at"], "<Q", 48, "multiple of it")
    patched("misaligned_offset", lambda l: l["tensors"][1]["offset_at"], "<Q", 8, "not a multiple of the alignment")
    patched("offset_past_end", lambda l: l["tensors"][1]["offset_at"], "<Q", 2 ** 40, "data section")
    patched("offset_overlap", lambda l: l["tensors"][1]["offset_at"], "<Q", 32, "overlap")
    case("truncated_data", data[:-20], "is the file truncated?")
    case("truncated_header", data[:30], "truncated")

    _, d = base(tensors=[("zero", [0, 2 ** 40, 2 ** 40], "F32", b"")])
    case("zero_then_huge_dims", d, "impossibly large")
    _, d = base(extra=[("flag", BOOL, False)])
    case("duplicate_key", d, "appears twice")
    _, d = base(tensors=[("same", [4], "F32", bytes(16)), ("same", [4], "F32", bytes(16))])
    case("duplicate_tensor", d, "appears twice")
    for value, expect in ((0, "power of two"), (48, "power of two")):
        _, d = base(extra=[("general.alignment", UINT32, value)])
        case("alignment_%d" % value, d, expect)
    _, d = base(extra=[("general.alignment", STRING, "32")])
    case("alignment_string", d, "expected uint32")
    deep = Array(INT8, [1])
    for _ in range(6):
        deep = Array(ARRAY, [deep])
    _, d = base(extra=[("deep", ARRAY, deep)])
    case("arrays_too_deep", d, "deeper than")
    _, d = base(extra=[("many", ARRAY, Array(ARRAY, [Array(INT8, [])] * (2 ** 20 + 1)))])
    case("too_many_nested_arrays", d, "more than 1048576 elements")

    with open(os.path.join(out, "malformed.json"), "w") as f:
        json.dump(cases, f, indent=1)


# ---- tokenizers ----------------------------------------------------------------------------

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6


def gpt2_byte_alphabet():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\u00a1"), ord("\u00ac") + 1)) + \
        list(range(ord("\u00ae"), ord("\u00ff") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


def bpe_writer(pre, tokens, merges, types=None, bos=None, add_bos=None, eos=None):
    w = GGUFWriter()
    w.add_string("general.architecture", "gpt2" if pre == "gpt-2" else "llama")
    w.add_string("tokenizer.ggml.model", "gpt2")
    if pre is not None:
        w.add_string("tokenizer.ggml.pre", pre)
    w.add_array("tokenizer.ggml.tokens", STRING, tokens)
    w.add_array("tokenizer.ggml.token_type", INT32, types or [NORMAL] * len(tokens))
    w.add_array("tokenizer.ggml.merges", STRING, merges)
    if bos is not None:
        w.add("tokenizer.ggml.bos_token_id", UINT32, bos)
    if eos is not None:
        w.add("tokenizer.ggml.eos_token_id", UINT32, eos)
    if add_bos is not None:
        w.add("tokenizer.ggml.add_bos_token", BOOL, add_bos)
    return w


def write_gpt2(out, models):
    enc = os.path.join(models, "gpt2-tokenizer", "encoder.json")
    bpe = os.path.join(models, "gpt2-tokenizer", "vocab.bpe")
    if not (os.path.isfile(enc) and os.path.isfile(bpe)):
        return
    vocab = json.load(open(enc, encoding="utf-8"))
    tokens = [None] * len(vocab)
    for piece, i in vocab.items():
        tokens[i] = piece
    merges = [l for l in open(bpe, encoding="utf-8").read().split("\n")[1:] if l.strip()]
    types = [CONTROL if t == "<|endoftext|>" else NORMAL for t in tokens]
    eot = vocab["<|endoftext|>"]
    bpe_writer("gpt-2", tokens, merges, types, bos=eot, eos=eot, add_bos=False).write(os.path.join(out, "gpt2.gguf"))
    # The same vocabulary numbered backwards (id N-1-i): no merge's piece follows the previous
    # merge's, so the loader's sequential guess for merged pieces always misses.
    n = len(tokens)
    bpe_writer("gpt-2", tokens[::-1], merges, types[::-1], bos=n - 1 - eot, eos=n - 1 - eot,
               add_bos=False).write(os.path.join(out, "gpt2_reversed.gguf"))


def write_tok512(out, models):
    path = os.path.join(models, "stories260K", "tok512.bin")
    if not os.path.isfile(path):
        return
    raw = open(path, "rb").read()
    pos = 4
    tokens, scores = [], []
    for _ in range(512):
        score, n = struct.unpack_from("<fi", raw, pos)
        pos += 8
        tokens.append(raw[pos:pos + n])
        scores.append(score)
        pos += n
    # llama2.c's exporter wrote SentencePiece's pieces with "▁" turned into " " and <s>, </s> as
    # "\n<s>\n", "\n</s>\n"; llama.cpp's converter writes the pieces as SentencePiece has them.
    pieces, types = [], []
    for i, t in enumerate(tokens):
        s = t.decode("utf-8")
        if i == 0:
            pieces.append("<unk>"), types.append(UNKNOWN)
        elif i in (1, 2):
            pieces.append(s.strip()), types.append(CONTROL)
        elif s.startswith("<0x") and len(s) == 6:
            pieces.append(s), types.append(BYTE)
        else:
            pieces.append(s.replace(" ", "\u2581")), types.append(NORMAL)
    w = GGUFWriter()
    w.add_string("general.architecture", "llama")
    w.add_string("tokenizer.ggml.model", "llama")
    w.add_array("tokenizer.ggml.tokens", STRING, pieces)
    w.add_array("tokenizer.ggml.scores", FLOAT32, scores)
    w.add_array("tokenizer.ggml.token_type", INT32, types)
    w.add("tokenizer.ggml.bos_token_id", UINT32, 1)
    w.add("tokenizer.ggml.eos_token_id", UINT32, 2)
    w.add("tokenizer.ggml.unknown_token_id", UINT32, 0)
    w.add("tokenizer.ggml.add_bos_token", BOOL, True)
    w.add("tokenizer.ggml.add_eos_token", BOOL, False)
    w.write(os.path.join(out, "tok512.gguf"))


def quantize_q8_0(rows):
    """float32 [n, k] (k a multiple of 32) -> Q8_0 bytes, as GGML's reference quantizer:
    per block of 32, d = max|x| / 127 (stored as a half), q = x / d rounded half away from 0."""
    blocks = rows.astype(np.float32).reshape(-1, 32)
    d = np.abs(blocks).max(axis=1) / np.float32(127)
    inv = np.where(d == 0, np.float32(0), np.float32(1) / np.where(d == 0, np.float32(1), d))
    scaled = (blocks * inv[:, None]).astype(np.float64)  # roundf, exactly: |x| + 0.5 is exact in float64
    q = (np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)).astype(np.int8)
    out = np.empty((blocks.shape[0], 34), np.uint8)
    out[:, 0:2] = d.astype("<f2").view(np.uint8).reshape(-1, 2)
    out[:, 2:] = q.view(np.uint8)
    return out.tobytes()


def write_stories(out, models):
    """stories260K.bin (llama2.c, Meta's layout: RoPE on adjacent pairs, which is llama.cpp's
    layout for the llama architecture, so no Q/K row permutation) as GGUF files named the way
    llama.cpp names Llama weights: stories260K_f32.gguf, and stories260K_q8_0.gguf (_q4_0.gguf)
    with Q8_0 (Q4_0) wherever rows hold whole blocks of 32 (F16 elsewhere, as llama-quantize falls back)."""
    path = os.path.join(models, "stories260K", "stories260K.bin")
    tok_path = os.path.join(out, "tok512.gguf")
    if not (os.path.isfile(path) and os.path.isfile(tok_path)):
        return
    raw = open(path, "rb").read()
    dim, hidden, layers, heads, kv_heads, vocab, seq = struct.unpack_from("<7i", raw, 0)
    floats = np.frombuffer(raw, dtype="<f4", offset=28)
    dh = dim // heads
    pos = 0

    def take(*shape):
        nonlocal pos
        n = int(np.prod(shape))
        a = floats[pos:pos + n].reshape(shape)
        pos += n
        return a

    emb = take(abs(vocab), dim)
    rms_att = take(layers, dim)
    wq, wk, wv = take(layers, dim, dim), take(layers, kv_heads * dh, dim), take(layers, kv_heads * dh, dim)
    wo = take(layers, dim, dim)
    rms_ffn = take(layers, dim)
    w1, w2, w3 = take(layers, hidden, dim), take(layers, dim, hidden), take(layers, hidden, dim)
    rms_final = take(dim)
    tensors = [("token_embd.weight", emb), ("output_norm.weight", rms_final)]
    for i in range(layers):
        tensors += [("blk.%d.attn_norm.weight" % i, rms_att[i]), ("blk.%d.attn_q.weight" % i, wq[i]),
                    ("blk.%d.attn_k.weight" % i, wk[i]), ("blk.%d.attn_v.weight" % i, wv[i]),
                    ("blk.%d.attn_output.weight" % i, wo[i]), ("blk.%d.ffn_norm.weight" % i, rms_ffn[i]),
                    ("blk.%d.ffn_gate.weight" % i, w1[i]), ("blk.%d.ffn_down.weight" % i, w2[i]),
                    ("blk.%d.ffn_up.weight" % i, w3[i])]
    tok = open(tok_path, "rb").read()

    def writer(variant, arch="llama", drop=(), retype=None, extra=()):
        """The checkpoint as GGUF: F32 or Q8_0 matrices; `arch` written as general.architecture;
        tensors in `drop` left out; `retype` = (name, type) stores that tensor's bytes as another
        (random) type; `extra` metadata (key, type, value)."""
        w = GGUFWriter()
        w.add_string("general.architecture", arch)
        w.add_string("general.name", "stories260K")
        w.add_uint32("llama.context_length", seq)
        w.add_uint32("llama.embedding_length", dim)
        w.add_uint32("llama.block_count", layers)
        w.add_uint32("llama.feed_forward_length", hidden)
        w.add_uint32("llama.attention.head_count", heads)
        w.add_uint32("llama.attention.head_count_kv", kv_heads)
        w.add_uint32("llama.rope.dimension_count", dh)
        w.add("llama.attention.layer_norm_rms_epsilon", FLOAT32, 1e-5)
        w.add("llama.rope.freq_base", FLOAT32, 10000.0)
        for key, vtype, value in extra:
            w.kv = [kv for kv in w.kv if kv[0] != key]  # replaces a key written above
            w.add(key, vtype, value)
        copy_tokenizer(tok, w)
        for name, a in tensors:
            if name in drop:
                continue
            a = np.ascontiguousarray(a, dtype=np.float32)
            dims = list(reversed(a.shape))
            if retype and name == retype[0]:
                _, block, size = GGML_TYPES[retype[1]]
                w.add_tensor(name, dims, retype[1], bytes(a.size // block * size))
            elif variant == "f32" or a.ndim == 1:
                w.add_tensor(name, dims, "F32", a.tobytes())
            elif a.shape[-1] % 32 == 0 and variant == "q4_0":
                w.add_tensor(name, dims, "Q4_0", ggml_quantize.quantize("Q4_0", a))
            elif a.shape[-1] % 32 == 0:
                w.add_tensor(name, dims, "Q8_0", quantize_q8_0(a))
            else:
                w.add_tensor(name, dims, "F16", a.astype("<f2").tobytes())
        return w

    for variant in ("f32", "q8_0", "q4_0"):
        writer(variant).write(os.path.join(out, "stories260K_%s.gguf" % variant))
    # Files the GGUF loader must refuse, each naming what is wrong (tests/core/model/gguf_loader_test.cpp).
    writer("f32", arch="falcon").write(os.path.join(out, "refuse_arch.gguf"))
    writer("f32", retype=("blk.2.attn_k.weight", "IQ4_NL")).write(os.path.join(out, "refuse_type.gguf"))
    writer("f32", drop=("blk.3.ffn_down.weight",)).write(os.path.join(out, "refuse_missing.gguf"))
    writer("f32", extra=[("llama.expert_count", UINT32, 8)]).write(os.path.join(out, "refuse_moe.gguf"))
    writer("f32", extra=[("llama.rope.scaling.type", STRING, "longrope-ish"),
                         ("llama.rope.scaling.factor", FLOAT32, 4.0)]).write(os.path.join(out, "refuse_rope.gguf"))
    writer("f32", extra=[("llama.attention.head_count_kv", ARRAY, Array(UINT32, [4, 4, 2, 4, 4]))]).write(
        os.path.join(out, "refuse_layers.gguf"))


def copy_tokenizer(gguf_bytes, w):
    """Copies the tokenizer.* metadata of a GGUF file this writer made (tok512.gguf) into w."""
    pos = 24
    n_kv = struct.unpack_from("<Q", gguf_bytes, 16)[0]

    def read_string():
        nonlocal pos
        n = struct.unpack_from("<Q", gguf_bytes, pos)[0]
        s = gguf_bytes[pos + 8:pos + 8 + n]
        pos += 8 + n
        return s.decode("utf-8")

    def read_value(vtype):
        nonlocal pos
        if vtype == STRING:
            return read_string()
        if vtype == ARRAY:
            etype, count = struct.unpack_from("<IQ", gguf_bytes, pos)
            pos += 12
            return Array(etype, [read_value(etype) for _ in range(count)])
        fmt = {UINT8: "<B", INT8: "<b", UINT16: "<H", INT16: "<h", UINT32: "<I", INT32: "<i", FLOAT32: "<f",
               BOOL: "<B", UINT64: "<Q", INT64: "<q", FLOAT64: "<d"}[vtype]
        v = struct.unpack_from(fmt, gguf_bytes, pos)[0]
        pos += struct.calcsize(fmt)
        return v

    for _ in range(n_kv):
        key = read_string()
        vtype = struct.unpack_from("<I", gguf_bytes, pos)[0]
        pos += 4
        value = read_value(vtype)
        if key.startswith("tokenizer."):
            w.add(key, vtype, value)


def write_small_tokenizers(out):
    # Byte-level vocabulary: id b is byte b's character, then a few merged pieces whose ids show
    # how the pre-tokenizer split the text (the C++ test states the expected ids and why).
    alpha = gpt2_byte_alphabet()
    g = alpha[ord(" ")]
    base = [alpha[b] for b in range(256)]
    extra = ["12", "123", "45", "'s", g + "1", g + "12", "ab", "aB", "Ab", alpha[0xC2] + alpha[0xBD], g + "a",
             "xyz", "<|bos|>", "<|user|>"]
    tokens = base + extra
    merges = [g + " 1", g + "1 2", "1 2", "12 3", "4 5", "' s", "a b", "a B", "A b",
              alpha[0xC2] + " " + alpha[0xBD], g + " a"]  # "xyz" has no merge: only ignore_merges reaches it
    types = [NORMAL] * 256 + [NORMAL] * (len(extra) - 2) + [CONTROL, USER_DEFINED]
    bos = tokens.index("<|bos|>")
    for pre in ("default", "llama-bpe", "qwen2", "smollm", "gpt-2", "tekken", "mystery-pre"):
        bpe_writer(pre, tokens, merges, types, bos=bos).write(os.path.join(out, "bpe_%s.gguf" % pre))
    bpe_writer(None, tokens, merges, types, bos=bos).write(os.path.join(out, "bpe_missing_pre.gguf"))
    bpe_writer("gpt-2", tokens, merges, types, bos=bos, add_bos=True).write(os.path.join(out, "bpe_add_bos.gguf"))

    # SentencePiece: <unk> <s> </s>, bytes <0x00>..<0xFF>, then pieces with scores.
    pieces = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % b for b in range(256)]
    types = [UNKNOWN, CONTROL, CONTROL] + [BYTE] * 256
    scores = [0.0, 0.0, 0.0] + [0.0] * 256
    for p, s in (("\u2581", -1.0), ("a", -2.0), ("b", -3.0), ("\u2581a", -1.5), ("ab", -1.0), ("\u2581ab", -0.5),
                 ("c", -4.0), ("<tag>", 0.0)):
        pieces.append(p), scores.append(s), types.append(USER_DEFINED if p == "<tag>" else NORMAL)
    for name, extra in (("spm_small", []), ("spm_no_prefix", [("tokenizer.ggml.add_space_prefix", BOOL, False)]),
                        ("spm_eos", [("tokenizer.ggml.add_eos_token", BOOL, True)])):
        w = GGUFWriter()
        w.add_string("tokenizer.ggml.model", "llama")
        w.add_array("tokenizer.ggml.tokens", STRING, pieces)
        w.add_array("tokenizer.ggml.scores", FLOAT32, scores)
        w.add_array("tokenizer.ggml.token_type", INT32, types)
        for key, vtype, value in extra:
            w.add(key, vtype, value)
        w.write(os.path.join(out, name + ".gguf"))

    # Broken tokenizer metadata: each must be a FormatError naming the key.
    broken = {
        "tok_unknown_model": [("tokenizer.ggml.model", STRING, "wordpiece-ish")],
        "tok_scores_short": [("tokenizer.ggml.model", STRING, "llama"),
                             ("tokenizer.ggml.tokens", ARRAY, Array(STRING, ["<unk>", "a"])),
                             ("tokenizer.ggml.scores", ARRAY, Array(FLOAT32, [0.0]))],
        "tok_tokens_not_strings": [("tokenizer.ggml.model", STRING, "gpt2"),
                                   ("tokenizer.ggml.tokens", ARRAY, Array(INT32, [1, 2]))],
        "tok_duplicate": [("tokenizer.ggml.model", STRING, "gpt2"),
                          ("tokenizer.ggml.tokens", ARRAY, Array(STRING, ["a", "b", "a"])),
                          ("tokenizer.ggml.merges", ARRAY, Array(STRING, []))],
        "tok_bos_out_of_range": [("tokenizer.ggml.model", STRING, "llama"),
                                 ("tokenizer.ggml.tokens", ARRAY, Array(STRING, ["<unk>", "a"])),
                                 ("tokenizer.ggml.bos_token_id", UINT32, 7),
                                 ("tokenizer.ggml.add_bos_token", BOOL, True)],
        "tok_no_merges": [("tokenizer.ggml.model", STRING, "gpt2"), ("tokenizer.ggml.pre", STRING, "gpt-2"),
                          ("tokenizer.ggml.tokens", ARRAY, Array(STRING, ["a", "b"]))],
    }
    for name, kvs in broken.items():
        w = GGUFWriter()
        for key, vtype, value in kvs:
            w.add(key, vtype, value)
        w.write(os.path.join(out, name + ".gguf"))


def main():
    out = sys.argv[1]
    models = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "..", "..", "..", "build", "test-models")
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(20240516)
    write_types(out, rng)
    write_metadata(out)
    write_alignment(out, rng)
    write_matrices(out, rng)
    write_malformed(out, rng)
    write_gpt2(out, models)
    write_tok512(out, models)
    write_stories(out, models)
    write_small_tokenizers(out)
    print("GGUF test files written to", out)


if __name__ == "__main__":
    main()
