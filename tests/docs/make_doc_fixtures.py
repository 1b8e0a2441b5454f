#!/usr/bin/python3
"""Writes the small files the commands of README.md and docs/*.md name, into OUTDIR (the build
tree; never committed), for tests/docs/doc_commands.py (and the app tests that need a model with
grouped heads):

    make_doc_fixtures.py OUTDIR MODELS_DIR CLI

- mha.safetensors, x.npy: an nn.MultiheadAttention state_dict (d_model 8) and an input [5, 8]
- maps.safetensors: attention maps from "another framework" (tools/export_attention.py), [2, 3, 6, 6]
- qwen2-grouped.gguf: a Qwen2-shaped GGUF, 24 layers x 14 query heads on 2 key/value heads (as
  Qwen2.5-0.5B), random float32 weights, stories260K's tokenizer (tok512)
- gpt2/: a tiny random GPT-2 folder with GPT-2's tokenizer files (vocab.json, merges.txt)
- bert/: a tiny random BERT folder with a WordPiece tokenizer; xlm-roberta/: a tiny random
  XLM-RoBERTa folder whose vocabulary reaches id 35,378 (docs/models.md's input ids)
- stories.txt (a corpus, one sentence a line), paper.json (a figure style)
- part0.jsonl .. part3.jsonl: `heads --corpus stories.txt --shard I/4` of stories260K
- stories-gguf/stories260K_{f32,q8_0,q4_0}.gguf: stories260K as GGUF at three precisions
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TESTS, "core", "formats"))
sys.path.insert(0, os.path.join(TESTS, "core", "pretrained"))
sys.path.insert(0, os.path.join(os.path.dirname(TESTS), "tools"))
from gguf_writer import FLOAT32, GGUFWriter  # noqa: E402

STORIES = ["Once upon a time, there was a little girl named Lily.",
           "She liked to play with her ball in the park.",
           "One day, Lily saw a big dog.",
           "The dog was happy and Lily was happy too.",
           "They played all day and went home."]


def mha(out):
    import torch
    from hf_reference import write_safetensors
    rng = np.random.default_rng(7)
    d = 8
    tensors = {"in_proj_weight": rng.normal(0, 0.5, (3 * d, d)), "in_proj_bias": rng.normal(0, 0.1, 3 * d),
               "out_proj.weight": rng.normal(0, 0.5, (d, d)), "out_proj.bias": rng.normal(0, 0.1, d)}
    write_safetensors(os.path.join(out, "mha.safetensors"), {k: torch.from_numpy(v) for k, v in tensors.items()}, "F32")
    np.save(os.path.join(out, "x.npy"), rng.normal(0, 1, (5, d)).astype(np.float32))


def maps(out):
    from export_attention import save_attention
    rng = np.random.default_rng(3)
    scores = rng.normal(0, 1.5, (2, 3, 6, 6))
    a = np.exp(scores - scores.max(-1, keepdims=True))
    save_attention(os.path.join(out, "maps.safetensors"), a / a.sum(-1, keepdims=True),
                   ["The", " cat", " sat", " on", " the", " mat"], name="maps from elsewhere")


def grouped_gguf(out, models):
    """Qwen2's layout (query, key and value biases), 14 query heads on 2 key/value heads."""
    from make_gguf_test_files import copy_tokenizer, write_tok512
    write_tok512(out, models)
    tok = open(os.path.join(out, "tok512.gguf"), "rb").read()
    rng = np.random.default_rng(14)
    layers, heads, kv_heads, dh, ffn, vocab = 24, 14, 2, 4, 64, 512
    d = heads * dh
    w = GGUFWriter()
    w.add_string("general.architecture", "qwen2")
    w.add_string("general.name", "qwen2-grouped")
    for key, value in (("context_length", 256), ("embedding_length", d), ("block_count", layers),
                       ("feed_forward_length", ffn), ("attention.head_count", heads),
                       ("attention.head_count_kv", kv_heads)):
        w.add_uint32("qwen2." + key, value)
    w.add("qwen2.rope.freq_base", FLOAT32, 1000000.0)
    w.add("qwen2.attention.layer_norm_rms_epsilon", FLOAT32, 1e-6)
    copy_tokenizer(tok, w)

    def tensor(name, *shape, mean=0.0, std=0.3):
        a = (mean + rng.standard_normal(shape) * std).astype("<f4")
        w.add_tensor(name, list(reversed(shape)), "F32", a.tobytes())

    tensor("token_embd.weight", vocab, d)
    tensor("output_norm.weight", d, mean=1.0, std=0.1)
    for l in range(layers):
        b = "blk.%d." % l
        tensor(b + "attn_norm.weight", d, mean=1.0, std=0.1)
        tensor(b + "attn_q.weight", d, d)
        tensor(b + "attn_k.weight", kv_heads * dh, d)
        tensor(b + "attn_v.weight", kv_heads * dh, d)
        tensor(b + "attn_q.bias", d, std=0.2)
        tensor(b + "attn_k.bias", kv_heads * dh, std=0.2)
        tensor(b + "attn_v.bias", kv_heads * dh, std=0.05)
        tensor(b + "attn_output.weight", d, d)
        tensor(b + "ffn_norm.weight", d, mean=1.0, std=0.1)
        tensor(b + "ffn_gate.weight", ffn, d)
        tensor(b + "ffn_up.weight", ffn, d)
        tensor(b + "ffn_down.weight", d, ffn)
    w.write(os.path.join(out, "qwen2-grouped.gguf"))


