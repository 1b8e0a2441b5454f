#!/usr/bin/python3
"""headscope-cli when the machine misbehaves (issue 54): a full disk, a full quota, a read-only file
system, a model file truncated while a run reads it, an address-space limit below what an
8B-class model needs. Each must end in exit 1 with one "error:" line naming the file (and the
numbers), the previous output file whole and no temporary file left behind.

Usage: machine_faults.py CLI SHIM GGUF_TEST_DIR
  SHIM: the LD_PRELOAD write-fault library (tests/cli/write_fault_shim.c, a test target);
  GGUF_TEST_DIR: the fixture formats.gguf_test_files' folder (stories260K_f32.gguf).
Cases needing root (a small tmpfs) say "skip ..." when mounting is refused.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "bench"))
from gguf_writer import BOOL, FLOAT32, INT32, STRING, UINT32, StreamedGGUFWriter, tensor_bytes  # noqa: E402

CLI = SHIM = GGUF_DIR = WORK = None
SANITIZED = False
failures = []
passed = 0
GiB = 1 << 30


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def ok(msg):
    global passed
    passed += 1
    print("ok   " + msg)


def run(args, env=None, timeout=60, prefix=()):
    e = dict(os.environ)
    e.update(env or {})
    try:
        p = subprocess.run(list(prefix) + [CLI] + args, capture_output=True, timeout=timeout, env=e)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout} s"
    return p.returncode, p.stderr.decode("utf-8", "replace")


def leftovers(folder):
    return [f for f in os.listdir(folder) if f.startswith(".hs-")]


def expect_refused(name, args, phrases, env=None, prefix=(), kept=None, timeout=60):
    """Exit 1, one stderr line starting "error:" holding every phrase; `kept`: (path, bytes) intact."""
    rc, err = run(args, env, timeout, prefix)
    lines = [l for l in err.splitlines() if l.strip()]
    problems = []
    if rc != 1:
        problems.append(f"exit {rc}, expected 1")
    if len(lines) != 1 or not lines[0].startswith("error: "):
        problems.append("stderr is not one 'error:' line")
    problems += [f"no '{p}'" for p in phrases if p not in err]
    if kept:
        path, want = kept
        have = open(path, "rb").read() if os.path.exists(path) else None
        if have != want:
            problems.append(f"{path} was not kept whole ({'missing' if have is None else len(have)} bytes)")
        left = leftovers(os.path.dirname(path))
        if left:
            problems.append(f"temporary files left: {left}")
    if problems:
        fail(f"{name}: {'; '.join(problems)}\n     stderr: {err.strip()[:600]}")
    else:
        ok(f"{name}: {lines[0][:150]}")


# ---------------------------------------------------------------------------------------------
def writes():
    """Exports, the maps JSON and corpus shards under ENOSPC / EDQUOT (at write) and EROFS (at open)."""
    out = os.path.join(WORK, "out")
    os.makedirs(out, exist_ok=True)
    corpus = os.path.join(WORK, "corpus.txt")
    open(corpus, "w").write("the cat sat on the mat\nthe dog ran to the park\n")
    cases = [
        ("export PNG", "fig.png", ["export", "--sentence", "the cat sat", "--out"]),
        ("export PDF", "fig.pdf", ["export", "--sentence", "the cat sat", "--out"]),
        ("export NPY", "maps.npy", ["export", "--sentence", "the cat sat", "--out"]),
        ("maps --json", "maps.json", ["maps", "--sentence", "the cat sat", "--json"]),
        ("heads --corpus shard", "shard.jsonl", ["heads", "--corpus", corpus, "--shard", "0/2", "--quiet", "--json"]),
    ]
    faults = [("ENOSPC", "write", "No space left on device"), ("EDQUOT", "write", "Disk quota exceeded"),
              ("EROFS", "open", "Read-only file system")]
    for what, name, args in cases:
        target = os.path.join(out, name)
        previous = b"the previous " + name.encode() + b", which must survive\n"
        for err_name, at, words in faults:
            open(target, "wb").write(previous)
            env = {"LD_PRELOAD": SHIM, "HEADSCOPE_FAULT_DIR": out, "HEADSCOPE_FAULT": err_name, "HEADSCOPE_FAULT_AT": at}
            expect_refused(f"{what} under {err_name}", args + [target], [f"cannot write {target}", words], env=env,
                           kept=(target, previous))
    # The shim itself: without a fault the same command writes (so the cases above tested the writes).
    target = os.path.join(out, "fig.png")
    rc, err = run(["export", "--sentence", "the cat sat", "--out", target], {"LD_PRELOAD": SHIM, "HEADSCOPE_FAULT_DIR": out})
    if rc == 0 and open(target, "rb").read(4) == b"\x89PNG":
        ok("the shim without a fault: the export is written")
    else:
        fail(f"the shim without a fault: exit {rc}: {err.strip()[:300]}")


def full_tmpfs():
    """A real full file system: a 256 KiB tmpfs (root only; skipped where mounting is refused)."""
    mnt = os.path.join(WORK, "small")
    os.makedirs(mnt)
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "headscope-test", mnt], capture_output=True)
    if p.returncode != 0:
        print(f"skip full tmpfs: mounting a tmpfs was refused ({p.stderr.decode().strip()[:120]})")
        return
    try:
        target = os.path.join(mnt, "maps.json")
        previous = b"{\"previous\": true}\n" * 1000  # 19 KB
        open(target, "wb").write(previous)
        words = " ".join(["the cat sat on the mat"] * 40)  # 241 tokens: a maps JSON of several MB
        expect_refused("maps --json on a full tmpfs", ["maps", "--sentence", words, "--json", target],
                       [f"cannot write {target}", "No space left on device"], kept=(target, previous))
    finally:
        subprocess.run(["umount", mnt], capture_output=True)


# ---------------------------------------------------------------------------------------------
def truncated_model():
    """A GGUF file truncated while `maps --repeat` runs on it: exit 1 with "changed on disk"."""
    source = os.path.join(GGUF_DIR, "stories260K_f32.gguf")
    if not os.path.isfile(source):
        fail(f"{source} not found (ctest runs the fixture formats.gguf_test_files first)")
        return
    model = os.path.join(WORK, "model.gguf")
    shutil.copyfile(source, model)
    sentence = " ".join(["Lily saw a big cat and the cat ran to the park."] * 4)
    p = subprocess.Popen([CLI, "maps", "--model", model, "--sentence", sentence, "--repeat", "100000", "--json",
                          os.path.join(WORK, "never.json")], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    # Wait until the file is mapped (it shows in the process's maps), then let it run a little.
    deadline = time.monotonic() + 30
    mapped = False
    while time.monotonic() < deadline and p.poll() is None and not mapped:
        try:
            mapped = model in open(f"/proc/{p.pid}/maps").read()
        except OSError:
            pass
        time.sleep(0.02)
    time.sleep(0.3)
    os.truncate(model, 4096)
    try:
        _, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
    err = err.decode("utf-8", "replace")
    want = f"error: {model}: the model file changed on disk; reopen it"
    if not mapped:
        fail(f"truncated while running: never saw {model} mapped (exit {p.returncode}: {err.strip()[:300]})")
    elif p.returncode == 1 and err.startswith(want) and len(err.strip().splitlines()) == 1:
        ok(f"truncated while running: {err.strip()[:200]}")
    else:
        fail(f"truncated while running: exit {p.returncode}, expected 1 and '{want}'; stderr: {err.strip()[:400]}")


# ---------------------------------------------------------------------------------------------
LLAMA8B = {"layers": 32, "heads": 32, "kv_heads": 8, "d": 4096, "ffn": 14336, "vocab": 128256, "head_dim": 128}


def byte_tokens():
    """GPT-2's 256 byte symbols: a complete byte-level vocabulary without merges."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [chr(c) for c in cs]


