#!/usr/bin/python3
"""Maps where they are asked for (issue 50), through headscope-cli on a small random qwen2-shaped GGUF
file (written here by tests/bench/gguf_writer.py: 2 layers, 4 query heads on 2 key/value heads of 16,
float32 weights, a byte-level vocabulary) at T = 2100 tokens, past the long-input rule's 2048, so
`export --layer L [--head H] --whole-maps --out F.npy` keeps only those maps whole while every head
streams in two blocks of query rows (the engine's default block at this T is 1984 rows).

Oracle: `export --whole-maps --out all.npy` of the same ids, which keeps every map of every layer
(the full-memory run). The kept maps must equal its layer (head) to 1e-6; a mismatch names layer,
head, row, column and the error. Then the memory limit (HEADSCOPE_MAX_MAP_BYTES): the refusal of
every map still fires with its numbers, one layer under the same limit runs, and one layer over a
tighter limit is refused naming its own maps.

Usage: kept_maps_cli.py CLI
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "bench"))
from gguf_writer import BOOL, FLOAT32, INT32, STRING, StreamedGGUFWriter  # noqa: E402
from machine_faults import byte_tokens  # noqa: E402  (GPT-2's 256 byte symbols, no merges)

T = 2100
LAYERS, HEADS, KV_HEADS, HEAD_DIM, D, FFN = 2, 4, 2, 16, 64, 128
failures = []


def write_small_qwen(path):
    rng = np.random.default_rng(50)
    w = StreamedGGUFWriter()
    w.add_string("general.architecture", "qwen2")
    w.add_string("general.name", "kept-maps test qwen2")
    for key, value in (("context_length", 4096), ("embedding_length", D), ("block_count", LAYERS),
                       ("feed_forward_length", FFN), ("attention.head_count", HEADS),
                       ("attention.head_count_kv", KV_HEADS)):
        w.add_uint32("qwen2." + key, value)
    w.add("qwen2.rope.freq_base", FLOAT32, 10000.0)
    w.add("qwen2.attention.layer_norm_rms_epsilon", FLOAT32, 1e-6)
    tokens = byte_tokens() + ["ab"]
    w.add_string("tokenizer.ggml.model", "gpt2")
    w.add_string("tokenizer.ggml.pre", "qwen2")
    w.add_array("tokenizer.ggml.tokens", STRING, tokens)
    w.add_array("tokenizer.ggml.token_type", INT32, [1] * len(tokens))
    w.add_array("tokenizer.ggml.merges", STRING, ["a b"])
    w.add("tokenizer.ggml.add_bos_token", BOOL, False)

    def tensor(name, shape, std, mean=0.0):  # shape in numpy order (rows, cols); GGUF dims reversed
        w.add_tensor(name, list(reversed(shape)), "F32",
                     lambda: (mean + rng.standard_normal(shape) * std).astype("<f4").tobytes())

    qd, kv = HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM
    tensor("token_embd.weight", (len(tokens), D), 0.5)
    tensor("output_norm.weight", (D,), 0.1, 1.0)
    for layer in range(LAYERS):
        b = "blk.%d." % layer
        tensor(b + "attn_norm.weight", (D,), 0.1, 1.0)
        tensor(b + "attn_q.weight", (qd, D), 0.3)
        tensor(b + "attn_k.weight", (kv, D), 0.3)
        tensor(b + "attn_v.weight", (kv, D), 0.2)
        tensor(b + "attn_q.bias", (qd,), 0.2)
        tensor(b + "attn_k.bias", (kv,), 0.2)
        tensor(b + "attn_v.bias", (kv,), 0.05)
        tensor(b + "attn_output.weight", (D, qd), 0.1)
        tensor(b + "ffn_norm.weight", (D,), 0.1, 1.0)
        tensor(b + "ffn_gate.weight", (FFN, D), 0.1)
        tensor(b + "ffn_up.weight", (FFN, D), 0.1)
        tensor(b + "ffn_down.weight", (D, FFN), 0.1)
    w.write(path)


def run(cli, args, env_extra=None):
    env = dict(os.environ)
    env.pop("HEADSCOPE_MAX_MAP_BYTES", None)
    env.update(env_extra or {})
    return subprocess.run([cli] + args, capture_output=True, text=True, env=env, timeout=300)


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL: " + msg)


def compare(kept, full, layer, heads, what):
    """kept [n, T, T] against full [heads] of `layer`: every cell within 1e-6, else the first bad cell."""
    for k, h in enumerate(heads):
        err = np.abs(kept[k].astype(np.float64) - full[layer, h].astype(np.float64))
        worst = np.unravel_index(np.argmax(err), err.shape)
        if err[worst] > 1e-6:
            check(False, "%s: layer %d, head %d, row %d, column %d: kept %.9g, full %.9g, error %.3g" %
                  (what, layer, h, worst[0], worst[1], kept[k][worst], full[layer, h][worst], err[worst]))
            return
    print("ok: %s equals the full run's layer %d heads %s (max error %.3g)" %
          (what, layer, heads, max(float(np.abs(kept[k] - full[layer, h]).max()) for k, h in enumerate(heads))))


def byte_text(n):
    """The engine's byte count in words (attention_layer.cpp byte_text: 3 significant digits)."""
    units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
    u = 0
    while n >= 1024.0 and u < 4:
        n /= 1024.0
        u += 1
    return "%s %s" % (("%.3g" % n), units[u])