def gpt2_folder(out, models):
    import hf_reference
    folder = os.path.join(out, "gpt2")
    hf_reference.make_gpt2(folder, 50257, d=16, heads=2, layers=2)
    shutil.copyfile(os.path.join(models, "gpt2-tokenizer", "encoder.json"), os.path.join(folder, "vocab.json"))
    shutil.copyfile(os.path.join(models, "gpt2-tokenizer", "vocab.bpe"), os.path.join(folder, "merges.txt"))


def encoder_folders(out):
    import hf_encoder_reference as enc
    folder = os.path.join(out, "bert")
    os.makedirs(folder, exist_ok=True)
    enc.wordpiece_tokenizer(folder)
    cfg = enc.bert_config("bert", len(enc.WORDS))
    enc.write_folder(folder, cfg, enc.bert_tensors(cfg, 5, "bert."))
    # As the reference's XLM-R (no prefix, positions from the padding id + 1), with rows up to id
    # 35,399 so that docs/models.md's ids (0,35378,8999,2) are in its vocabulary.
    folder = os.path.join(out, "xlm-roberta")
    os.makedirs(folder, exist_ok=True)
    enc.unigram_tokenizer(folder)
    cfg = enc.bert_config("xlm-roberta", 35400, hidden_size=8, num_attention_heads=2, intermediate_size=16,
                          type_vocab_size=1, pad_token_id=1, layer_norm_eps=1e-5, max_position_embeddings=42,
                          bos_token_id=0, eos_token_id=2)
    enc.write_folder(folder, cfg, enc.bert_tensors(cfg, 6, ""))


def text_files(out, cli):
    with open(os.path.join(out, "stories.txt"), "w") as f:
        f.write("\n".join(STORIES) + "\n")
    with open(os.path.join(out, "paper.json"), "w") as f:
        json.dump({"font_size": 8, "colormap": "viridis", "labels": "auto"}, f)
    for i in range(4):
        subprocess.run([os.path.abspath(cli), "heads", "--model", "stories260K", "--corpus", "stories.txt", "--shard", "%d/4" % i,
                        "--json", "part%d.jsonl" % i, "--quiet"], cwd=out, check=True)


def stories_gguf(out, models):
    """stories-gguf/stories260K_{f32,q8_0,q4_0}.gguf: stories260K as GGUF at three precisions
    (tests/core/formats/make_gguf_test_files.py's writer), for docs/model-pairs.md."""
    import make_gguf_test_files as gguf_files
    folder = os.path.join(out, "stories-gguf")
    os.makedirs(folder, exist_ok=True)
    gguf_files.write_tok512(folder, models)
    gguf_files.write_stories(folder, models)


def main():
    out, models, cli = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(out, exist_ok=True)
    mha(out)
    maps(out)
    grouped_gguf(out, models)
    gpt2_folder(out, models)
    encoder_folders(out)
    text_files(out, cli)
    stories_gguf(out, models)
    print("doc fixtures written to", out)


if __name__ == "__main__":
    main()
