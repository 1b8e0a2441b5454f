#!/usr/bin/python3
"""Writes the hostile-JSON seeds of every harness that reads JSON (issue 28; committed, each well
under 200 KB; run again only when a format changes), from the repository root:
    /usr/bin/python3 tests/fuzz/make_json_seeds.py
For each format: a value nested exactly 512 deep (the limit; read), one nested 513 deep and one
2,000 deep (refused), and one with a large element count (thousands of tensors, added tokens,
keys or list entries). The fuzzer mutates these toward the edges; the replay tests (label "fuzz")
run them in every build. Needs the committed seeds (tests/fuzz/hf_folder, corpus/*) and only
the standard library.
"""
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
LIMIT = 512  # kMaxJsonDepth in core/formats/json_strict.h


def nested(depth):
    """An array nested `depth` levels deep (the outermost counts as level 1)."""
    return "[" * depth + "]" * depth


def with_key(obj, key, raw):
    """JSON text of the object `obj` with `key` set to the JSON text `raw`."""
    return json.dumps(obj, separators=(",", ":"))[:-1] + f',"{key}":{raw}}}'


def write(sub, name, data):
    path = os.path.join(CORPUS, sub, name)
    data = data.encode() if isinstance(data, str) else data
    assert len(data) < 200_000, f"{path}: {len(data)} bytes is too large for a committed seed"
    with open(path, "wb") as f:
        f.write(data)


def safetensors(header, data=b""):
    raw = json.dumps(header, separators=(",", ":")).encode()
    return struct.pack("<Q", len(raw)) + raw + data


def depths(levels_inside):
    """(name suffix, depth of the value) for a value `levels_inside` levels below the top."""
    return (("depth512", LIMIT - levels_inside), ("depth513", LIMIT + 1 - levels_inside), ("depth2000", 2000))


# fuzz_hf_config: config.json with an unused key nested deep, and one with many keys and a long list.
llama = json.load(open(os.path.join(CORPUS, "hf_config", "llama.json")))
for suffix, d in depths(1):
    write("hf_config", f"{suffix}.json", with_key(llama, "unused", nested(d)))
many = dict(llama, **{f"unused_{i}": i for i in range(3000)}, unused_list=list(range(15000)))
write("hf_config", "many_keys.json", json.dumps(many, separators=(",", ":")))

# fuzz_hf_tokenizer (selector 1: tokenizer.json; 0: vocab.json NUL merges.txt) and
# fuzz_tokenizer_json (selector 1: tokenizer.json; 0: vocab.txt NUL tokenizer_config.json).
tok = json.load(open(os.path.join(HERE, "hf_folder", "tokenizer.json"), encoding="utf-8"))
for suffix, d in depths(3):  # the top object, "model", "vocab"
    t = json.loads(json.dumps(tok))
    t["model"]["vocab"]["DEEP"] = "DEEP"
    write("hf_tokenizer", f"vocab_entry_{suffix}.bin",
          b"\x01" + json.dumps(t, ensure_ascii=False).replace('"DEEP": "DEEP"', '"deep": ' + nested(d)).encode())
n_vocab = len(tok["model"]["vocab"])
added = tok["added_tokens"] + [{"id": n_vocab + i, "content": f"<x{i}>", "special": True} for i in range(2500)]
write("hf_tokenizer", "added_tokens_2500.bin", b"\x01" + json.dumps(dict(tok, added_tokens=added), ensure_ascii=False,
                                                                     separators=(",", ":")).encode())
for suffix, d in depths(1):
    write("hf_tokenizer", f"vocab_json_{suffix}.bin", b"\x00" + with_key({"a": 0, "b": 1}, "c", nested(d)).encode() +
          b"\x00#version: 0.2\na b\n")
gpt2_vocab = {"a": 0, "b": 1, "ab": 2, **{f"p{i}": 3 + i for i in range(10000)}}
write("hf_tokenizer", "vocab_json_10000.bin", b"\x00" + json.dumps(gpt2_vocab, separators=(",", ":")).encode() +
      b"\x00#version: 0.2\na b\n")
