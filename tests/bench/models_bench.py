#!/usr/bin/python3
"""Pretrained checkpoints and the app (tests/bench/run.sh runs this after the layer benchmark).

1. stories260K (the llama2.c checkpoint in build/test-models or $HEADSCOPE_MODELS_DIR): the whole
   forward pass with every head's map and the next-token predictions for a 64-token sentence,
   `headscope-cli maps --model ... --repeat N --threads K` (its compute_ms_median), 1 thread and
   all threads.
2. A GPT-2-small-shaped checkpoint with random weights (12 layers x 12 heads, d_model 768,
   n_positions 1024, GPT-2's 50,257-token vocabulary from tests/data/gpt2-tokenizer), written
   at bench time into a temporary Hugging Face gpt2 folder (config.json, model.safetensors with
   GPT-2's tensor names and shapes, vocab.json/merges.txt symlinked to the shared files), at T = 256.
   Next to it, the same forward in plain PyTorch (maps for every head, logits for every position
   and their argmax, as the engine computes), alternating round by round with the engine.
3. The app under xvfb-run (Mesa): `headscope --bench-frames OUT.json` on that GPT-2 folder with
   the layers x heads overview (144 heatmaps) at T = 256: frame times with vsync off and glFinish
   per frame, then keystrokes typed into the sentence box until the new maps are on screen.
4. A Qwen2.5-0.5B-shaped GGUF file with random quantized weights (24 layers, 14 query heads on 2
   key/value heads of 64, d_model 896, feed-forward 4864, 151,936 embedding rows, tied output, q/k/v
   biases), written once by tests/bench/gguf_writer.py (streamed) into the build tree
   (bench-models/, next to the CLI), quantized as llama-quantize's Q4_K_M quantizes Qwen2.5-0.5B:
   Q4_K / Q6_K for ffn_down (4864 wide), and for the 896-wide rows their fallbacks Q5_0 / Q8_0
   (Q8_0 for the tied embedding, attn_v and ffn_down of the layers given more bits); 396 MB;
   tokenizer: Qwen 2's 151,936 tokens and 151,386 merges (GPT-2's, extended by tests/bench/qwen_vocab.py)
   with Qwen 2's pre-tokenizer. Every head's map for a 256-token
   sentence, 1 thread and all threads (compute_ms_median), and the peak RSS of the whole process
   (GNU time), which counts the mapped weights it touched.

Import run() from engine_vs_torch.py, or run alone:
  tests/bench/models_bench.py --cli build-bench/headscope-cli --gui build-bench/headscope [--gguf-only]
Uses only Debian's python3 and python3-torch.
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import engine_vs_torch as evt  # noqa: E402  (write_safetensors, median, thread setters)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GPT2 = {"n_layer": 12, "n_head": 12, "n_embd": 768, "n_positions": 1024, "vocab_size": 50257}

# The sentence is the first n words of this text (repeated as needed), n chosen so that the
# model's tokenizer makes exactly the wanted number of tokens.
TEXT = ("Once upon a time there was a little girl named Lily who lived in a small house near the woods "
        "with her mother, her father and a big brown dog called Max. Every morning Lily walked to the "
        "river to look at the fish, and every evening she told her mother what she had seen. One day she "
        "found a shiny blue stone under a tree. She picked it up and put it in her pocket, because she "
        "wanted to show it to her friend Tom. Tom lived on the other side of the hill. The path was long "
        "and the sun was hot, but Lily was happy and sang a song as she walked. When she got to the "
        "house, Tom was sitting in the garden with his cat. Lily gave him the stone and said that it was "
        "a present. Tom smiled and thanked her, and then they played together until it was time to go home. ")


def models_dir():
    return os.environ.get("HEADSCOPE_MODELS_DIR") or os.path.join(ROOT, "build", "test-models")


def cli_report(cmd):
    """Runs `headscope-cli maps` with the text report; returns (tokens, compute ms or None)."""
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError(" ".join(cmd[:4]) + " ...: " + r.stderr.strip())
    tokens = compute = None
    for line in r.stdout.splitlines():
        if line.startswith("tokens ("):
            tokens = int(line.split("(")[1].split(")")[0])
        elif line.startswith("compute time"):
            compute = float(line.split(":")[1].split()[0])
    return tokens, compute


def largest_at_most(f, target, lo, flo, hi, fhi, guess):
    """The largest x in (lo, hi) with f(x) <= target, given f(lo) = flo <= target < f(hi) = fhi (fhi None:
    not measured) and f non-decreasing; stops early at f(x) == target. Probes by interpolation."""
    x = guess
    while hi - lo > 1 and flo != target:
        x = min(max(x, lo + 1), hi - 1)
        fx = f(x)
        if fx <= target:
            lo, flo = x, fx
        else:
            hi, fhi = x, fx
        if fhi is not None and fhi > flo:
            x = lo + max(1, int((target - flo) * (hi - lo) / (fhi - flo)))
        else:
            x = lo + max(1, int((target - flo) * lo / max(flo, 1))) + 1
        if x >= hi:
            x = (lo + hi) // 2
    return lo, flo


def fit_sentence(cli, model_args, target, count=None):
    """The longest prefix of TEXT (whole words, then characters) with at most `target` tokens, usually
    exactly `target`: (sentence, T). Counts with count(text) when given, else with the CLI itself (its
    text report's token count, which runs the model)."""
    text = " ".join(TEXT.split() * 6)
    ends = [i for i, c in enumerate(text) if c == " "] + [len(text)]  # word n ends at ends[n - 1]
    counts = {}

    def tokens(n_chars):
        if n_chars not in counts:
            counts[n_chars] = (count(text[:n_chars]) if count else
                               cli_report([cli, "maps"] + model_args + ["--sentence", text[:n_chars]])[0])
        return counts[n_chars]

    w, tw = largest_at_most(lambda n: tokens(ends[n - 1]), target, 0, 0, len(ends) + 1, None, max(1, target // 2))
    if tw != target and w < len(ends):  # the next word overshoots: add its characters one by one
        lo = ends[w - 1] if w else 0
        c, tw = largest_at_most(tokens, target, lo, tw, ends[w], tokens(ends[w]), lo + 1)
        return text[:c], tw
    return text[:ends[w - 1]], tw


# ---------------------------------------------------------------------------------------
# The GPT-2-shaped folder and its forward pass in PyTorch.

def gpt2_tensors(seed=7):
    """Random weights with GPT-2's names and shapes (Conv1D weights are [in, out]); the output
    projection is tied to wte, as in GPT-2. Scales give peaked, varied maps rather than flat ones."""
    import torch
    g = torch.Generator().manual_seed(seed)
    d, L, V, P = GPT2["n_embd"], GPT2["n_layer"], GPT2["vocab_size"], GPT2["n_positions"]
    r = lambda *s, std=0.02: torch.randn(*s, generator=g) * std
    t = {"wte.weight": r(V, d), "wpe.weight": r(P, d, std=0.05)}
    for l in range(L):
        h = "h.%d." % l
        t.update({h + "ln_1.weight": 1 + r(d, std=0.1), h + "ln_1.bias": r(d, std=0.1),
                  h + "attn.c_attn.weight": r(d, 3 * d, std=0.06), h + "attn.c_attn.bias": r(3 * d, std=0.1),
                  h + "attn.c_proj.weight": r(d, d), h + "attn.c_proj.bias": r(d),
                  h + "ln_2.weight": 1 + r(d, std=0.1), h + "ln_2.bias": r(d, std=0.1),
                  h + "mlp.c_fc.weight": r(d, 4 * d), h + "mlp.c_fc.bias": r(4 * d),
                  h + "mlp.c_proj.weight": r(4 * d, d), h + "mlp.c_proj.bias": r(d)})
    t.update({"ln_f.weight": 1 + r(d, std=0.1), "ln_f.bias": r(d, std=0.1)})
    return t


def write_gpt2_folder(folder, tokenizer_dir):
    """A Hugging Face gpt2 folder in `folder` (a temporary directory); returns its tensors."""
    os.makedirs(folder, exist_ok=True)
    tensors = gpt2_tensors()
    evt.write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    cfg = dict(GPT2, model_type="gpt2", architectures=["GPT2LMHeadModel"], n_ctx=GPT2["n_positions"], n_inner=None,
               activation_function="gelu_new", layer_norm_epsilon=1e-5, bos_token_id=50256, eos_token_id=50256,
               torch_dtype="float32")
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(cfg, f, indent=1)
    # Hugging Face's gpt2 vocab.json / merges.txt are OpenAI's encoder.json / vocab.bpe byte for byte.
    for name, src in (("vocab.json", "encoder.json"), ("merges.txt", "vocab.bpe")):
        os.symlink(os.path.abspath(os.path.join(tokenizer_dir, src)), os.path.join(folder, name))
    return tensors


def gpt2_forward(w, ids):
    """GPT-2's forward as the engine runs it: every head's map [H, T, T] per layer, logits for every
    position (tied to wte) and their argmax."""
    import torch
    import torch.nn.functional as F
    T, d, H = len(ids), GPT2["n_embd"], GPT2["n_head"]
    dh = d // H
    x = w["wte.weight"][ids] + w["wpe.weight"][:T]  # [T, d]
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)  # causal: key j > query i is masked
    maps = []
    for l in range(GPT2["n_layer"]):
        p = "h.%d." % l
        h = F.layer_norm(x, (d,), w[p + "ln_1.weight"], w[p + "ln_1.bias"], 1e-5)
        qkv = torch.addmm(w[p + "attn.c_attn.bias"], h, w[p + "attn.c_attn.weight"])  # Conv1D: x W + b
        q, k, v = (m.view(T, H, dh).transpose(0, 1) for m in qkv.split(d, dim=1))
        att = torch.softmax((q @ k.transpose(1, 2) / math.sqrt(dh)).masked_fill(mask, float("-inf")), -1)
        maps.append(att)  # [H, T, T]
        x = x + torch.addmm(w[p + "attn.c_proj.bias"], (att @ v).transpose(0, 1).reshape(T, d), w[p + "attn.c_proj.weight"])
        h = F.layer_norm(x, (d,), w[p + "ln_2.weight"], w[p + "ln_2.bias"], 1e-5)
        h = F.gelu(torch.addmm(w[p + "mlp.c_fc.bias"], h, w[p + "mlp.c_fc.weight"]), approximate="tanh")
        x = x + torch.addmm(w[p + "mlp.c_proj.bias"], h, w[p + "mlp.c_proj.weight"])
    x = F.layer_norm(x, (d,), w["ln_f.weight"], w["ln_f.bias"], 1e-5)
    return maps, (x @ w["wte.weight"].T).argmax(-1)


def torch_ms(w, T, threads, reps, openblas_set, warm_up):
    import torch
    evt.set_threads(threads, openblas_set)
    ids = torch.arange(T) * 97 % GPT2["vocab_size"]  # any ids: the work does not depend on them
    with torch.no_grad():
        if warm_up:
            gpt2_forward(w, ids)
        ms = []
        for _ in range(reps):
            t0 = time.perf_counter()
            gpt2_forward(w, ids)
            ms.append((time.perf_counter() - t0) * 1e3)
    return evt.median(ms)


# ---------------------------------------------------------------------------------------

def engine_rounds(cli, model_args, sentence, threads, reps, rounds, between=None):
    """Median over rounds of the CLI's compute_ms_median; `between` (if any) runs after each round
    (the other side of an alternating comparison) and its results are returned too."""
    e, o = [], []
    for _ in range(rounds):
        _, ms = cli_report([cli, "maps"] + model_args + ["--sentence", sentence, "--repeat", str(reps),
                                                          "--threads", str(threads)])
        e.append(ms)
        if between:
            o.append(between())
    return evt.median(e), (evt.median(o) if o else None), e, o


def app_bench(gui, model_args, sentence, frames, keystrokes, work):
    """Runs the app's --bench-frames mode under xvfb-run; returns its JSON (or None, with the reason)."""
    xvfb = shutil.which("xvfb-run")
    if not xvfb:
        return None, "xvfb-run not found (apt-get install xvfb)"
    out = os.path.join(work, "app_bench.json")
    cmd = [xvfb, "-a", "-s", "-screen 0 1920x1080x24", gui] + model_args + [
        "--sentence", sentence, "--view", "heads", "--all-layers", "--width", "1600", "--height", "1000",
        "--bench-frames", out, "--bench-frame-count", str(frames), "--bench-keystrokes", str(keystrokes)]
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(work, "xdg"))  # never the user's imgui.ini
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, timeout=3600)
    except subprocess.TimeoutExpired:
        return None, "the app benchmark did not finish within an hour"
    if r.returncode != 0 or not os.path.exists(out):
        return None, "headscope --bench-frames failed (exit %d): %s" % (r.returncode, r.stderr.strip()[-500:])
    with open(out) as f:
        return json.load(f), None


