#!/usr/bin/python3
"""headscope-cli against docs/cli-contract.md: the maps JSON, atomic --json files, --help,
and every bad input from issue 2: exit 1 or 2, exactly one stderr line starting "error:" that
names the problem, never a signal or a hang.

Usage: cli_contract.py PATH/TO/headscope-cli
Needs only the standard library (files are written by hand here, malformed on purpose).
"""
import json
import shutil
import math
import os
import stat
import struct
import subprocess
import sys
import tempfile

CLI = None
WORK = None
failures = []
passed = 0


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(args, env=None, timeout=120):
    e = dict(os.environ)
    if env:
        e.update(env)
    try:
        p = subprocess.run([CLI] + args, capture_output=True, timeout=timeout, env=e)
    except subprocess.TimeoutExpired:
        return None, b"", f"timed out after {timeout} s"
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def path(name):
    return os.path.join(WORK, name)


def npy_bytes(shape, values=None, descr="<f4", order="False", header=None, version=1, data=None):
    if header is None:
        dims = ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "")
        header = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (descr, order, dims)
    h = header.encode("latin1")
    pad = (64 - (10 + len(h) + 1) % 64) % 64 if version == 1 else 0
    h = h + b" " * pad + b"\n"
    if data is None:
        n = 1
        for s in shape:
            n *= s
        vals = values if values is not None else [0.01 * (i % 17) - 0.05 for i in range(n)]
        data = struct.pack("<%df" % n, *vals)
    if version == 1:
        return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h + data
    return b"\x93NUMPY\x02\x00" + struct.pack("<I", len(h)) + h + data


def safetensors_bytes(tensors, header_override=None, extra=b""):
    """tensors: {name: (dtype, shape, raw bytes)}"""
    header, blobs, off = {}, [], 0
    for name, (dtype, shape, raw) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    text = header_override if header_override is not None else json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + b"".join(blobs) + extra


def f32(n, start=0.0):
    return struct.pack("<%df" % n, *[((start + i) % 13) * 0.03 - 0.17 for i in range(n)])


def mha_tensors(d):
    return {
        "in_proj_weight": ("F32", [3 * d, d], f32(3 * d * d)),
        "in_proj_bias": ("F32", [3 * d], f32(3 * d, 1)),
        "out_proj.weight": ("F32", [d, d], f32(d * d, 2)),
        "out_proj.bias": ("F32", [d], f32(d, 3)),
    }


def write(name, data):
    with open(path(name), "wb") as f:
        f.write(data)
    return path(name)


def expect_ok(label, args, env=None):
    global passed
    rc, out, err = run(args, env)
    if rc != 0:
        fail(f"{label}: expected exit 0, got {rc}; stderr: {err.strip()}")
        return None
    passed += 1
    return out


def expect_error(label, args, must_contain=(), env=None, codes=(1, 2)):
    """Exit 1 or 2, exactly one stderr line starting 'error:' containing each of must_contain."""
    global passed
    rc, out, err = run(args, env)
    lines = [l for l in err.splitlines() if l.strip()]
    if rc is None:
        fail(f"{label}: {err} (a hang)")
        return
    if rc < 0 or rc > 128:
        fail(f"{label}: killed by a signal (exit {rc}); stderr: {err.strip()[:300]}")
        return
    if rc not in codes:
        fail(f"{label}: expected exit {' or '.join(map(str, codes))}, got {rc}; stderr: {err.strip()[:300]}")
        return
    if len(lines) != 1 or not lines[0].startswith("error:"):
        fail(f"{label}: expected one stderr line starting 'error:', got {len(lines)} line(s): {err.strip()[:300]!r}")
        return
    for s in must_contain:
        if s.lower() not in lines[0].lower():
            fail(f"{label}: the message does not mention {s!r}: {lines[0]}")
            return
    passed += 1


