#!/usr/bin/python3
"""Peak memory of `headscope-cli compare --model A --model-b B` (two models on one input) against
one model alone: two mapped files, never two copies, and the first model released before the
second is read (docs/model-pairs.md#memory).

Writes two Llama-shaped GGUF files of the same random weights (streamed by tests/bench/gguf_writer.py,
stories260K's tokenizer tok512): F32 and Q8_0 (tests/core/formats/ggml_quantize.py), 2 layers,
d_model 2048, 16 heads, feed-forward 5632 (about 410 MB and 110 MB), into a temporary folder
(removed afterwards). Prints GNU time's maximum resident set of: `maps` on each file, `compare` F32
against Q8_0, and `compare` F32 against a copy of itself, with the files' sizes.

usage: model_pair_memory.py HEADSCOPE_CLI MODELS_DIR [WORKDIR]
"""
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "core", "formats"))
import ggml_quantize  # noqa: E402
import make_gguf_test_files  # noqa: E402
from gguf_writer import FLOAT32  # noqa: E402

# The streamed writer (tests/bench/gguf_writer.py) shares its module name with the tests' writer.
_spec = importlib.util.spec_from_file_location("bench_gguf_writer", os.path.join(HERE, "gguf_writer.py"))
_bench_writer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_bench_writer)
StreamedGGUFWriter = _bench_writer.StreamedGGUFWriter

LAYERS, D, HEADS, FFN, VOCAB = 2, 2048, 16, 5632, 512
SENTENCE = "Once upon a time, there was a little girl named Lily. She liked to play in the park."


def tensors():
    """(name, numpy shape, std) in file order."""
    out = [("token_embd.weight", (VOCAB, D), 0.02), ("output_norm.weight", (D,), 0.0)]
    for l in range(LAYERS):
        b = "blk.%d." % l
        out += [(b + "attn_norm.weight", (D,), 0.0), (b + "attn_q.weight", (D, D), 0.02), (b + "attn_k.weight", (D, D), 0.02),
                (b + "attn_v.weight", (D, D), 0.02), (b + "attn_output.weight", (D, D), 0.02), (b + "ffn_norm.weight", (D,), 0.0),
                (b + "ffn_gate.weight", (FFN, D), 0.02), (b + "ffn_down.weight", (D, FFN), 0.02), (b + "ffn_up.weight", (FFN, D), 0.02)]
    return out


def values(index, shape, std):
    if std == 0.0:
        return np.ones(shape, np.float32)  # norms
    return np.random.default_rng(1000 + index).standard_normal(shape, dtype=np.float32) * np.float32(std)


def write_model(path, qtype, tok):
    w = StreamedGGUFWriter()
    w.add_string("general.architecture", "llama")
    w.add_string("general.name", "pair-bench-" + qtype.lower())
    for key, value in (("context_length", 512), ("embedding_length", D), ("block_count", LAYERS), ("feed_forward_length", FFN),
                       ("attention.head_count", HEADS), ("attention.head_count_kv", HEADS), ("rope.dimension_count", D // HEADS)):
        w.add_uint32("llama." + key, value)
    w.add("llama.attention.layer_norm_rms_epsilon", FLOAT32, 1e-5)
    w.add("llama.rope.freq_base", FLOAT32, 10000.0)
    tokenizer = make_gguf_test_files.GGUFWriter()  # the tests' writer reads tok512's metadata
    make_gguf_test_files.copy_tokenizer(tok, tokenizer)
    for key, vtype, value in tokenizer.kv:  # its arrays as the streamed writer's own Array type
        w.add(key, vtype, _bench_writer.Array(value.element_type, value.values) if hasattr(value, "element_type") else value)
    for i, (name, shape, std) in enumerate(tensors()):
        t = "F32" if len(shape) == 1 else qtype
        w.add_tensor(name, list(reversed(shape)), t, lambda i=i, shape=shape, std=std, t=t: ggml_quantize.quantize(t, values(i, shape, std)))
    return w.write(path)


def peak_kb(cmd):
    p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("%s failed: %s" % (" ".join(cmd), p.stderr.strip()))
    return int(p.stderr.strip().splitlines()[-1])


def main():
    cli, models = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(dir=sys.argv[3] if len(sys.argv) > 3 else None)
    try:
        make_gguf_test_files.write_tok512(work, models)
        tok = open(os.path.join(work, "tok512.gguf"), "rb").read()
        f32, q8 = os.path.join(work, "pair_f32.gguf"), os.path.join(work, "pair_q8_0.gguf")
        size = {f32: write_model(f32, "F32", tok), q8: write_model(q8, "Q8_0", tok)}
        copy = os.path.join(work, "pair_f32_copy.gguf")
        shutil.copyfile(f32, copy)
        mib = 1 << 20
        print("files: F32 %.0f MiB, Q8_0 %.0f MiB" % (size[f32] / mib, size[q8] / mib))
        runs = [("maps F32", [cli, "maps", "--model", f32, "--sentence", SENTENCE, "--json", os.devnull]),
                ("maps Q8_0", [cli, "maps", "--model", q8, "--sentence", SENTENCE, "--json", os.devnull]),
                ("compare F32 vs Q8_0", [cli, "compare", "--model", f32, "--model-b", q8, "--sentence", SENTENCE, "--json", os.devnull]),
                ("compare F32 vs its copy", [cli, "compare", "--model", f32, "--model-b", copy, "--sentence", SENTENCE, "--json", os.devnull])]
        for label, cmd in runs:
            print("%-24s peak RSS %6.0f MiB" % (label, peak_kb(cmd) / 1024))
        print("sum of the F32 and Q8_0 files: %.0f MiB; two F32 files: %.0f MiB" % ((size[f32] + size[q8]) / mib, 2 * size[f32] / mib))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