def run(cli, gui, cpus, rounds=3, app_frames=300, app_keystrokes=10, workdir=None):
    """Prints the tables; returns the fields to append to BENCH_SUMMARY."""
    fields = run_checkpoints(cli, gui, cpus, rounds, app_frames, app_keystrokes, workdir)
    return fields + gguf_bench(cli, cpus, rounds)


# ---------------------------------------------------------------------------------------
# 4. The Qwen2.5-0.5B-shaped GGUF file.

QWEN = {"layers": 24, "heads": 14, "kv_heads": 2, "d": 896, "ffn": 4864, "vocab": 151936, "head_dim": 64}
GGUF_NAME = "qwen2.5-0.5b-shaped-q4_k_m-random-v3.gguf"


def random_blocks(rng, type_name, rows, cols, std):
    """Random Q5_0, Q8_0, Q4_K or Q6_K blocks for a [rows, cols] matrix whose values have about `std`
    and mean 0: random quantized parts, fixed scales chosen for that spread."""
    import numpy as np
    if type_name == "Q5_0":  # half d | uint32 high bits | 16 bytes of low nibbles; x = (q - 16) d, q uniform 0..31
        n = rows * cols // 32
        b = rng.integers(0, 256, (n, 22), dtype=np.uint8)
        b[:, 0:2] = np.full(n, std / 9.23, dtype="<f2").view(np.uint8).reshape(n, 2)
        return b.tobytes()
    if type_name == "Q8_0":  # half d | 32 int8; x = q d, q uniform -128..127 (sd 73.9)
        n = rows * cols // 32
        b = rng.integers(0, 256, (n, 34), dtype=np.uint8)
        b[:, 0:2] = np.full(n, std / 73.9, dtype="<f2").view(np.uint8).reshape(n, 2)
        return b.tobytes()
    block_bytes = {"Q4_K": 144, "Q6_K": 210}[type_name]
    n = rows * cols // 256
    return set_k_scales(rng.integers(0, 256, (n, block_bytes), dtype=np.uint8), type_name, std).tobytes()