# ---------------------------------------------------------------------------------------------
def check_maps_json():
    global passed
    out = expect_ok("maps --json -", ["maps", "--sentence", "The keys that Priya left were not hers.", "--d-model", "8",
                                      "--heads", "4", "--json", "-"])
    if out is None:
        return
    try:
        j = json.loads(out)
    except ValueError as e:
        fail(f"maps --json -: not JSON ({e})")
        return
    for key in ("tokens", "config", "param_count", "attention", "head_difference", "output"):
        if key not in j:
            fail(f"maps JSON: missing key '{key}'")
    for key in ("d_model", "n_heads", "n_kv_heads", "d_head", "n_layers", "causal"):
        if key not in j.get("config", {}):
            fail(f"maps JSON: config has no '{key}'")
    if "token_ids" in j:
        fail("maps JSON: token_ids present for the synthetic model (pretrained only)")
    toks = j["tokens"]
    if toks != ["The", "keys", "that", "Priya", "left", "were", "not", "hers", "."]:
        fail(f"maps JSON: tokens {toks}")
    T = len(toks)
    cfg = j["config"]
    want = {"d_model": 8, "n_heads": 4, "n_kv_heads": 4, "d_head": 2, "n_layers": 1, "causal": False}
    for k, v in want.items():
        if cfg.get(k) != v:
            fail(f"maps JSON: config['{k}'] = {cfg.get(k)!r}; expected {v!r}")
    if j["param_count"] != 288:
        fail(f"maps JSON: param_count {j['param_count']}; expected 288 for d_model 8")
    att = j["attention"]
    if len(att) != 1 or len(att[0]) != 4 or any(len(m) != T or any(len(r) != T for r in m) for m in att[0]):
        fail("maps JSON: attention is not [1][4][T][T]")
        return
    for h, m in enumerate(att[0]):
        for q, row in enumerate(m):
            s = sum(row)
            if abs(s - 1.0) > 1e-5 or min(row) < 0:
                fail(f"maps JSON: head {h} row {q} sums to {s} (expected 1, entries >= 0)")
                return
    hd = j["head_difference"][0]
    for a in range(4):
        for b in range(4):
            ref = sum(abs(att[0][a][q][k] - att[0][b][q][k]) for q in range(T) for k in range(T)) / (T * T)
            if abs(hd[a][b] - ref) > 1e-6:
                fail(f"maps JSON: head_difference[{a}][{b}] = {hd[a][b]}, expected {ref}")
                return
    # head_distance: mean over queries of the total variation 0.5 * sum_k |A_a - A_b|, in [0, 1].
    if "head_distance" not in j or len(j["head_distance"]) != 1:
        fail("maps JSON: no head_distance [layer][head][head]")
        return
    dist = j["head_distance"][0]
    for a in range(4):
        for b in range(4):
            ref = sum(0.5 * sum(abs(att[0][a][q][k] - att[0][b][q][k]) for k in range(T)) for q in range(T)) / T
            if abs(dist[a][b] - ref) > 1e-6 or not 0.0 <= dist[a][b] <= 1.0:
                fail(f"maps JSON: head_distance[{a}][{b}] = {dist[a][b]}, expected {ref} (in [0, 1])")
                return
    out_m = j["output"]
    if len(out_m) != T or any(len(r) != 8 for r in out_m) or not all(math.isfinite(v) for r in out_m for v in r):
        fail("maps JSON: output is not [T][8] finite numbers")
    if "timing" in j:
        fail("maps JSON: timing present without --repeat")
    passed += 1

    # The same request twice gives identical bytes; another seed gives other maps.
    again = expect_ok("maps determinism", ["maps", "--sentence", "The keys that Priya left were not hers.", "--d-model",
                                           "8", "--heads", "4", "--json", "-"])
    if again is not None and again != out:
        fail("maps: the same sentence and seed gave different JSON")
    other = expect_ok("maps --seed 1", ["maps", "--sentence", "The keys that Priya left were not hers.", "--d-model", "8",
                                        "--heads", "4", "--seed", "1", "--json", "-"])
    if other is not None and json.loads(other)["attention"] == att:
        fail("maps: --seed 1 gave the same maps as --seed 0")

    # --repeat adds timing.compute_ms_median.
    rep = expect_ok("maps --repeat 3", ["maps", "--sentence", "a b c", "--json", "-", "--repeat", "3", "--threads", "1"])
    if rep is not None:
        t = json.loads(rep).get("timing", {})
        ms = t.get("compute_ms_median")
        if not isinstance(ms, (int, float)) or ms < 0:
            fail(f"maps --repeat 3: timing.compute_ms_median = {ms!r}")
    # The text report with --repeat: the compute time line, then where the whole analysis went.
    rep_text = expect_ok("maps --repeat 2 (text)", ["maps", "--sentence", "a b c", "--repeat", "2", "--threads", "1"])
    if rep_text is not None:
        lines = (rep_text.decode() if isinstance(rep_text, bytes) else rep_text).splitlines()
        if not any(l.startswith("compute time (median of 2): ") and l.endswith(" ms") for l in lines):
            fail("maps --repeat 2 (text): no 'compute time (median of 2): M ms' line")
        parts = [l for l in lines if l.startswith("analysis time: ")]
        if len(parts) != 1 or not all(k in parts[0] for k in ("engine ", "pairs ", "rollout ", "roles ")):
            fail(f"maps --repeat 2 (text): expected one 'analysis time: ... (prepare, engine, pairs, ..., roles)' line, got {parts!r}")

    # Causal + window: masked entries are exactly 0 (query i sees keys i-W..i).
    cw = expect_ok("maps --causal --window 2", ["maps", "--sentence", "one two three four five six seven", "--heads", "2",
                                                 "--causal", "--window", "2", "--json", "-"])
    if cw is not None:
        j = json.loads(cw)
        if j["config"]["causal"] is not True:
            fail("maps --causal: config.causal is not true")
        for h, m in enumerate(j["attention"][0]):
            for q, row in enumerate(m):
                for k, v in enumerate(row):
                    hidden = k > q or q - k > 2
                    if hidden and v != 0.0:
                        fail(f"maps --causal --window 2: head {h} query {q} key {k} = {v}; expected exactly 0")
                        return
                    if not hidden and v <= 0.0:
                        fail(f"maps --causal --window 2: head {h} query {q} key {k} = {v}; a visible key has weight 0")
                        return

    # Grouped-query and decoupled widths change the config and the parameter count as the formula says.
    g = expect_ok("maps --kv-heads 2", ["maps", "--sentence", "a b c", "--heads", "4", "--kv-heads", "2", "--json", "-"])
    if g is not None:
        j = json.loads(g)
        # d=8, H=4, G=2, dh=2: Q 8*8, K and V 8*4 each, O 8*8, biases 8 + 4 + 4 + 8
        if j["config"]["n_kv_heads"] != 2 or j["param_count"] != 64 + 32 + 32 + 64 + 24:
            fail(f"maps --kv-heads 2: n_kv_heads {j['config']['n_kv_heads']}, param_count {j['param_count']}")

    # Invalid UTF-8 in the sentence is repaired to U+FFFD; the JSON stays valid.
    bad_utf8 = os.fsdecode(b"caf\xc3 ok \xff")
    u = expect_ok("maps invalid UTF-8", ["maps", "--sentence", bad_utf8, "--json", "-"])
    if u is not None:
        toks = json.loads(u.decode("utf-8"))["tokens"]
        if toks != ["caf", "\ufffd", "ok", "\ufffd"]:
            fail(f"maps invalid UTF-8: tokens {toks!r}")

    # The text report (no --json) prints the tokens, the parameter count and the difference table.
    txt = expect_ok("maps text report", ["maps", "--sentence", "the cat sat", "--query", "2"])
    if txt is not None:
        t = txt.decode()
        for s in ("288", "the", "cat", "sat", "head 3", "difference"):
            if s not in t:
                fail(f"maps text report: does not mention {s!r}")


