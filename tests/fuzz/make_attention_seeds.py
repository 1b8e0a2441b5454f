#!/usr/bin/python3
"""Writes the seed corpora of fuzz_attention_file and fuzz_npz (committed; run again only when the
attention file format changes), from the repository root:
    /usr/bin/python3 tests/fuzz/make_attention_seeds.py
The files come from tools/export_attention.py (the writer users run) and numpy itself:
- corpus/attention_file/: selector byte (bit 0: .npz, bit 1: a tokens.json of <length byte> bytes
  follows) + file: stacked safetensors with metadata, per-layer safetensors with a tokens.json,
  numpy.savez and numpy.savez_compressed archives.
- corpus/npz/: the two archives as they are.
"""
import io
import json
import os
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import export_attention  # noqa: E402

L, H, T = 2, 2, 3
rng = np.random.default_rng(3)
s = rng.normal(size=(L, H, T, T))
maps = (np.exp(s) / np.exp(s).sum(-1, keepdims=True)).astype(np.float32)
tokens = ["[CLS]", "hi", "[SEP]"]
corpus = os.path.join(HERE, "corpus")
for sub in ("attention_file", "npz"):
    os.makedirs(os.path.join(corpus, sub), exist_ok=True)

# Stacked safetensors with its metadata.
meta = export_attention._metadata(tokens, "seed", [101, 7592, 102], [0, 2], 1, False)
path = os.path.join(corpus, "attention_file", "stacked.safetensors")
export_attention._write_safetensors(path, maps, meta)
data = open(path, "rb").read()
open(path, "wb").write(b"\x00" + data)

# Per-layer safetensors (attentions.{i}, batch 1), tokens in the JSON beside it.
header, blob = {}, b""
for l in range(L):
    raw = maps[l][None].tobytes()
    header["attentions.%d" % l] = {"dtype": "F32", "shape": [1, H, T, T], "data_offsets": [len(blob), len(blob) + len(raw)]}
    blob += raw
h = json.dumps(header).encode()
side = json.dumps(tokens).encode()
open(os.path.join(corpus, "attention_file", "per_layer.bin"), "wb").write(
    b"\x02" + bytes([len(side)]) + side + struct.pack("<Q", len(h)) + h + blob)

# numpy's own archives, stored and deflated, with and without the JSON beside.
for name, save in (("stored", np.savez), ("compressed", np.savez_compressed)):
    buf = io.BytesIO()
    save(buf, attention=maps)
    archive = buf.getvalue()
    open(os.path.join(corpus, "npz", name + ".npz"), "wb").write(archive)
    open(os.path.join(corpus, "attention_file", name + ".bin"), "wb").write(b"\x03" + bytes([len(side)]) + side + archive)
print("attention seeds written")