def set_k_scales(b, type_name, std):
    """Writes the fixed scales of random Q4_K / Q6_K / Q4_0 / Q8_0 blocks b [n, bytes per block] (uint8) so that
    their values have about `std` and mean about 0; returns b."""
    import numpy as np
    n = b.shape[0]
    if type_name == "Q4_K":  # half d, half dmin | 12 scale bytes (all sc = m = 32) | 128 bytes; x = 32 d q - 32 dmin
        d = std / (32 * 4.61)  # q uniform 0..15: sd 4.61, mean 7.5
        b[:, 0:2] = np.full(n, d, dtype="<f2").view(np.uint8).reshape(n, 2)
        b[:, 2:4] = np.full(n, d * 7.5, dtype="<f2").view(np.uint8).reshape(n, 2)
        b[:, 4:12] = 32 | (2 << 6)  # sc, m of pairs 0..3 (low 6 bits) and the top bits of pairs 4..7 (32 >> 4 = 2)
        b[:, 12:16] = 0             # low nibbles of pairs 4..7 (32 & 15 = 0)
        return b
    if type_name in ("Q4_0", "Q8_0"):  # half d | 16 bytes of nibbles (x = (q - 8) d) or 32 int8 (x = q d)
        b[:, 0:2] = np.full(n, std / (4.61 if type_name == "Q4_0" else 73.9), dtype="<f2").view(np.uint8).reshape(n, 2)
        return b
    assert type_name == "Q6_K"  # 128 bytes ql | 64 bytes qh | 16 int8 scales (all 16) | half d; x = 16 d (q - 32)
    b[:, 192:208] = 16
    b[:, 208:210] = np.full(n, std / (16 * 18.47), dtype="<f2").view(np.uint8).reshape(n, 2)  # q uniform 0..63: sd 18.47
    return b


