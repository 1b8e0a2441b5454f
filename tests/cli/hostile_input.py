#!/usr/bin/python3
"""headscope-cli against hostile input (issue 15): flags at the edges of int, devices and endless
files, broken checkpoints, planted symlinks, signals and file-size limits. Every bad case must
exit 1 or 2 with exactly one stderr line starting "error:" that names the problem: no death by a
signal, no hang (each run has a time limit), no memory blow-up (RLIMIT_AS where it matters) and
no temporary file left behind.

Usage: hostile_input.py PATH/TO/headscope-cli
Needs only the standard library.
"""
import json
import os
import resource
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import time

CLI = None
WORK = None
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failures = []
passed = 0
GiB = 1 << 30


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def limits(memory=None, file_size=None):
    """preexec_fn: an address-space limit (bytes) and/or a file-size limit (bytes)."""
    def apply():
        if memory:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        if file_size is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
    return apply


def run(args, timeout=20, memory=2 * GiB, file_size=None, cwd=None, env=None):
    e = dict(os.environ)
    if env:
        e.update(env)
    try:
        p = subprocess.run([CLI] + args, capture_output=True, timeout=timeout, cwd=cwd, env=e,
                           preexec_fn=limits(memory, file_size))
    except subprocess.TimeoutExpired:
        return None, b"", f"timed out after {timeout} s"
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def path(*names):
    return os.path.join(WORK, *names)


def leftovers(folder):
    """Temporary files a write may leave: FILE.tmp-PID (old scheme) or .hs-XXXXXX."""
    out = []
    for root, _, files in os.walk(folder):
        out += [os.path.join(root, f) for f in files if ".tmp-" in f or f.startswith(".hs-")]
    return out


def check_clean(label, folder=None):
    left = leftovers(folder or WORK)
    if left:
        fail(f"{label}: left temporary files behind: {left}")
        for f in left:
            os.unlink(f)
        return False
    return True


def expect_error(label, args, must_contain=(), codes=(1, 2), **kw):
    """Exit 1 or 2, exactly one stderr line starting 'error:' containing each of must_contain."""
    global passed
    started = time.monotonic()
    rc, _, err = run(args, **kw)
    lines = [l for l in err.splitlines() if l.strip()]
    if rc is None:
        fail(f"{label}: {err} (a hang)")
        return None
    if rc < 0 or rc > 128:
        fail(f"{label}: killed by a signal (exit {rc}); stderr: {err.strip()[:300]}")
        return None
    if rc not in codes:
        fail(f"{label}: expected exit {' or '.join(map(str, codes))}, got {rc}; stderr: {err.strip()[:300]}")
        return None
    if len(lines) != 1 or not lines[0].startswith("error:"):
        fail(f"{label}: expected one stderr line starting 'error:', got {len(lines)}: {err.strip()[:300]!r}")
        return None
    for s in must_contain:
        if s.lower() not in lines[0].lower():
            fail(f"{label}: the message does not mention {s!r}: {lines[0]}")
            return None
    if not check_clean(label):
        return None
    passed += 1
    print(f"ok   {label} ({time.monotonic() - started:.1f} s): {lines[0][:150]}")
    return lines[0]


def expect_ok(label, args, **kw):
    global passed
    rc, out, err = run(args, **kw)
    if rc != 0:
        fail(f"{label}: expected exit 0, got {rc}; stderr: {err.strip()[:300]}")
        return None
    if not check_clean(label):
        return None
    passed += 1
    print(f"ok   {label}")
    return out


S = ["maps", "--sentence", "a b c d e"]


