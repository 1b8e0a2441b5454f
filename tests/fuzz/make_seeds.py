#!/usr/bin/python3
"""Writes the small seed files for the checkpoint and tokenizer fuzz harnesses (committed; run
again only when a format changes), from the repository root:
    /usr/bin/python3 tests/fuzz/make_seeds.py
- tests/fuzz/hf_folder/: a tiny llama folder (tokenizer.json SentencePiece-style + BF16 weights);
  fuzz_hf_config mutates its config.json, copied into corpus/hf_config/.
- corpus/llama2c/: a tiny llama2.c checkpoint and tokenizer.bin, each behind the harness's
  selector byte(s).
- corpus/hf_tokenizer/: the tokenizer.json, and a GPT-2 style vocab.json + NUL + merges.txt.
- corpus/gguf/: GGUF files (tests/core/formats/gguf_writer.py): tensors of several types, a
  SentencePiece tokenizer, a byte-level BPE tokenizer.
"""
import json
import os
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "core", "pretrained"))
import hf_reference  # noqa: E402  (the same writers the oracle test uses)

corpus = os.path.join(HERE, "corpus")
folder = os.path.join(HERE, "hf_folder")
shutil.rmtree(folder, ignore_errors=True)
os.makedirs(folder)
hf_reference.sentencepiece_tokenizer(folder)
vocab = len(json.load(open(os.path.join(folder, "tokenizer.json"), encoding="utf-8"))["model"]["vocab"])
hf_reference.make_llama(folder, vocab, d=8, heads=2, kv_heads=1, layers=1, inter=8, positions=16)
for sub in ("hf_config", "llama2c", "hf_tokenizer"):
    os.makedirs(os.path.join(corpus, sub), exist_ok=True)
shutil.copy(os.path.join(folder, "config.json"), os.path.join(corpus, "hf_config", "llama.json"))
os.remove(os.path.join(folder, "config.json"))  # the harness writes its own