def random_block_chunks(rng, type_name, rows, cols, std, chunk_bytes=32 << 20):
    """The blocks of a random Q4_K / Q6_K / Q4_0 / Q8_0 [rows, cols] matrix in chunks of about chunk_bytes (for
    files too large to hold): random bytes, then set_k_scales."""
    import numpy as np
    from gguf_writer import GGML_TYPES
    _, per_block, block_bytes = GGML_TYPES[type_name]
    n = rows * cols // per_block
    step = max(1, chunk_bytes // block_bytes)
    for first in range(0, n, step):
        m = min(step, n - first)
        b = np.frombuffer(bytearray(rng.bytes(m * block_bytes)), dtype=np.uint8).reshape(m, block_bytes)
        yield set_k_scales(b, type_name, std).tobytes()


def qwen_q4_k_m_type(cols, more_bits):
    """The type llama-quantize's Q4_K_M gives a matrix with rows of `cols` values: Q6_K where it gives
    more bits (the tied embedding as the output, attn_v and ffn_down of q4_k_m_more_bits's layers),
    Q4_K elsewhere; rows that are not whole 256-value blocks (Qwen2.5-0.5B's 896) fall back to Q8_0
    for Q6_K and Q5_0 for Q4_K, as llama-quantize does."""
    t = "Q6_K" if more_bits else "Q4_K"
    if cols % 256:
        t = {"Q6_K": "Q8_0", "Q4_K": "Q5_0"}[t]
    return t


def write_qwen_gguf(path, tokdir, pad_vocab=False):
    """The Qwen2.5-0.5B-shaped file (see the module docstring), streamed by tests/bench/gguf_writer.py;
    returns its size in bytes. With pad_vocab, the token list is padded to the 151,936 embedding rows
    with unused tokens ("<|unused_N|>", type 5) as Qwen's own files are: llama.cpp refuses a file whose
    vocabulary and embedding rows differ (llama_cpp_bench.py)."""
    import numpy as np
    from gguf_writer import BOOL, FLOAT32, INT32, STRING, UINT32, StreamedGGUFWriter
    q = QWEN
    rng = np.random.default_rng(25)
    w = StreamedGGUFWriter()
    w.add_string("general.architecture", "qwen2")
    w.add_string("general.name", "Qwen2.5-0.5B-shaped random Q4_K_M")
    for key, value in (("context_length", 32768), ("embedding_length", q["d"]), ("block_count", q["layers"]),
                       ("feed_forward_length", q["ffn"]), ("attention.head_count", q["heads"]),
                       ("attention.head_count_kv", q["kv_heads"])):
        w.add_uint32("qwen2." + key, value)
    w.add("qwen2.rope.freq_base", FLOAT32, 1000000.0)
    w.add("qwen2.attention.layer_norm_rms_epsilon", FLOAT32, 1e-6)
    from qwen_vocab import QWEN_ORDINARY, qwen_vocabulary
    tokens, types, merges = qwen_vocabulary(tokdir)
    w.add_string("tokenizer.ggml.model", "gpt2")
    w.add_string("tokenizer.ggml.pre", "qwen2")
    types = [3 if t == "<|endoftext|>" else 1 for t in tokens]
    if pad_vocab:
        extra = q["vocab"] - len(tokens)
        tokens += ["<|unused_%d|>" % i for i in range(extra)]
        types += [5] * extra
    w.add_array("tokenizer.ggml.tokens", STRING, tokens)
    w.add_array("tokenizer.ggml.token_type", INT32, types)
    w.add_array("tokenizer.ggml.merges", STRING, merges)
    w.add("tokenizer.ggml.eos_token_id", UINT32, QWEN_ORDINARY)
    w.add("tokenizer.ggml.add_bos_token", BOOL, False)

    d, ffn, kv = q["d"], q["ffn"], q["kv_heads"] * q["head_dim"]
    qd = q["heads"] * q["head_dim"]

    # The producers draw from rng when the writer calls them, in the order the tensors are added.
    def matrix(name, rows, cols, std, more_bits=False):
        t = qwen_q4_k_m_type(cols, more_bits)
        w.add_tensor(name, [cols, rows], t, lambda: random_blocks(rng, t, rows, cols, std))

    def vector(name, n, mean, std):
        w.add_tensor(name, [n], "F32", lambda: (mean + rng.standard_normal(n) * std).astype("<f4").tobytes())

    matrix("token_embd.weight", q["vocab"], d, 0.05, more_bits=True)  # tied: quantized as the output
    vector("output_norm.weight", d, 1.0, 0.1)
    for l in range(q["layers"]):
        b = "blk.%d." % l
        vector(b + "attn_norm.weight", d, 1.0, 0.1)
        matrix(b + "attn_q.weight", qd, d, 0.05)
        matrix(b + "attn_k.weight", kv, d, 0.05)
        matrix(b + "attn_v.weight", kv, d, 0.03, q4_k_m_more_bits(l, q["layers"]))
        vector(b + "attn_q.bias", qd, 0.0, 0.2)
        vector(b + "attn_k.bias", kv, 0.0, 0.2)
        vector(b + "attn_v.bias", kv, 0.0, 0.05)
        matrix(b + "attn_output.weight", d, qd, 0.02)
        vector(b + "ffn_norm.weight", d, 1.0, 0.1)
        matrix(b + "ffn_gate.weight", ffn, d, 0.02)
        matrix(b + "ffn_up.weight", ffn, d, 0.02)
        matrix(b + "ffn_down.weight", d, ffn, 0.02, q4_k_m_more_bits(l, q["layers"]))
    return w.write(path)


# A Llama-3-8B-shaped GGUF file (llama_cpp_bench.py --files 8b).

LLAMA8B = {"layers": 32, "heads": 32, "kv_heads": 8, "d": 4096, "ffn": 14336, "vocab": 128256, "head_dim": 128}
LLAMA8B_GGUF_NAME = "llama3-8b-shaped-q4_k_m-random-v1.gguf"


def q4_k_m_more_bits(layer, layers):
    """llama-quantize's Q4_K_M rule (use_more_bits): the layers whose attn_v and ffn_down get Q6_K."""
    return layer < layers // 8 or layer >= 7 * layers // 8 or (layer - layers // 8) % 3 == 2


def write_llama8b_gguf(path, tokdir, matrix_type=None):
    """A Llama-3-8B-shaped Q4_K_M-like file with random weights, streamed tensor by tensor (4.9 GB; never
    in memory whole): 32 layers, d_model 4096, 32 query heads on 8 key/value heads of 128, feed-forward
    14,336, RoPE base 500,000, an untied output projection over the 128,256-token vocabulary. Types as
    llama-quantize's Q4_K_M makes them: Q6_K for output.weight, and for attn_v and ffn_down in the
    layers of q4_k_m_more_bits; Q4_K for every other matrix; F32 norms. The tokenizer: Llama 3's
    sizes and pre-tokenizer ("llama-bpe"), tests/bench/qwen_vocab.py's llama3_vocabulary. Returns
    the size in bytes. matrix_type "Q4_0" or "Q8_0": every matrix in that type instead (4.6 / 8.5 GB),
    the same shapes and norms (another quantization of the same model shape)."""
    import numpy as np
    from gguf_writer import BOOL, FLOAT32, INT32, STRING, UINT32, StreamedGGUFWriter
    from qwen_vocab import LLAMA3_BOS, LLAMA3_EOS, llama3_vocabulary
    q = LLAMA8B
    rng = np.random.default_rng(34)
    w = StreamedGGUFWriter()
    w.add_string("general.architecture", "llama")
    w.add_string("general.name", "Llama-3-8B-shaped random " + (matrix_type or "Q4_K_M"))
    w.add_uint32("general.file_type", {None: 15, "Q4_0": 2, "Q8_0": 7}[matrix_type])  # LLAMA_FTYPE_MOSTLY_*
    for key, value in (("context_length", 8192), ("embedding_length", q["d"]), ("block_count", q["layers"]),
                       ("feed_forward_length", q["ffn"]), ("attention.head_count", q["heads"]),
                       ("attention.head_count_kv", q["kv_heads"]), ("rope.dimension_count", q["head_dim"]),
                       ("vocab_size", q["vocab"])):
        w.add_uint32("llama." + key, value)
    w.add("llama.rope.freq_base", FLOAT32, 500000.0)
    w.add("llama.attention.layer_norm_rms_epsilon", FLOAT32, 1e-5)
    tokens, types, merges = llama3_vocabulary(tokdir)
    w.add_string("tokenizer.ggml.model", "gpt2")
    w.add_string("tokenizer.ggml.pre", "llama-bpe")
    w.add_array("tokenizer.ggml.tokens", STRING, tokens)
    w.add_array("tokenizer.ggml.token_type", INT32, types)
    w.add_array("tokenizer.ggml.merges", STRING, merges)
    w.add("tokenizer.ggml.bos_token_id", UINT32, LLAMA3_BOS)
    w.add("tokenizer.ggml.eos_token_id", UINT32, LLAMA3_EOS)
    w.add("tokenizer.ggml.add_bos_token", BOOL, True)

    d, ffn, kv, L = q["d"], q["ffn"], q["kv_heads"] * q["head_dim"], q["layers"]

    # Scales: q and k of 0.025 give scores of about 2.5 (peaked maps, no overflow) after RMSNorm.
    def matrix(name, rows, cols, std, type_name="Q4_K"):
        type_name = matrix_type or type_name
        w.add_tensor(name, [cols, rows], type_name, lambda: random_block_chunks(rng, type_name, rows, cols, std))

    def vector(name, n, mean, std):
        w.add_tensor(name, [n], "F32", lambda: (mean + rng.standard_normal(n) * std).astype("<f4").tobytes())

    matrix("token_embd.weight", q["vocab"], d, 0.02)
    vector("output_norm.weight", d, 1.0, 0.1)
    matrix("output.weight", q["vocab"], d, 0.02, "Q6_K")
    for l in range(L):
        b = "blk.%d." % l
        more = "Q6_K" if q4_k_m_more_bits(l, L) else "Q4_K"
        vector(b + "attn_norm.weight", d, 1.0, 0.1)
        matrix(b + "attn_q.weight", d, d, 0.025)
        matrix(b + "attn_k.weight", kv, d, 0.025)
        matrix(b + "attn_v.weight", kv, d, 0.02, more)
        matrix(b + "attn_output.weight", d, d, 0.01)
        vector(b + "ffn_norm.weight", d, 1.0, 0.1)
        matrix(b + "ffn_gate.weight", ffn, d, 0.02)
        matrix(b + "ffn_up.weight", ffn, d, 0.02)
        matrix(b + "ffn_down.weight", d, ffn, 0.01, more)
    return w.write(path)


def bench_model_path(cli, name):
    """Where the benchmark files live: bench-models/ next to the CLI in the build tree (kept for later runs)."""
    folder = os.path.join(os.path.dirname(os.path.abspath(cli)), "bench-models")
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, name)


