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
SANITIZED = False
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failures = []
passed = 0
GiB = 1 << 30


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def limits(memory=None, file_size=None):
    """preexec_fn: an address-space limit (bytes) and/or a file-size limit (bytes). A sanitized
    binary reserves terabytes of shadow address space, so it gets no address-space limit."""
    def apply():
        if memory and not SANITIZED:
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


def built_with_asan(binary):
    """True when the binary carries AddressSanitizer's runtime (tests/sanitize.sh's build)."""
    with open(binary, "rb") as f:
        tail = b""
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                return False
            if b"__asan_init" in tail + chunk:
                return True
            tail = chunk[-16:]


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
        fail(f"{label}: left {len(left)} temporary file(s) behind: {left[:3]}")
        for f in left:
            os.unlink(f)
        return False
    return True


def expect_error(label, args, must_contain=(), codes=(1, 2), **kw):
    """Exit 1 or 2, exactly one stderr line starting 'error:' containing each of must_contain,
    and no temporary file left behind."""
    global passed
    started = time.monotonic()
    rc, _, err = run(args, **kw)
    clean = check_clean(label)
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
    if not clean:
        return None
    passed += 1
    print(f"ok   {label} ({time.monotonic() - started:.1f} s): {lines[0][:150]}")
    return lines[0]


def expect_ok(label, args, **kw):
    global passed
    rc, out, err = run(args, **kw)
    clean = check_clean(label)
    if rc != 0:
        fail(f"{label}: expected exit 0, got {rc}; stderr: {err.strip()[:300]}")
        return None
    if not clean:
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
def check_output_files():
    """6 and 9: planted symlinks, read-only and symlinked destinations, long names, /proc,
    SIGTERM and ulimit -f in the middle of a write."""
    global passed
    out_dir = path("out")
    os.mkdir(out_dir)
    # The old temporary name was OUT.tmp-PID: plant it for the PIDs the next processes will get.
    victim = path("victim")
    open(victim, "w").write("precious")
    try:
        last = int(open("/proc/sys/kernel/ns_last_pid").read())
    except OSError:
        last = None
    if last is not None:
        for pid in range(last + 1, last + 400):
            os.symlink(victim, os.path.join(out_dir, f"planted.json.tmp-{pid}"))
        rc, _, err = run(S + ["--json", os.path.join(out_dir, "planted.json")])
        for name in os.listdir(out_dir):
            if name.startswith("planted.json.tmp-"):
                os.unlink(os.path.join(out_dir, name))
        if rc != 0:
            fail(f"--json past planted symlinks: exit {rc}: {err.strip()[:200]}")
        elif open(victim).read() != "precious":
            fail("--json past planted symlinks: the target of the symlink at the temporary name was overwritten")
        elif check_clean("--json past planted symlinks"):
            passed += 1
            print("ok   --json past planted symlinks")
    # A read-only file in a sticky folder (as in /tmp): refused, never replaced.
    sticky = path("sticky")
    os.mkdir(sticky)
    os.chmod(sticky, 0o1777)
    ro = os.path.join(sticky, "ro.json")
    open(ro, "w").write("keep")
    os.chmod(ro, 0o444)
    expect_error("--json a read-only file", S + ["--json", ro], ["ro.json", "read-only"])
    if open(ro).read() != "keep":
        fail("--json a read-only file: it was replaced")
    # A symlink destination is written through; the link stays.
    target = os.path.join(out_dir, "target.json")
    open(target, "w").write("old")
    os.chmod(target, 0o640)
    link = os.path.join(out_dir, "link.json")
    os.symlink("target.json", link)
    if expect_ok("--json a symlink", S + ["--json", link]) is not None:
        if not os.path.islink(link):
            fail("--json a symlink: the link was replaced by a regular file")
        elif not open(target).read().startswith("{"):
            fail("--json a symlink: its target does not hold the JSON")
        elif stat.S_IMODE(os.stat(target).st_mode) != 0o640:
            fail(f"--json a symlink: the target's mode became {oct(stat.S_IMODE(os.stat(target).st_mode))}, not 0o640")
    expect_ok("export --out a symlink", ["export", "--sentence", "a b", "--out", link])
    long_name = os.path.join(out_dir, "n" * 248 + ".json")
    expect_ok("--json a 253-character name", S + ["--json", long_name])
    expect_ok("export a 253-character name", ["export", "--sentence", "a b", "--out", long_name[:-5] + ".png"])
    expect_error("--json /proc/version", S + ["--json", "/proc/version"], ["/proc/version", "read-only"])
    # /dev/stdout is a symlink to whatever fd 1 is: a pipe here (written directly), a file below.
    out = expect_ok("--json /dev/stdout into a pipe", S + ["--json", "/dev/stdout"])
    if out is not None and not out.startswith(b"{"):
        fail(f"--json /dev/stdout into a pipe: stdout is {out[:40]!r}")
    redirected = os.path.join(out_dir, "redirected.json")
    with open(redirected, "wb") as f:
        rc = subprocess.run([CLI] + S + ["--json", "/dev/stdout"], stdout=f, stderr=subprocess.PIPE, timeout=20).returncode
    if rc != 0 or not open(redirected, "rb").read().startswith(b"{"):
        fail(f"--json /dev/stdout redirected to a file: exit {rc}")
    expect_error("--json into a missing folder", S + ["--json", path("nope", "x.json")], ["x.json", "folder"])
    expect_error("--json a FIFO nobody reads", S + ["--json", path("fifo.npy")], ["FIFO"], timeout=10)
    # ulimit -f: an error naming the file, the temporary file removed, the old file kept.
    capped = os.path.join(out_dir, "capped.json")
    open(capped, "w").write("old")
    expect_error("--json past ulimit -f", ["maps", "--sentence", " ".join(["w"] * 200), "--json", capped],
                 ["capped.json", "too large"], file_size=64 << 10)
    if open(capped).read() != "old":
        fail("--json past ulimit -f: the old file was not kept")
    # SIGTERM while the JSON is being written.
    big = os.path.join(out_dir, "big.json")
    p = subprocess.Popen([CLI, "maps", "--sentence", " ".join(f"w{i % 97}" for i in range(1200)), "--json", big],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=limits(2 * GiB))
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and p.poll() is None and not leftovers(out_dir):
        time.sleep(0.005)
    seen = bool(leftovers(out_dir))
    p.send_signal(signal.SIGTERM)
    try:
        rc = p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
    if not seen:
        fail(f"SIGTERM during --json: never saw the temporary file (exit {rc}); cannot test the cleanup")
    elif rc != -signal.SIGTERM:
        fail(f"SIGTERM during --json: exit {rc}, expected death by SIGTERM")
    elif check_clean("SIGTERM during --json", out_dir):
        if os.path.exists(big):
            fail("SIGTERM during --json: a half-written big.json exists")
        else:
            passed += 1
            print("ok   SIGTERM during --json: temporary file removed")
    check_clean("output files", out_dir)