def check_json_file_atomic():
    global passed
    target = path("maps.json")
    out = expect_ok("maps --json FILE", ["maps", "--sentence", "a b c", "--json", target])
    if out is not None:
        if out.strip():
            fail("maps --json FILE also wrote to stdout")
        with open(target, "rb") as f:
            file_bytes = f.read()
        stdout_bytes = run(["maps", "--sentence", "a b c", "--json", "-"])[1]
        if file_bytes != stdout_bytes:
            fail("maps --json FILE and --json - differ")
    # A failing run leaves the previous file untouched and no temporary file behind.
    before = open(target, "rb").read() if os.path.exists(target) else None
    expect_error("maps --json FILE after bad heads", ["maps", "--sentence", "a b", "--heads", "3", "--json", target],
                 ["3", "8"])
    if before is not None and open(target, "rb").read() != before:
        fail("a failing run changed the existing --json file")
    fresh = path("never.json")
    expect_error("maps --json NEW after bad input", ["maps", "--sentence", "", "--json", fresh], ["empty"])
    if os.path.exists(fresh):
        fail("a failing run created the --json file")
    # Unwritable destinations: a folder that does not exist, a path through a regular file, a folder.
    expect_error("--json into a missing folder", ["maps", "--sentence", "a", "--json", path("no/such/dir/x.json")],
                 ["no/such/dir/x.json"])
    blocker = write("blocker", b"x")
    expect_error("--json through a file", ["maps", "--sentence", "a", "--json", os.path.join(blocker, "x.json")],
                 ["blocker"])
    folder = path("adir")
    os.makedirs(folder, exist_ok=True)
    expect_error("--json onto a folder", ["maps", "--sentence", "a", "--json", folder], ["adir"])
    leftovers = [n for n in os.listdir(WORK) if ".tmp" in n] + [n for n in os.listdir(folder)]
    if leftovers:
        fail(f"temporary files left behind: {leftovers}")
    # A read-only folder (skipped as root, who can write anywhere).
    ro = path("readonly")
    os.makedirs(ro, exist_ok=True)
    os.chmod(ro, stat.S_IRUSR | stat.S_IXUSR)
    if os.geteuid() != 0:
        expect_error("--json into a read-only folder", ["maps", "--sentence", "a", "--json", os.path.join(ro, "x.json")],
                     ["readonly"])
        if os.listdir(ro):
            fail(f"files left in the read-only folder: {os.listdir(ro)}")
    os.chmod(ro, stat.S_IRWXU)
    # A read-only filesystem (unwritable even for root): no file, no temporary file.
    expect_error("--json on a read-only filesystem", ["maps", "--sentence", "a", "--json", "/proc/hs_test.json"],
                 ["/proc/hs_test.json"])
    if os.path.exists("/dev/full"):
        expect_error("--json to a full device", ["maps", "--sentence", "a b c", "--json", "/dev/full"], ["/dev/full"])
    # A device is written in place, never replaced (as root a rename would replace /dev/null).
    expect_ok("--json /dev/null", ["maps", "--sentence", "a", "--json", "/dev/null"])
    if not stat.S_ISCHR(os.stat("/dev/null").st_mode):
        fail("--json /dev/null replaced the device with a regular file")