def write_sparse_8b(path):
    """A Llama-3-8B-shaped Q4_K file (4.5 GB, 4.2 GiB) whose tensor data is a hole: the header, then truncate."""
    q = LLAMA8B
    w = StreamedGGUFWriter()
    w.add_string("general.architecture", "llama")
    w.add_string("general.name", "8B-shaped sparse")
    for key, value in (("context_length", 8192), ("embedding_length", q["d"]), ("block_count", q["layers"]),
                       ("feed_forward_length", q["ffn"]), ("attention.head_count", q["heads"]),
                       ("attention.head_count_kv", q["kv_heads"]), ("rope.dimension_count", q["head_dim"]),
                       ("vocab_size", q["vocab"])):
        w.add_uint32("llama." + key, value)
    w.add("llama.rope.freq_base", FLOAT32, 500000.0)
    w.add("llama.attention.layer_norm_rms_epsilon", FLOAT32, 1e-5)
    tokens = byte_tokens() + ["ab"]  # one merge: "a" "b" -> "ab"
    w.add_string("tokenizer.ggml.model", "gpt2")
    w.add_string("tokenizer.ggml.pre", "llama-bpe")
    w.add_array("tokenizer.ggml.tokens", STRING, tokens)
    w.add_array("tokenizer.ggml.token_type", INT32, [1] * len(tokens))
    w.add_array("tokenizer.ggml.merges", STRING, ["a b"])
    w.add("tokenizer.ggml.add_bos_token", BOOL, False)
    d, ffn, kv = q["d"], q["ffn"], q["kv_heads"] * q["head_dim"]
    none = lambda: b""  # noqa: E731 (never called: only the header is written)
    w.add_tensor("token_embd.weight", [d, q["vocab"]], "Q4_K", none)
    w.add_tensor("output_norm.weight", [d], "F32", none)
    w.add_tensor("output.weight", [d, q["vocab"]], "Q4_K", none)
    for layer in range(q["layers"]):
        b = "blk.%d." % layer
        for name, dims, t in (("attn_norm", [d], "F32"), ("attn_q", [d, d], "Q4_K"), ("attn_k", [d, kv], "Q4_K"),
                              ("attn_v", [d, kv], "Q4_K"), ("attn_output", [d, d], "Q4_K"), ("ffn_norm", [d], "F32"),
                              ("ffn_gate", [d, ffn], "Q4_K"), ("ffn_up", [d, ffn], "Q4_K"), ("ffn_down", [ffn, d], "Q4_K")):
            w.add_tensor(b + name + ".weight", dims, t, none)
    header = w.header()
    size = len(header) + sum(s + w._pad(s) for _, _, _, s, _ in w.tensors)
    with open(path, "wb") as f:
        f.write(header)
        f.truncate(size)
    return size


