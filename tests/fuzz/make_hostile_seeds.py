#!/usr/bin/python3
"""Writes the hostile seeds of issue 28 into the fuzz corpora (committed; run again only when the
formats change), from the repository root:
    /usr/bin/python3 tests/fuzz/make_hostile_seeds.py
- corpus/npz/: an archive whose directory declares 6 GiB for a 4 x 4 array, and one whose .npy
  header declares a 40132 x 40132 array (the declared size agrees; the data is not there). Both
  are a few hundred bytes: the reader must refuse them from the header, not inflate.
- corpus/attention_file/: the same two behind the harness's selector byte (1: .npz).
- corpus/tokenizer_json/: a Unigram tokenizer.json (selector byte 1) with a Split regex that
  backtracks catastrophically, and one whose Replace normalizer maps "a" to 4 KiB.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cli"))
from hostile_files import npy_header, write_npz_bomb  # noqa: E402

corpus = os.path.join(HERE, "corpus")
GiB = 1 << 30
t = 40132
for name, header, declared in (("declares_6gib_for_4x4", npy_header("<f4", (1, 1, 4, 4)), 6 * GiB),
                               ("header_6gib_no_data", npy_header("<f4", (1, 1, t, t)), None)):
    path = os.path.join(corpus, "npz", name + ".npz")
    write_npz_bomb(path, header, declared or len(header) + 4 * t * t, inflated=len(header) + 64)
    data = open(path, "rb").read()
    open(os.path.join(corpus, "attention_file", name + ".bin"), "wb").write(b"\x01" + data)

with open(os.path.join(corpus, "tokenizer_json", "hf_unigram.json"), "rb") as f:
    base = json.loads(f.read()[1:])
for name, change in (("split_backtracking", {"pre_tokenizer": {"type": "Split", "pattern": {"Regex": "(?:(?:a|a){1,18}b|)"},
                                                                "behavior": "Isolated", "invert": False}}),
                     ("replace_blowup", {"normalizer": {"type": "Replace", "pattern": {"String": "a"}, "content": "x" * 4096}})):
    tok = dict(base)
    tok.update(change)
    with open(os.path.join(corpus, "tokenizer_json", name + ".json"), "wb") as f:
        f.write(b"\x01" + json.dumps(tok).encode())
print("hostile seeds written")