# ---------------------------------------------------------------------------------------------
def llama2c_header(dim, hidden, layers, heads, kv, vocab, seq):
    """A llama2.c version-0 header and the file size it implies (the weights left as a hole)."""
    head = dim // heads
    floats = (vocab * dim + layers * dim + layers * dim * dim + 2 * layers * kv * head * dim + layers * dim * dim
              + layers * dim + 3 * layers * hidden * dim + dim + 2 * seq * (head // 2))
    return struct.pack("<7i", dim, hidden, layers, heads, kv, vocab, seq), 28 + 4 * floats


def check_checkpoint_memory():
    """9: out of memory while loading a checkpoint says what it needs, not "try a shorter sentence"."""
    tok = path("tok.bin")
    with open(os.path.join(SOURCE, "tests/fuzz/corpus/llama2c/tokenizer.bin"), "rb") as f:
        open(tok, "wb").write(f.read()[2:])
    # 268 million zero weights (1 GiB, a sparse file, almost all of it the token embedding) under a
    # 1.6 GiB address-space limit: the file maps, its float32 copy does not fit beside it.
    header, size = llama2c_header(64, 64, 1, 4, 4, 1 << 22, 16)
    big = path("big.bin")
    with open(big, "wb") as f:
        f.write(header)
        f.truncate(size)
    if SANITIZED:
        print("skip llama2.c checkpoint past the memory limit: a sanitized build cannot run under RLIMIT_AS")
    else:
        expect_error("llama2.c checkpoint past the memory limit", ["maps", "--sentence", "a", "--model", big,
                                                                   "--tokenizer", tok],
                     ["big.bin", "268464576", "weights needs", "GiB", "allocation failed"], memory=8 * GiB // 5)
    os.unlink(big)
    # 64 billion weights (256 GiB): more than the machine has, refused before reading any.
    header, size = llama2c_header(8192, 262144, 10, 64, 64, 32000, 256)
    huge = path("huge.bin")
    with open(huge, "wb") as f:
        f.write(header)
        f.truncate(size)
    expect_error("llama2.c checkpoint larger than the machine", ["maps", "--sentence", "a", "--model", huge,
                                                                 "--tokenizer", tok],
                 ["huge.bin", "weights needs", "GiB"], memory=300 * GiB, timeout=20)
    os.unlink(huge)


# ---------------------------------------------------------------------------------------------
def check_unbounded_work():
    """8: the head-count sweep is bounded before it runs (d_model 4096 on 300 words ran past 60 s)."""
    words = " ".join(f"w{i % 41}" for i in range(300))
    for d in ("4096", "512"):
        expect_error(f"export --view sweep --d-model {d} on 300 words",
                     ["export", "--view", "sweep", "--d-model", d, "--heads", "1", "--sentence", words,
                      "--out", path(f"sweep{d}.png")], ["head-count sweep", f"d_model {d}", "300 tokens", "limit"],
                     timeout=20)
    expect_ok("export --view sweep inside the limit", ["export", "--view", "sweep", "--sentence", "the keys that Priya left",
                                                       "--out", path("sweep.svg")])


# ---------------------------------------------------------------------------------------------
def main():
    global CLI, WORK
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    CLI = os.path.abspath(sys.argv[1])
    global SANITIZED
    SANITIZED = "ASAN_OPTIONS" in os.environ or built_with_asan(CLI)
    with tempfile.TemporaryDirectory(prefix="headscope-hostile-") as work:
        WORK = work
        started = time.monotonic()
        for check in (check_size_flags, check_devices_and_endless_files, check_output_files, check_unbounded_work,
                      check_checkpoint_memory):
            check()
        print(f"{passed} hostile cases passed, {len(failures)} failed in {time.monotonic() - started:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