def memory_limit():
    """An 8B-class file under `prlimit --as` 3 GiB: refused before mapping, with the numbers."""
    if SANITIZED:
        print("skip 8B-class file under prlimit --as: a sanitized build cannot run under RLIMIT_AS")
        return
    if not shutil.which("prlimit"):
        fail("prlimit (util-linux) not found")
        return
    path = os.path.join(WORK, "llama8b-sparse.gguf")
    size = write_sparse_8b(path)
    started = time.monotonic()
    expect_refused("8B-class GGUF under prlimit --as 3 GiB", ["maps", "--model", path, "--sentence", "a b"],
                   [path, "GiB file is mapped into memory whole", "RLIMIT_AS", "is 3.0 GiB", "in use"],
                   prefix=["prlimit", f"--as={3 * GiB}"], timeout=60)
    print(f"     ({size / 1e9:.2f} GB sparse file, refused in {time.monotonic() - started:.2f} s)")
    # Without the limit, the memory budget (here an override of 1 GiB) counts the mapped weights.
    expect_refused("8B-class GGUF with 1 GiB available", ["maps", "--model", path, "--sentence", "a b"],
                   [path, "running it on", "tokens needs about", "mapped from the file", "1.0 GiB is available"],
                   env={"HEADSCOPE_MEMORY_AVAILABLE": "1G"})
    os.unlink(path)


def main():
    global CLI, SHIM, GGUF_DIR, WORK, SANITIZED
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    CLI, SHIM, GGUF_DIR = (os.path.abspath(a) for a in sys.argv[1:])
    with open(CLI, "rb") as f:  # AddressSanitizer's runtime reserves terabytes of address space
        SANITIZED = "ASAN_OPTIONS" in os.environ or b"__asan_init" in f.read()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="headscope-faults-") as work:
        WORK = work
        for check in (writes, full_tmpfs, truncated_model, memory_limit):
            check()
    print(f"{passed} machine-fault cases passed, {len(failures)} failed in {time.monotonic() - started:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