def gguf_bench(cli, cpus, rounds):
    tokdir = os.path.join(models_dir(), "gpt2-tokenizer")
    print("\nGGUF: a Qwen2.5-0.5B-shaped file with random weights (24 layers x 14 heads on 2 key/value heads, d_model 896, "
          "ffn 4864, 151,936 embedding rows, tied)")
    if not os.path.isfile(os.path.join(tokdir, "encoder.json")):
        print("  SKIPPED: %s/encoder.json not found (its tokenizer; set HEADSCOPE_MODELS_DIR)" % tokdir)
        return []
    folder = os.path.join(os.path.dirname(os.path.abspath(cli)), "bench-models")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, GGUF_NAME)
    if not os.path.isfile(path):
        t0 = time.perf_counter()
        size = write_qwen_gguf(path, tokdir)
        print("  written to %s (%.0f MiB, %.0f s)" % (path, size / 2**20, time.perf_counter() - t0))
    else:
        print("  %s (%.0f MiB, kept from an earlier run)" % (path, os.path.getsize(path) / 2**20))
    print("  types: llama-quantize's Q4_K_M: Q4_K / Q6_K for ffn_down (rows of 4864 = 19 blocks of 256), Q5_0 / Q8_0 "
          "for the 896-wide rows and the tied embedding (its fallbacks), F32 norms and biases")
    args = ["--model", path]
    sentence, T = fit_sentence(cli, args, 256)
    fields = []
    for k in sorted({1, cpus}):
        ms, _, per, _ = engine_rounds(cli, args, sentence, k, 3, rounds)
        print("    %d thread(s), T = %d: %8.0f ms   (rounds: %s)" % (k, T, ms, " ".join("%.0f" % x for x in per)))
        fields.append("gguf_qwen05b_T%dt%d=%.0fms" % (T, k, ms))
    mib, wall, compute = evt.peak_rss([cli, "maps"] + args + ["--sentence", sentence, "--threads", str(cpus)])
    print("    peak RSS of the whole process (load, one run, report; mapped weights touched included): %s MiB, %.1f s wall"
          % ("%.0f" % mib if mib else "?", wall or float("nan")))
    if mib:
        fields.append("gguf_qwen05b_rss=%.0fMiB" % mib)
    with open("/proc/loadavg") as f:
        print("    load average at the end: " + " ".join(f.read().split()[:3]))
    return fields