def check_closed_stdout():
    """A reader that stops early: an error exit, not death by SIGPIPE."""
    global passed
    p = subprocess.Popen([CLI, "maps", "--sentence", " ".join(["word"] * 400), "--heads", "8", "--json", "-"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.read(10)
    p.stdout.close()
    err = p.stderr.read().decode("utf-8", "replace")
    rc = p.wait(timeout=120)
    if rc < 0:
        fail(f"maps --json - into a closed pipe: killed by signal {-rc}")
    elif rc == 0:
        fail("maps --json - into a closed pipe: exit 0 although the JSON was not written")
    elif not err.startswith("error:"):
        fail(f"maps --json - into a closed pipe: stderr {err!r}")
    else:
        passed += 1


def check_help():
    for args in (["--help"], ["maps", "--help"], ["export", "--help"], ["--version"]):
        rc, out, err = run(args)
        if rc != 0 or not out.strip():
            fail(f"{' '.join(args)}: exit {rc}, {len(out)} bytes of output; expected exit 0 and text")
    rc, out, _ = run(["maps", "--help"])
    for flag in ("--sentence", "--input", "--weights", "--heads", "--kv-heads", "--causal", "--window", "--json",
                 "--repeat", "--threads"):
        if flag not in out.decode():
            fail(f"maps --help does not list {flag}")


def check_bad_input():
    S = ["maps", "--sentence", "the cat sat"]
    # Shapes.
    expect_error("heads not dividing d_model", S + ["--d-model", "8", "--heads", "3"], ["3", "8", "divide"])
    expect_error("heads not dividing d_model (12/5)", S + ["--d-model", "12", "--heads", "5"], ["5", "12"])
    expect_error("d_model 0", S + ["--d-model", "0"], ["d_model", "0"])
    expect_error("d_model negative", S + ["--d-model", "-8"], ["-8"])
    expect_error("heads 0", S + ["--heads", "0"], ["heads", "0"])
    expect_error("heads negative", S + ["--heads", "-2"], ["-2"])
    expect_error("kv-heads 0", S + ["--kv-heads", "0"], ["0"])
    expect_error("kv-heads negative", S + ["--kv-heads", "-1"], ["-1"])
    expect_error("kv-heads not dividing heads", S + ["--heads", "4", "--kv-heads", "3"], ["3", "4"])
    expect_error("d-head 0", S + ["--d-head", "0"], ["0"])
    expect_error("d-head negative", S + ["--d-head", "-3"], ["-3"])
    expect_error("window negative", S + ["--window", "-1"], ["-1"])
    expect_error("temperature 0", S + ["--temperature", "0"], ["temperature"])
    expect_error("temperature negative", S + ["--temperature", "-1"], ["temperature"])
    expect_error("temperature nan", S + ["--temperature", "nan"], ["temperature"])
    expect_error("d_model far too large", S + ["--d-model", "100000", "--heads", "1"], ["100000"])
    expect_error("d_model too large for memory", S + ["--d-model", "16384", "--heads", "1"], ["limit"])
    expect_error("heads far too many", S + ["--d-model", "4096", "--heads", "4096"], ["4096"])
    expect_error("d_model not a number", S + ["--d-model", "eight"], ["eight"])
    expect_error("d_model overflow", S + ["--d-model", "99999999999999999999"], [])
    expect_error("repeat 0", S + ["--repeat", "0"], ["repeat"])
    expect_error("repeat negative", S + ["--repeat", "-3"], ["repeat"])
    expect_error("threads 0", S + ["--threads", "0"], ["threads"])
    expect_error("display-size negative", S + ["--display-size", "-4"], ["display-size", "-4"])
    expect_error("display-size with --json", S + ["--display-size", "4", "--json", "-"], ["--json", "--display-size"])
    expect_error("display-size query out of range", S + ["--display-size", "2", "--query", "3"], ["query", "3"])
    out = expect_ok("display-size report", S + ["--display-size", "2", "--query", "1"])
    if out is not None and b"long-input mode" not in out:
        fail("maps --display-size: the report does not say it is in long-input mode")
    expect_error("--json with an empty name", S + ["--json", ""], ["--json"])
    expect_error("query out of range", S + ["--query", "3"], ["query", "3"])
    expect_error("layer out of range", S + ["--layer", "1"], ["layer", "1"])
    # Sentences.
    expect_error("empty sentence", ["maps", "--sentence", ""], ["empty"])
    expect_error("blank sentence", ["maps", "--sentence", "   \t  "], ["empty"])
    expect_error("no input at all", ["maps"], ["--sentence"])
    expect_error("sentence and input", S + ["--input", path("x.npy")], ["--input"])
    expect_error("sentence over the map-memory limit", ["maps", "--sentence", "a b c d e f g h i j", "--json", "-"],
                 ["limit", "HEADSCOPE_MAX_MAP_BYTES"], env={"HEADSCOPE_MAX_MAP_BYTES": "1000"})
    expect_error("sentence over the token limit", ["maps", "--sentence", "." * 70000], ["70000", "limit"])
    # Command line.
    expect_error("unknown flag", S + ["--bogus"], ["--bogus"], codes=(2,))
    expect_error("unknown subcommand", ["frobnicate"], ["frobnicate"], codes=(2,))
    expect_error("no subcommand", [], [], codes=(2,))
    expect_error("flag without a value", ["maps", "--sentence"], ["--sentence"], codes=(2,))
    expect_error("--model without a checkpoint", S + ["--model", path("missing-model")], ["missing-model"])

    # .npy inputs (d_model 8 by default).
    good = write("x.npy", npy_bytes([5, 8]))
    expect_ok("good .npy", ["maps", "--input", good, "--json", "-"])
    expect_error("missing .npy", ["maps", "--input", path("nope.npy")], ["nope.npy"])
    expect_error("empty .npy file", ["maps", "--input", write("empty.npy", b"")], ["empty.npy"])
    expect_error("garbage .npy", ["maps", "--input", write("garbage.npy", b"hello, this is not numpy" * 10)],
                 ["garbage.npy", "magic"])
    expect_error("truncated .npy header", ["maps", "--input", write("trunc_head.npy", npy_bytes([5, 8])[:40])],
                 ["trunc_head.npy"])
    expect_error("truncated .npy data", ["maps", "--input", write("trunc_data.npy", npy_bytes([5, 8])[:-7])],
                 ["trunc_data.npy", "truncated"])
    expect_error("huge .npy header length", ["maps", "--input",
                                             write("hugehdr.npy", b"\x93NUMPY\x02\x00" + struct.pack("<I", 0xFFFFFFF0) + b"{")],
                 ["hugehdr.npy", "header length"])
    expect_error("long unterminated .npy header", ["maps", "--input", write("longhdr.npy", npy_bytes(
        [1], header="{'descr': '" + "a" * 500000, version=2, data=b""))], ["longhdr.npy"])
    expect_error("float16 .npy", ["maps", "--input", write("f16.npy", npy_bytes([5, 8], descr="<f2", data=b"\0" * 80))],
                 ["f16.npy", "<f2"])
    expect_error("int .npy", ["maps", "--input", write("i4.npy", npy_bytes([5, 8], descr="<i4", data=b"\0" * 160))],
                 ["i4.npy"])
    expect_error("big-endian .npy", ["maps", "--input", write("be.npy", npy_bytes([5, 8], descr=">f4"))], [">f4"])
    expect_error("fortran-order .npy", ["maps", "--input", write("fortran.npy", npy_bytes([5, 8], order="True"))],
                 ["fortran"])
    expect_error("huge .npy shape", ["maps", "--input", write("hugeshape.npy", npy_bytes([1, 1], header=
        "{'descr': '<f4', 'fortran_order': False, 'shape': (100000000000, 100000000000), }"))], ["hugeshape.npy"])
    expect_error("shape with a negative", ["maps", "--input", write("negshape.npy", npy_bytes([1, 1], header=
        "{'descr': '<f4', 'fortran_order': False, 'shape': (-5, 8), }"))], ["negshape.npy"])
    expect_error("1-D .npy", ["maps", "--input", write("oned.npy", npy_bytes([8]))], ["oned.npy", "2-D"])
    expect_error("3-D .npy", ["maps", "--input", write("threed.npy", npy_bytes([1, 2, 8]))], ["threed.npy"])
    expect_error("zero tokens", ["maps", "--input", write("zero.npy", npy_bytes([0, 8]))], ["zero.npy", "no tokens"])
    expect_error("wrong input width", ["maps", "--input", write("wide.npy", npy_bytes([4, 6]))], ["wide.npy", "6", "8"])
    nan_vals = [0.1] * 40
    nan_vals[13] = float("nan")
    expect_error("NaN in input", ["maps", "--input", write("nan.npy", npy_bytes([5, 8], values=nan_vals))],
                 ["nan.npy", "[1, 5]"])
    inf_vals = [0.1] * 40
    inf_vals[0] = float("inf")
    expect_error("inf in input", ["maps", "--input", write("inf.npy", npy_bytes([5, 8], values=inf_vals))], ["inf.npy"])
    expect_error("input so large the scores overflow", ["maps", "--input", write("huge_values.npy", npy_bytes(
        [3, 8], values=[1e30] * 24))], ["overflow"])
    big = write("bigT.npy", npy_bytes([40000, 8], data=b"\0" * (40000 * 8 * 4)))
    expect_error("input too long for memory", ["maps", "--input", big, "--heads", "8", "--whole-maps"], ["limit"])
    expect_error("input over the token limit", ["maps", "--input", write("hugeT.npy", npy_bytes(
        [70000, 1], data=b"\0" * 280000)), "--d-model", "1", "--heads", "1"], ["70000", "limit"])

    # safetensors weights (d_model 8: heads default 4 divides it).
    d = 8
    wgood = write("w.safetensors", safetensors_bytes(mha_tensors(d)))
    expect_ok("good safetensors", ["maps", "--weights", wgood, "--input", good, "--json", "-"])
    expect_ok("good safetensors on a sentence", ["maps", "--weights", wgood, "--sentence", "a b c", "--json", "-"])
    W = lambda name, **kw: ["maps", "--input", good, "--weights", write(name, safetensors_bytes(mha_tensors(d), **kw))]
    expect_error("missing safetensors", ["maps", "--input", good, "--weights", path("nope.safetensors")],
                 ["nope.safetensors"])
    expect_error("empty safetensors", ["maps", "--input", good, "--weights", write("empty.safetensors", b"")],
                 ["empty.safetensors"])
    expect_error("garbage safetensors", ["maps", "--input", good, "--weights", write(
        "garbage.safetensors", b"\x10\x00\x00\x00\x00\x00\x00\x00not json at all!" + b"\0" * 64)],
                 ["garbage.safetensors", "json"])
    expect_error("random bytes safetensors", ["maps", "--input", good, "--weights", write(
        "random.safetensors", bytes((i * 97 + 13) % 256 for i in range(4096)))], ["random.safetensors"])
    full = safetensors_bytes(mha_tensors(d))
    expect_error("truncated safetensors", ["maps", "--input", good, "--weights", write("trunc.safetensors", full[:-10])],
                 ["trunc.safetensors"])
    expect_error("truncated safetensors header", ["maps", "--input", good, "--weights",
                                                  write("trunchdr.safetensors", full[:50])], ["trunchdr.safetensors"])
    expect_error("header length beyond the file", ["maps", "--input", good, "--weights", write(
        "hdrlen.safetensors", struct.pack("<Q", 1 << 40) + b"{}")], ["hdrlen.safetensors", "header length"])
    expect_error("header not an object", W("notobj.safetensors", header_override=b"[1, 2, 3]"), ["notobj.safetensors"])
    t = mha_tensors(d)
    t["in_proj_weight"] = ("F32", [3 * d, d], f32(3 * d * d)[:-4])
    expect_error("wrong byte count", ["maps", "--input", good, "--weights",
                                      write("bytes.safetensors", safetensors_bytes(t))], ["bytes.safetensors", "in_proj_weight"])
    hdr = json.loads(json.dumps({n: {"dtype": "F32", "shape": s, "data_offsets": [0, len(r)]}
                                 for n, (_, s, r) in mha_tensors(d).items()}))
    expect_error("overlapping offsets", ["maps", "--input", good, "--weights", write("overlap.safetensors",
        struct.pack("<Q", len(json.dumps(hdr))) + json.dumps(hdr).encode() + b"\0" * (3 * d * d * 4))],
                 ["overlap.safetensors"])
    hdr2 = {n: {"dtype": "F32", "shape": s, "data_offsets": [10 ** 9, 10 ** 9 + len(r)]}
            for n, (_, s, r) in mha_tensors(d).items()}
    expect_error("offsets out of range", ["maps", "--input", good, "--weights", write("range.safetensors",
        struct.pack("<Q", len(json.dumps(hdr2))) + json.dumps(hdr2).encode() + b"\0" * 64)], ["range.safetensors"])
    t = mha_tensors(d)
    t["out_proj.bias"] = ("F8_E4M3", [d], b"\0" * d)
    expect_error("unsupported dtype", ["maps", "--input", good, "--weights", write("dtype.safetensors",
                                                                                  safetensors_bytes(t))],
                 ["dtype.safetensors", "out_proj.bias", "F8_E4M3"])
    t = mha_tensors(d)
    t["in_proj_weight"] = ("F16", [3 * d, d], b"\0" * (3 * d * d * 2))
    expect_error("F16 weights", ["maps", "--input", good, "--weights", write("f16.safetensors", safetensors_bytes(t))],
                 ["f16.safetensors", "in_proj_weight", "F32"])
    t = mha_tensors(d)
    del t["out_proj.weight"]
    expect_error("missing tensor", ["maps", "--input", good, "--weights", write("missing.safetensors",
                                                                               safetensors_bytes(t))],
                 ["missing.safetensors", "out_proj.weight"])
    t = mha_tensors(d)
    t["in_proj_weight"] = ("F32", [2 * d, d], f32(2 * d * d))
    expect_error("in_proj_weight wrong shape", ["maps", "--input", good, "--weights", write("shape.safetensors",
                                                                                           safetensors_bytes(t))],
                 ["shape.safetensors", "in_proj_weight", "[16, 8]"])
    t = mha_tensors(d)
    t["out_proj.weight"] = ("F32", [d, d + 1], f32(d * (d + 1)))
    expect_error("out_proj.weight wrong shape", ["maps", "--input", good, "--weights", write("oshape.safetensors",
                                                                                            safetensors_bytes(t))],
                 ["oshape.safetensors", "out_proj.weight"])
    t = mha_tensors(d)
    t["in_proj_weight"] = ("F32", [3 * d, d], struct.pack("<f", float("nan")) + f32(3 * d * d - 1))
    expect_error("NaN weight", ["maps", "--input", good, "--weights", write("nanw.safetensors", safetensors_bytes(t))],
                 ["nanw.safetensors"])
    expect_error("heads not dividing the file's d_model", ["maps", "--input", good, "--weights", wgood, "--heads", "3"],
                 ["3", "8"])
    expect_error("--kv-heads with --weights", ["maps", "--input", good, "--weights", wgood, "--heads", "4",
                                               "--kv-heads", "2"], ["2"])
    expect_error("input width vs the file's d_model", ["maps", "--input", write("w6.npy", npy_bytes([3, 6])), "--weights",
                                                       wgood], ["w6.npy", "6", "8"])
    expect_error("weights given a folder", ["maps", "--input", good, "--weights", WORK], [WORK])


def run_measured(args, timeout=120):
    """(exit code, stdout, stderr, peak RSS in MiB) of one headscope-cli run (os.wait4's rusage)."""
    import time
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen([CLI] + args, stdout=out, stderr=err)
        deadline = time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                p.kill()
                os.wait4(p.pid, 0)
                return None, b"", f"timed out after {timeout} s", 0
            time.sleep(0.05)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return p.returncode, out.read(), err.read().decode("utf-8", "replace"), usage.ru_maxrss / 1024


def check_text_report():
    """The report opens on the last token (token 0 of a causal model sees only itself) and shows both
    head-pair measures."""
    global passed
    out = expect_ok("text report", ["maps", "--sentence", "the keys that Priya left on the table were not hers", "--causal"])
    if out is None:
        return
    text = out.decode("utf-8")
    if "where token 10 (hers) looks" not in text:
        fail("maps report: it does not default to the last token: " + text[:400])
    elif "head distance" not in text or "over all cells" in text:
        fail("maps report: it should show the head distance table, and only that pair measure")
    else:
        passed += 1
    out = expect_ok("text report --query 0", ["maps", "--sentence", "a b c", "--query", "0"])
    if out is not None and b"where token 0 (a) looks" not in out:
        fail("maps report: --query 0 is not honoured")


def check_long_input_rule():
    """One long-input rule for the app and the CLI (core/analysis/long_input.h): past 2048 tokens
    or 1 GiB of whole maps, maps switches to long-input mode by itself; --json and export, which need
    whole maps, refuse at once and name --whole-maps."""
    global passed
    words = " ".join("w%d" % (i % 97) for i in range(20000))
    big = ["maps", "--sentence", words, "--heads", "4"]
    expect_error("20,000 words with --json -", big + ["--json", "-"], ["long-input mode", "--whole-maps"])
    target = path("long.json")
    expect_error("20,000 words with --json FILE", big + ["--json", target], ["long-input mode", "--whole-maps"])
    if os.path.exists(target) or any(n.startswith("long.json") for n in os.listdir(WORK)):
        fail("a refused --json left a file behind")
    expect_error("20,000 words exported", ["export", "--sentence", words, "--heads", "4", "--out", path("long.png")],
                 ["long-input mode", "--whole-maps"])
    # The report switches by itself, in bounded memory (whole maps would need 6 GiB).
    rc, out, err, rss = run_measured(big + ["--query", "19999"])
    if rc != 0:
        fail(f"20,000 words report: exit {rc}: {err.strip()[:300]}")
    elif b"long-input mode" not in out or b"more than 2048" not in out:
        fail("20,000 words report: it does not say it switched to long-input mode: %r" % out[:300])
    elif rss > 1024:
        fail(f"20,000 words report: peak memory {rss:.0f} MiB, over 1 GiB")
    else:
        passed += 1
    # Just past the rule: long-input by default; whole maps when asked.
    words = " ".join("w%d" % (i % 97) for i in range(2100))
    out = expect_ok("2100 words report", ["maps", "--sentence", words, "--heads", "1", "--d-model", "4"])
    if out is not None and b"long-input mode" not in out:
        fail("2100 words: the report is not in long-input mode")
    out = expect_ok("2100 words --whole-maps", ["maps", "--sentence", words, "--heads", "1", "--d-model", "4",
                                                "--whole-maps", "--query", "5"])
    if out is not None and b"long-input mode" in out:
        fail("2100 words --whole-maps: the report is still in long-input mode")
    expect_error("--whole-maps with --display-size", ["maps", "--sentence", "a b", "--whole-maps", "--display-size", "4"],
                 ["--whole-maps", "--display-size"])
    expect_error("display-size over the cap", ["maps", "--sentence", "a b", "--display-size", "2147483647"],
                 ["display-size", "4096"])


def main():
    global CLI, WORK
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    CLI = sys.argv[1]
    WORK = tempfile.mkdtemp(prefix="hs_cli_")
    check_help()
    check_maps_json()
    check_json_file_atomic()
    check_closed_stdout()
    check_bad_input()
    check_text_report()
    check_long_input_rule()
    shutil.rmtree(WORK, ignore_errors=True)
    print(f"{passed} checks passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