def main():
    cli = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="headscope-kept-") as work:
        model = os.path.join(work, "small-qwen2.gguf")
        write_small_qwen(model)
        ids = ",".join(str(i) for i in np.random.default_rng(7).integers(0, 256, T))
        base = ["export", "--model", model, "--input-ids", ids, "--threads", "2"]
        out = lambda name: os.path.join(work, name)  # noqa: E731

        r = run(cli, base + ["--whole-maps", "--out", out("all.npy")])
        check(r.returncode == 0, "full run: exit %d, %s" % (r.returncode, r.stderr.strip()))
        if r.returncode:
            return
        full = np.load(out("all.npy"))
        check(full.shape == (LAYERS, HEADS, T, T), "full run: shape %s" % (full.shape,))

        r = run(cli, base + ["--layer", "1", "--whole-maps", "--out", out("layer1.npy")])
        check(r.returncode == 0, "--layer 1: exit %d, %s" % (r.returncode, r.stderr.strip()))
        if r.returncode == 0:
            kept = np.load(out("layer1.npy"))
            check(kept.shape == (1, HEADS, T, T), "--layer 1: shape %s, expected (1, %d, %d, %d)" % (kept.shape, HEADS, T, T))
            check(not os.path.exists(out("layer1.blocks.json")), "--layer 1 --whole-maps wrote a block-maxima sidecar")
            compare(kept[0], full, 1, list(range(HEADS)), "export --layer 1 --whole-maps")

        r = run(cli, base + ["--layer", "0", "--head", "3", "--whole-maps", "--out", out("head.npy")])
        check(r.returncode == 0, "--layer 0 --head 3: exit %d, %s" % (r.returncode, r.stderr.strip()))
        if r.returncode == 0:
            kept = np.load(out("head.npy"))
            check(kept.shape == (T, T), "--head 3: shape %s" % (kept.shape,))
            compare(kept[None], full, 0, [3], "export --layer 0 --head 3 --whole-maps")

        # maps --json --layer 0 --head 1 on the long input: that head's whole map in long_input.kept_maps.
        r = run(cli, ["maps"] + base[1:] + ["--json", out("maps.json"), "--layer", "0", "--head", "1"])
        check(r.returncode == 0, "maps --json --layer 0 --head 1: exit %d, %s" % (r.returncode, r.stderr.strip()))
        if r.returncode == 0:
            with open(out("maps.json")) as f:
                long_input = json.load(f)["long_input"]
            kept = long_input.get("kept_maps", {})
            check(kept.get("layer") == 0 and kept.get("heads") == [1], "maps --json kept_maps: %r" %
                  {k: v for k, v in kept.items() if k != "attention"})
            check("7 of 8 heads" in long_input.get("left_out", ""), "maps --json left_out: %r" % long_input.get("left_out"))
            if kept.get("heads") == [1]:
                compare(np.array(kept["attention"], dtype=np.float32), full, 0, [1], "maps --json --layer 0 --head 1")

        # The memory limit counts what is kept: 5 maps' worth refuses every map (8) and passes one layer (4).
        one_map = T * T * 4
        limit = {"HEADSCOPE_MAX_MAP_BYTES": str(5 * one_map)}
        r = run(cli, base + ["--whole-maps", "--out", out("refused.npy")], limit)
        want = "%d tokens x %d maps of T x T floats need %s; the limit is %s" % (
            T, LAYERS * HEADS, byte_text(float(LAYERS * HEADS * one_map)), byte_text(float(5 * one_map)))
        check(r.returncode in (1, 2) and want in r.stderr, "every map over the limit: exit %d, stderr %r, expected %r" %
              (r.returncode, r.stderr.strip(), want))
        r = run(cli, base + ["--layer", "1", "--whole-maps", "--out", out("limited.npy")], limit)
        check(r.returncode == 0 and np.array_equal(np.load(out("limited.npy")), np.load(out("layer1.npy"))),
              "one layer under the limit: exit %d, %s" % (r.returncode, r.stderr.strip()))
        tight = {"HEADSCOPE_MAX_MAP_BYTES": str(3 * one_map)}
        r = run(cli, base + ["--layer", "1", "--whole-maps", "--out", out("refused.npy")], tight)
        want = "%d tokens x %d maps of T x T floats need %s" % (T, HEADS, byte_text(float(HEADS * one_map)))
        check(r.returncode in (1, 2) and want in r.stderr, "one layer over the limit: exit %d, stderr %r, expected %r" %
              (r.returncode, r.stderr.strip(), want))
        check(not os.path.exists(out("refused.npy")), "a refused export left a file")
        if not failures:
            print("ok: the memory limit counts only the maps kept")
    if failures:
        print("%d failure(s)" % len(failures))
        sys.exit(1)
    print("all kept-maps checks passed")


if __name__ == "__main__":
    main()