# llama2.c: dim 8, hidden 16, 1 layer, 2 heads, 1 key/value head, vocab 8, seq_len 4.
dim, hidden, layers, heads, kv, vocab2c, seq = 8, 16, 1, 2, 1, 8, 4
hs_ = dim // heads
floats = (vocab2c * dim + layers * dim + layers * dim * dim + 2 * layers * kv * hs_ * dim + layers * dim * dim
          + layers * dim + 3 * layers * hidden * dim + dim + 2 * seq * hs_ // 2)
ckpt = struct.pack("<7i", dim, hidden, layers, heads, kv, vocab2c, seq)
ckpt += struct.pack("<%df" % floats, *[((i * 37) % 17 - 8) / 40.0 for i in range(floats)])
open(os.path.join(corpus, "llama2c", "checkpoint.bin"), "wb").write(b"\x00" + ckpt)
pieces = [b"<unk>", b"\n<s>\n", b"\n</s>\n", b" ", b"a", b"b", b" a", b"ab"]
tok = struct.pack("<i", max(len(p) for p in pieces))
for i, p in enumerate(pieces):
    tok += struct.pack("<fi", -float(i), len(p)) + p
# selector byte 1 = tokenizer; vocab byte: 1 + b % 64 == 8  ->  b = 7
open(os.path.join(corpus, "llama2c", "tokenizer.bin"), "wb").write(b"\x01\x07" + tok)

open(os.path.join(corpus, "hf_tokenizer", "tokenizer.json"), "wb").write(
    b"\x01" + open(os.path.join(folder, "tokenizer.json"), "rb").read())
gpt2_vocab = {"!": 0, "a": 1, "b": 2, "\u0120": 3, "\u0120a": 4, "ab": 5}
open(os.path.join(corpus, "hf_tokenizer", "vocab_merges.bin"), "wb").write(
    b"\x00" + json.dumps(gpt2_vocab).encode() + b"\x00" + "#version: 0.2\n\u0120 a\na b\n".encode())

# corpus/flags/: argument vectors for fuzz_flags.cpp. Byte 0 is the run mode (3: long-input
# mode), then records: a flag byte (index into kFlags, +0x80 for "--name=value") and its value
# byte(s): an integer byte < 0x40 is b % 20 - 2, a sentence is a word count then word indices,
# a path is an index into the harness's fixed files.
SENTENCE, INPUT, D_MODEL, HEADS, KV_HEADS, D_HEAD, SEED, CAUSAL, SCRAMBLED, WINDOW, TEMPERATURE, WEIGHTS, MODEL, \
    TOKENIZER, GENERATE = range(15)
flag_seeds = {
    "synthetic.bin": [0, SENTENCE, 3, 0, 1, 2, HEADS, 4],
    "causal_window.bin": [0, SENTENCE, 4, 0, 1, 2, 3, CAUSAL, WINDOW, 4],
    "weights_input.bin": [0, WEIGHTS, 3, INPUT, 1, HEADS, 4],
    "llama2c.bin": [0, MODEL, 5, TOKENIZER, 6, SENTENCE, 1, 2, GENERATE, 3],
    "hf_folder_long_input.bin": [3, MODEL, 7, SENTENCE, 2, 0, 5],
    "grouped_joined.bin": [0, SENTENCE, 3, 0, 1, 2, 0x80 | D_MODEL, 14, 0x80 | HEADS, 6, 0x80 | KV_HEADS, 4,
                           0x80 | D_HEAD, 5, 0x80 | TEMPERATURE, 4, 0x80 | SEED, 9, SCRAMBLED],
}
os.makedirs(os.path.join(corpus, "flags"), exist_ok=True)
for name, record in flag_seeds.items():
    open(os.path.join(corpus, "flags", name), "wb").write(bytes(record))
print("seeds written")

# corpus/gguf/: small GGUF files from the tests' writer (tests/core/formats/gguf_writer.py):
# tensors of several readable types and one refused type, a SentencePiece tokenizer and a
# byte-level BPE tokenizer with merges, pre-tokenizer and special tokens.
sys.path.insert(0, os.path.join(HERE, "..", "core", "formats"))
import numpy as np  # noqa: E402
import ggml_dequant  # noqa: E402
from gguf_writer import BOOL, FLOAT32, INT32, STRING, UINT32, GGUFWriter  # noqa: E402

os.makedirs(os.path.join(corpus, "gguf"), exist_ok=True)
rng = np.random.default_rng(5)
w = GGUFWriter()
w.add_string("general.architecture", "llama")
w.add_uint32("llama.block_count", 1)
for t, cols in (("F32", 8), ("F16", 8), ("BF16", 8), ("Q8_0", 32), ("Q4_K", 256), ("Q6_K", 256)):
    block = ggml_dequant.LAYOUTS[t][0]
    w.add_tensor("w." + t, [cols, 2], t, ggml_dequant.random_blocks(t, 2 * cols // block, rng))
w.add_tensor("w.IQ2_XXS", [256, 1], "IQ2_XXS", bytes(66))
w.write(os.path.join(corpus, "gguf", "tensors.gguf"))

pieces = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % b for b in range(256)] + ["\u2581", "a", "b", "\u2581a", "ab"]
w = GGUFWriter()
w.add_string("tokenizer.ggml.model", "llama")
w.add_array("tokenizer.ggml.tokens", STRING, pieces)
w.add_array("tokenizer.ggml.scores", FLOAT32, [0.0] * 259 + [-1.0, -2.0, -3.0, -1.5, -1.0])
w.add_array("tokenizer.ggml.token_type", INT32, [2, 3, 3] + [6] * 256 + [1] * 5)
w.add("tokenizer.ggml.add_bos_token", BOOL, True)
w.write(os.path.join(corpus, "gguf", "spm.gguf"))

alpha = {}
n = 0
for b in range(256):
    printable = ord("!") <= b <= ord("~") or 0xA1 <= b <= 0xAC or 0xAE <= b <= 0xFF
    alpha[b] = chr(b) if printable else chr(256 + n)
    n += 0 if printable else 1
g = alpha[32]
tokens = [alpha[b] for b in range(256)] + [g + "a", "ab", "12", "<|end|>"]
w = GGUFWriter()
w.add_string("tokenizer.ggml.model", "gpt2")
w.add_string("tokenizer.ggml.pre", "llama-bpe")
w.add_array("tokenizer.ggml.tokens", STRING, tokens)
w.add_array("tokenizer.ggml.token_type", INT32, [1] * 259 + [3])
w.add_array("tokenizer.ggml.merges", STRING, [g + " a", "a b", "1 2"])
w.add("tokenizer.ggml.bos_token_id", UINT32, 259)
w.write(os.path.join(corpus, "gguf", "bpe.gguf"))
print("gguf seeds written")