def ablation_bench(cli, args, threads=2, T=64):
    """Head ablation on the GPT-2-shaped folder: every head knocked out once (144 zero-ablations), T = 64,
    `headscope-cli ablate --threads 2 --json` (its compute_ms: the passes, loading not included); target
    (issue 18) under 20 s. Returns the BENCH_SUMMARY field."""
    sentence, T = fit_sentence(cli, args, T)
    out = tempfile.mktemp(prefix="headscope-ablate-", suffix=".json")
    load = " ".join(open("/proc/loadavg").read().split()[:3]) if os.path.exists("/proc/loadavg") else "?"
    t0 = time.perf_counter()
    r = subprocess.run([cli, "ablate"] + args + ["--sentence", sentence, "--threads", str(threads), "--json", out],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        print("  ablation: FAILED: " + r.stderr.strip()[-300:])
        return ["gpt2s_ablate_T%d=failed" % T]
    with open(out) as f:
        j = json.load(f)
    os.unlink(out)
    heads = sum(len(row) for row in j["delta_loss"])
    print("  head ablation (headscope-cli ablate, zero, %d threads), T = %d: %d heads knocked out in %.2f s "
          "(target < 20 s; %.2f s wall with loading); load average before: %s"
          % (threads, T, heads, j["compute_ms"] / 1000.0, wall, load))
    return ["gpt2s_ablate_T%dt%d=%.2fs" % (T, threads, j["compute_ms"] / 1000.0)]


def load_average():
    """The 1-minute load average (other processes on the machine), as text."""
    try:
        with open("/proc/loadavg") as f:
            return f.read().split()[0]
    except OSError:
        return "?"


# Keystroke -> new maps on screen (issue 21), median and worst, with their targets.
TYPING_TARGETS_MS = {"gpt2s": 150, "stories260K": 16, "synthetic": 16}


def print_keystroke_parts(k):
    """Where a keystroke's time went (medians): the worker's parts and the frame that swapped the maps in."""
    parts = k.get("compute_parts_ms_median")
    if parts:
        print("    worker, median ms: " + ", ".join("%s %.1f" % (n, parts[n]) for n in
                                                   ("prepare", "engine", "pairs", "average", "per_head", "rollout", "roles")))
    swap = k.get("swap_in_frame_parts_ms_median")
    if swap:
        print("    first new result on screen %.1f ms after the key (median), every map new %.1f ms; swap-in frame "
              "%.1f ms: panels %.1f (of which %d map uploads %.1f), GL drawing %.1f; longest frame meanwhile %.1f ms"
              % (k.get("first_maps_ms_median", 0), k["median_ms"], k["swap_in_frame_ms_median"], swap["ui"],
                 swap["maps_coloured"], swap["upload"], swap["render"], k["longest_frame_during_recompute_ms"]))


def typing_bench(gui, work, keystrokes, gpt2, stories_args):
    """Live typing: one character typed at the end of the sentence, then the next once its maps are
    on screen, for the GPT-2-small-shaped checkpoint (the app run above), stories260K and the
    synthetic default; prints median and worst keystroke -> new maps against the targets, the
    load average beside each, and how many keystrokes reused the previous run's prefix (causal
    models; the synthetic default is bidirectional and runs whole). Returns BENCH_SUMMARY fields."""
    print("\nlive typing (headscope --bench-frames --bench-keystrokes %d under xvfb-run): keystroke -> new maps on "
          "screen, one character typed at the end each time" % keystrokes)
    runs = [gpt2]
    if stories_args:
        runs.append(("stories260K", "stories260K", stories_args,
                     "Once upon a time, there was a little girl named Lily. She loved to play outside", None))
    runs.append(("synthetic", "synthetic default (d_model 8, 2 heads, bidirectional)", [],
                 "The cat sat on the mat because it was tired", None))
    fields = []
    for key, label, args, sentence, j in runs:
        if j is None:
            j, why = app_bench(gui, args, sentence, 30, keystrokes, work)
            if j is None:
                print("  %s: FAILED: %s" % (label, why))
                fields.append("key_%s=failed" % key)
                continue
        k = j["keystrokes"]
        reused = [r for r in k.get("reused_tokens", []) if r >= 0]
        target = TYPING_TARGETS_MS[key]
        verdict = "met" if k["median_ms"] <= target else "missed"
        print("  %-52s T %3d -> %3d: median %6.1f ms, worst %6.1f ms (target <= %d ms median: %s); worker compute "
              "median %.1f ms; %d of %d keystrokes reused a prefix; load average (1 min) %s"
              % (label, k["tokens"][0] if k["tokens"] else 0, k["tokens"][-1] if k["tokens"] else 0, k["median_ms"],
                 k["max_ms"], target, verdict, k["compute_ms_median"], len(reused), k["count"], load_average()))
        print_keystroke_parts(k)
        fields.append("key_%s_ms=%.1f/%.1f(target<=%d:%s,load=%s)" % (key, k["median_ms"], k["max_ms"], target, verdict,
                                                                     load_average()))
    return fields


def run_checkpoints(cli, gui, cpus, rounds, app_frames, app_keystrokes, workdir):
    """Sections 1-3; returns their BENCH_SUMMARY fields."""
    import torch
    models = models_dir()
    fields = []
    threads_list = sorted({1, cpus})
    work = tempfile.mkdtemp(prefix="headscope-models-bench-", dir=workdir)
    try:
        # 1. stories260K
        stories = os.path.join(models, "stories260K")
        bin_, tok = os.path.join(stories, "stories260K.bin"), os.path.join(stories, "tok512.bin")
        print("\npretrained checkpoints: the whole forward with every head's map and the next-token predictions "
              "(headscope-cli maps --model ... --repeat N: compute_ms_median, median of %d rounds)" % rounds)
        if os.path.isfile(bin_) and os.path.isfile(tok):
            args = ["--model", bin_, "--tokenizer", tok]
            sentence, T = fit_sentence(cli, args, 64)
            print("  stories260K (5 layers x 8 heads on 4 key/value heads, d_model 64), T = %d: %s" % (T, sentence[:60] + "..."))
            for k in threads_list:
                ms, _, per, _ = engine_rounds(cli, args, sentence, k, 30, rounds)
                print("    %d thread(s): %8.3f ms   (rounds: %s)" % (k, ms, " ".join("%.3f" % x for x in per)))
                fields.append("stories260K_T%dt%d=%.3fms" % (T, k, ms))
        else:
            print("  stories260K: SKIPPED, %s not found (set HEADSCOPE_MODELS_DIR)" % stories)

        # 2. GPT-2-small-shaped random checkpoint
        tokdir = os.path.join(models, "gpt2-tokenizer")
        if not (os.path.isfile(os.path.join(tokdir, "encoder.json")) and os.path.isfile(os.path.join(tokdir, "vocab.bpe"))):
            print("  GPT-2-shaped: SKIPPED, %s/encoder.json, vocab.bpe not found (set HEADSCOPE_MODELS_DIR)" % tokdir)
            return fields
        folder = os.path.join(work, "gpt2-small-random")
        t0 = time.perf_counter()
        w = write_gpt2_folder(folder, tokdir)
        written_s = time.perf_counter() - t0
        args = ["--model", folder]
        sentence, T = fit_sentence(cli, args, 256)
        print("  GPT-2-small-shaped, random weights (12 layers x 12 heads, d_model 768, vocab 50257; folder written "
              "in %.0f s), T = %d" % (written_s, T))
        openblas_set = evt.openblas_threads_setter()
        print("  %-4s | %10s %10s %6s | %s" % ("thr", "engine ms", "torch ms", "ratio", "per round (engine/torch)"))
        for k in threads_list:
            warm = [True]

            def torch_round():
                ms = torch_ms(w, T, k, 3, openblas_set, warm[0])
                warm[0] = False
                return ms
            e, t, per_e, per_t = engine_rounds(cli, args, sentence, k, 3, rounds, between=torch_round)
            print("  %-4d | %10.1f %10.1f %6.2f | %s" % (k, e, t, e / t, " ".join("%.0f/%.0f" % x for x in zip(per_e, per_t))))
            fields.append("gpt2s_T%dt%d=%.1fms/%.1fms=%.2fx" % (T, k, e, t, e / t))
            forward_ms = e  # the last row: all threads, as the app's worker runs
        print("  torch %s: the same forward in plain PyTorch (maps, logits of every position and their argmax; "
              "no_grad; median of 3 calls;\n    threads set with torch.set_num_threads and openblas_set_num_threads); "
              "engine: compute_ms_median of --repeat 3" % torch.__version__)
        w = None  # 500 MB
        fields += ablation_bench(cli, args)

        # 3. The app
        print("\napp (headscope --bench-frames under xvfb-run, Mesa): layers x heads overview of the GPT-2-shaped "
              "checkpoint, T = %d, window 1600 x 1000" % T)
        if not gui or not os.path.exists(gui):
            print("  SKIPPED: no headscope binary (%s)" % gui)
            return fields
        j, why = app_bench(gui, args, sentence, app_frames, app_keystrokes, work)
        if j is None:
            print("  FAILED: " + why)
            fields.append("app=failed")
            return fields
        f, k = j["frames"], j["keystrokes"]
        print("  renderer: %s" % j.get("renderer", "?"))
        print("  frames: %d with the maps on screen, %s heatmaps drawn per frame (%d overlap another, %d run past "
              "the window); vsync off, glFinish per frame"
              % (f["count"], f["heatmaps_min"] if f["heatmaps_min"] == f["heatmaps_max"] else
                 "%d-%d" % (f["heatmaps_min"], f["heatmaps_max"]), f.get("heatmaps_overlapping", 0),
                 f.get("heatmaps_outside_window", 0)))
        print("    mean %.2f ms, median %.2f ms, p95 %.2f ms, max %.2f ms  ->  %.1f frames/s (target >= 60: %s)"
              % (f["mean_ms"], f["median_ms"], f["p95_ms"], f["max_ms"], f["fps"], "met" if f["fps"] >= 60 else "missed"))
        print("    at most %d draw calls per frame; %d maps coloured again during the timed frames (a still screen: 0)"
              % (f.get("draw_calls_max", -1), f.get("heatmap_renders", -1)))
        print("  keystrokes: %d characters typed into the sentence box (T %d -> %d), each until its maps are on screen"
              % (k["count"], k["tokens"][0] if k["tokens"] else 0, k["tokens"][-1] if k["tokens"] else 0))
        print("    keystroke -> new maps drawn: median %.0f ms, max %.0f ms; the worker's compute: median %.0f ms "
              "(the forward alone, all threads, above: %.0f ms)" % (k["median_ms"], k["max_ms"], k["compute_ms_median"], forward_ms))
        print("    while the worker recomputed the window kept drawing: median %.0f frames per keystroke, longest frame "
              "%.0f ms; the frame that swapped the new maps in: median %.0f ms"
              % (k["frames_during_recompute_median"], k["longest_frame_during_recompute_ms"], k["swap_in_frame_ms_median"]))
        fields += ["app_heatmaps=%d" % f["heatmaps_max"],
                   "app_frame_ms=%.2f/%.2f/%.2f" % (f["mean_ms"], f["median_ms"], f["p95_ms"]),
                   "app_fps=%.1f" % f["fps"],
                   "app_fps_target>=60:%s" % ("met" if f["fps"] >= 60 else "missed"),
                   "app_draw_calls=%d" % f.get("draw_calls_max", -1),
                   "app_key_ms=%.0f" % k["median_ms"],
                   "app_key_longest_frame_ms=%.0f" % k["longest_frame_during_recompute_ms"]]
        fields += typing_bench(gui, work, app_keystrokes, ("gpt2s", "GPT-2-small-shaped", args, sentence, j),
                               stories_args=["--model", bin_, "--tokenizer", tok] if os.path.isfile(bin_) else None)
        return fields
    finally:
        if workdir is None:
            shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default="build-bench/headscope-cli")
    ap.add_argument("--gui", default="build-bench/headscope")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--app-frames", type=int, default=300)
    ap.add_argument("--app-keystrokes", type=int, default=10)
    ap.add_argument("--workdir", default=None, help="keep the GPT-2 folder and app JSON under this folder")
    ap.add_argument("--gguf-only", action="store_true", help="only the Qwen2.5-0.5B-shaped GGUF file (section 4)")
    a = ap.parse_args()
    cpus = len(os.sched_getaffinity(0))
    if a.gguf_only:
        fields = gguf_bench(a.cli, cpus, a.rounds)
    else:
        fields = run(a.cli, a.gui, cpus, a.rounds, a.app_frames, a.app_keystrokes, a.workdir)
    print("\nMODELS_SUMMARY " + " ".join(fields))


if __name__ == "__main__":
    main()