bert_vocab = b"[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhi\nthere\n"
for suffix, d in depths(1):
    write("tokenizer_json", f"tokenizer_config_{suffix}.bin",
          b"\x00" + bert_vocab + b"\x00" + with_key({"do_lower_case": True}, "unk_token", nested(d)).encode())
write("tokenizer_json", "tokenizer_config_many.bin",
      b"\x00" + bert_vocab + b"\x00" + json.dumps({"do_lower_case": True, "unused": list(range(20000)),
                                                  **{f"k{i}": i for i in range(3000)}}, separators=(",", ":")).encode())
with open(os.path.join(CORPUS, "tokenizer_json", "hf_unigram.json"), "rb") as f:
    unigram = json.loads(f.read()[1:])  # after the selector byte
for suffix, d in depths(1):
    write("tokenizer_json", f"unigram_{suffix}.json", b"\x01" + with_key(unigram, "unused", nested(d)).encode())
unigram_many = json.loads(json.dumps(unigram))
unigram_many["model"]["vocab"] += [[f"\u2581w{i}", -10.0 - i / 1000] for i in range(5000)]
write("tokenizer_json", "unigram_5000_pieces.json",
      b"\x01" + json.dumps(unigram_many, ensure_ascii=False, separators=(",", ":")).encode())

# fuzz_safetensors: a header nested deep, and one of 2,500 tensors.
tensor = {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}
for suffix, d in depths(1):  # a key of the header object
    raw = with_key({"t": tensor}, "deep", nested(d)).encode()
    write("safetensors", f"header_{suffix}.safetensors", struct.pack("<Q", len(raw)) + raw + b"\0" * 4)
many_tensors = {f"t{i}": {"dtype": "F32", "shape": [1], "data_offsets": [4 * i, 4 * i + 4]} for i in range(2500)}
write("safetensors", "tensors_2500.safetensors", safetensors(many_tensors, b"\0" * 4 * 2500))

# fuzz_attention_file (selector 0: .safetensors, no tokens.json): metadata "tokens" nested deep
# (a JSON text inside a metadata string), and 5,000 layers.
L, H, T = 1, 1, 2
att = {"attention": {"dtype": "F32", "shape": [L, H, T, T], "data_offsets": [0, 16]}}
maps = struct.pack("<4f", 0.5, 0.5, 0.25, 0.75)
for suffix, d in depths(0):
    write("attention_file", f"metadata_tokens_{suffix}.bin",
          b"\x00" + safetensors(dict(att, __metadata__={"tokens": nested(d)}), maps))
layers = {f"layer.{i}": {"dtype": "F32", "shape": [1, T, T], "data_offsets": [0, 16]} for i in range(2500)}
write("attention_file", "layers_2500.bin", b"\x00" + safetensors(dict(layers, __metadata__={"tokens": '["a","b"]'}), maps))

# fuzz_session (a session and a lesson file): nested deep, and a long list.
session = json.load(open(os.path.join(CORPUS, "session", "session.json")))
for suffix, d in depths(2):  # the top object, "input"
    s = json.loads(json.dumps(session))
    s["input"]["extra"] = "DEEP"
    write("session", f"session_{suffix}.json", json.dumps(s).replace('"DEEP"', nested(d)))
write("session", "session_queries_20000.json", json.dumps(dict(session, view=dict(session["view"], queries=list(range(20000))))))
lesson = json.load(open(os.path.join(CORPUS, "session", "lesson.json"), encoding="utf-8"))
for suffix, d in depths(4):  # the top object, "steps", a step, "session"
    l = json.loads(json.dumps(lesson))
    l["steps"][0]["session"] = {"extra": "DEEP"}
    write("session", f"lesson_{suffix}.json", json.dumps(l, ensure_ascii=False).replace('"DEEP"', nested(d)))
