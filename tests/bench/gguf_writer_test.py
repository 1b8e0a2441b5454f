#!/usr/bin/python3
"""tests/bench/gguf_writer.py (the streamed writer of the benchmark files) writes the same bytes as
tests/core/formats/gguf_writer.py (the tests' writer, which writes the whole file from memory) for
a small file with metadata of every kind used and tensors of F32, Q4_K, Q5_0 and Q6_K given as bytes
and as chunks; a producer giving the wrong number of bytes is an error and leaves no file.
    python3 tests/bench/gguf_writer_test.py      (exit 0: passed)"""
import importlib.util
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gguf_writer as streamed  # noqa: E402

spec = importlib.util.spec_from_file_location("formats_writer", os.path.join(HERE, "..", "core", "formats", "gguf_writer.py"))
formats = importlib.util.module_from_spec(spec)
spec.loader.exec_module(formats)


def main():
    import numpy as np
    rng = np.random.default_rng(1)
    tensors = [("a.weight", [8], "F32", rng.standard_normal(8).astype("<f4").tobytes()),
               ("b.weight", [256, 3], "Q4_K", rng.bytes(3 * 144)),
               ("c.weight", [32, 5], "Q5_0", rng.bytes(5 * 22)),   # 110 bytes: padded to the alignment
               ("d.weight", [512, 2], "Q6_K", rng.bytes(4 * 210))]
    old, new = formats.GGUFWriter(), streamed.StreamedGGUFWriter()
    for w in (old, new):
        w.add_string("general.architecture", "llama")
        w.add_uint32("llama.block_count", 1)
        w.add("llama.rope.freq_base", streamed.FLOAT32, 500000.0)
        w.add("tokenizer.ggml.add_bos_token", streamed.BOOL, True)
        w.add_array("tokenizer.ggml.tokens", streamed.STRING, ["a", "b", "\u0120c"])
        w.add_array("tokenizer.ggml.token_type", streamed.INT32, [1, 1, 3])
    for name, dims, t, data in tensors:
        old.add_tensor(name, dims, t, data)
        chunks = [data[:100], data[100:]] if len(data) > 100 else data
        new.add_tensor(name, dims, t, lambda c=chunks: c)
    failures = []
    with tempfile.TemporaryDirectory() as d:
        size = new.write(os.path.join(d, "new.gguf"))
        got = open(os.path.join(d, "new.gguf"), "rb").read()
        want = old.to_bytes()
        if got != want or size != len(want):
            failures.append("streamed file differs: %d bytes (returned %d), expected %d; first difference at %s"
                            % (len(got), size, len(want), next((i for i, (x, y) in enumerate(zip(got, want)) if x != y), "the end")))
        bad = streamed.StreamedGGUFWriter()
        bad.add_tensor("short.weight", [256], "Q4_K", lambda: b"\0" * 143)
        try:
            bad.write(os.path.join(d, "bad.gguf"))
            failures.append("a producer of 143 bytes for a 144-byte tensor was accepted")
        except ValueError as e:
            if "short.weight" not in str(e):
                failures.append("the error does not name the tensor: %s" % e)
        for left in ("bad.gguf", "bad.gguf.part"):
            if os.path.exists(os.path.join(d, left)):
                failures.append("a failed write left " + left)
    for f in failures:
        print("FAILED: " + f)
    if not failures:
        print("passed: streamed writer == tests' writer (%d bytes)" % len(want))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