# ---------------------------------------------------------------------------------------------
def check_size_flags():
    """1: the window crash, and every size flag range-checked with the value and the range."""
    plain = expect_ok("maps without a window", S + ["--json", "-"])
    for w in ("2147483647", "2147483646", "2147483000"):
        out = expect_ok(f"maps --window {w}", S + ["--window", w, "--json", "-"])
        if plain is not None and out is not None:
            a, b = json.loads(plain), json.loads(out)
            if a["attention"] != b["attention"]:
                fail(f"maps --window {w}: a window wider than the sentence changed the maps")
        expect_ok(f"maps --causal --window {w}", S + ["--causal", "--window", w, "--json", "-"])
    expect_ok("export --window 2147483647", ["export", "--sentence", "a b c", "--window", "2147483647",
                                             "--out", path("w.npy")])
    expect_error("--window past int", S + ["--window", "2147483648"], ["--window", "2147483648", "0 to 2147483647"])
    expect_error("--window negative", S + ["--window", "-3"], ["--window", "-3", "0 to"])
    expect_error("--seed -1", S + ["--seed", "-1"], ["--seed", "-1", "18446744073709551615"])
    expect_error("--seed 2^64", S + ["--seed", "18446744073709551616"], ["18446744073709551616"])
    expect_ok("--seed 2^64 - 1", S + ["--seed", "18446744073709551615", "--json", "-"])
    for flag, value, rng in (("--d-model", "0", "1 to 16384"), ("--d-model", "2147483648", "1 to 16384"),
                             ("--heads", "-2147483648", "1 to 1024"), ("--kv-heads", "0", "1 to 1024"),
                             ("--d-head", "99999", "1 to 16384"), ("--generate", "-1", "0 to 65536"),
                             ("--temperature", "nan", "0.001 to 1000"), ("--temperature", "inf", "0.001 to 1000"),
                             ("--temperature", "0", "0.001 to 1000"), ("--d-model", "1e3", "1 to 16384")):
        expect_error(f"{flag} {value}", S + [flag, value], [flag, value, rng])
    expect_error("synthetic d_model past its limit", S + ["--d-model", "8192", "--heads", "1"], ["8192", "4096"])
    expect_error("synthetic layer past its parameter limit", S + ["--d-model", "8", "--heads", "1024", "--d-head", "4096"],
                 ["parameters", "limit"])
    # "--sentence=" is an empty sentence; it must not swallow the next argument as the sentence.
    expect_error("--sentence= then a flag", ["maps", "--sentence=", "--causal", "--json", "-"], ["empty"])
    expect_error("--sentence= last", ["maps", "--sentence="], ["empty"])
    expect_ok("--sentence=text", ["maps", "--sentence=a b", "--causal", "--json", "-"])


# ---------------------------------------------------------------------------------------------
def check_devices_and_endless_files():
    """4 and 9: devices, FIFOs, /proc files and symlink loops where a file is needed."""
    fifo = path("fifo.npy")
    os.mkfifo(fifo)
    loop = path("loop")
    os.symlink(loop, loop)
    zero_link = path("zero.safetensors")
    os.symlink("/dev/zero", zero_link)
    small = 512 << 20  # /dev/zero was read to 4 GB before the .npy magic was checked
    expect_error("--input /dev/zero", ["maps", "--input", "/dev/zero"], ["/dev/zero", "character device"],
                 memory=small, timeout=10)
    expect_error("--input a FIFO nobody writes", ["maps", "--input", fifo], ["fifo.npy", "FIFO"], timeout=10)
    expect_error("--input a folder", ["maps", "--input", WORK], ["folder"], timeout=10)
    expect_error("--input /proc/self/maps", ["maps", "--input", "/proc/self/maps"], ["/proc/self/maps"], timeout=10)
    expect_error("--input a symlink loop", ["maps", "--input", loop], ["loop", "symlink loop"], timeout=10)
    expect_error("--weights via a symlink to /dev/zero", ["maps", "--sentence", "a b", "--weights", zero_link],
                 ["zero.safetensors", "character device"], memory=small, timeout=10)
    expect_error("--model /dev/zero", ["maps", "--sentence", "a b", "--model", "/dev/zero"],
                 ["/dev/zero", "character device"], memory=small, timeout=10)
    expect_error("--model a symlink loop", ["maps", "--sentence", "a b", "--model", loop], ["loop", "symlink loop"],
                 timeout=10)
    expect_error("--model missing", ["maps", "--sentence", "a b", "--model", path("missing.bin")],
                 ["missing.bin", "does not exist"], timeout=10)
    ckpt = path("model.bin")
    with open(os.path.join(SOURCE, "tests/fuzz/corpus/llama2c/checkpoint.bin"), "rb") as f:
        open(ckpt, "wb").write(f.read()[1:])  # the llama2c harness's selector byte comes first
    expect_error("--tokenizer /dev/zero", ["maps", "--sentence", "a b", "--model", ckpt, "--tokenizer", "/dev/zero"],
                 ["/dev/zero", "character device"], memory=small, timeout=10)
    folder = path("hf")
    os.mkdir(folder)
    for name in ("model.safetensors", "tokenizer.json"):
        os.symlink(os.path.join(SOURCE, "tests/fuzz/hf_folder", name), os.path.join(folder, name))
    os.symlink("/dev/zero", os.path.join(folder, "config.json"))
    expect_error("Hugging Face config.json -> /dev/zero", ["maps", "--sentence", "a b", "--model", folder],
                 ["config.json", "character device"], memory=small, timeout=10)
    os.unlink(os.path.join(folder, "config.json"))
    os.mkfifo(os.path.join(folder, "config.json"))
    expect_error("Hugging Face config.json a FIFO", ["maps", "--sentence", "a b", "--model", folder],
                 ["config.json", "FIFO"], timeout=10)


# ---------------------------------------------------------------------------------------------
def main():
    global CLI, WORK
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    CLI = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="headscope-hostile-") as work:
        WORK = work
        started = time.monotonic()
        for check in (check_size_flags, check_devices_and_endless_files):
            check()
        print(f"{passed} hostile cases passed, {len(failures)} failed in {time.monotonic() - started:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
