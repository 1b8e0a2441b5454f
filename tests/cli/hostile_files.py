#!/usr/bin/python3
"""headscope-cli against hostile files, round 2 (issue 28): NaN and infinities through float flags
(B), a tokenizer regex that backtracks catastrophically (D), FIFOs and /dev/zero where a file is
read (E), decompression and normalisation bombs (F) and corpus shards whose counts overflow (G).
Each case must exit 1 or 2 with exactly one stderr line starting "error:" that names the file (or
flag) and the problem: no signal, within 20 s, under 1 GB of address space.

Usage: hostile_files.py PATH/TO/headscope-cli
Needs only the standard library; runs the CLI as tests/cli/hostile_input.py does.
"""
import json
import os
import shutil
import struct
import sys
import tempfile
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile_input as hi  # noqa: E402  (run(), expect_error(), expect_ok() and their limits)

GiB = 1 << 30
LIMIT = dict(timeout=20, memory=GiB)  # every case: 20 s, 1 GB of address space
SOURCE = hi.SOURCE


def path(*names):
    return os.path.join(hi.WORK, *names)


def hf_folder(name, tokenizer_change):
    """A tiny Llama-shaped Hugging Face folder (the fuzzers' seed) whose tokenizer.json is changed
    by tokenizer_change(dict)."""
    folder = path(name)
    os.mkdir(folder)
    shutil.copy(os.path.join(SOURCE, "tests/fuzz/hf_folder/model.safetensors"), folder)
    shutil.copy(os.path.join(SOURCE, "tests/fuzz/corpus/hf_config/llama.json"), os.path.join(folder, "config.json"))
    with open(os.path.join(SOURCE, "tests/fuzz/hf_folder/tokenizer.json"), encoding="utf-8") as f:
        tok = json.load(f)
    tokenizer_change(tok)
    with open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tok, f)
    return folder


# ---------------------------------------------------------------------------------------------
def check_float_flags():
    """B: every float flag refuses nan and infinities with one line naming the flag."""
    S = ["maps", "--sentence", "a b c", "--json", "-"]
    E = ["export", "--sentence", "a b c", "--out", path("nan.png")]
    H = ["heads", "--sentence", "a b c"]
    cases = [(S, "--temperature"), (E, "--figure-scale"), (E, "--dpi"), (E, "--font-size"), (H, "--threshold")]
    for base, flag in cases:
        for value in ("nan", "inf", "-inf", "NaN", "1e999"):
            hi.expect_error(f"{base[0]} {flag} {value}", base + [flag, value], [flag, value], **LIMIT)
    for size, bad in (("nanx3in", "nan"), ("3inxinfin", "inf"), ("nanxnan", "nan"), ("1e999x2in", "1e999")):
        hi.expect_error(f"export --size {size}", E + ["--size", size], ["--size", bad], **LIMIT)


# ---------------------------------------------------------------------------------------------
def split_regex(pattern):
    def change(tok):
        tok["pre_tokenizer"] = {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False}
    return change


def check_regex_budget():
    """D: catastrophic backtracking is refused once the sentence's budget is spent, never a hang
    and never a silent gap; a normal sentence still tokenizes."""
    a1000 = "a" * 1000
    for name, pattern in (("regex_empty_alt", "(?:(?:a|a){1,18}b|)"), ("regex_nested", "(?:a|a){1,16}(?:b|c)"),
                          ("regex_star", "(a*)*b|a")):
        folder = hf_folder(name, split_regex(pattern))
        hi.expect_error(f"Split regex {pattern} on 1000 a", ["maps", "--model", folder, "--sentence", a1000, "--json", "-"],
                        ["tokenizer.json", "budget"], **LIMIT)
    # Long sentences through ordinary patterns stay well within the budget (heads --corpus cuts
    # them to the model's 16 positions after tokenizing).
    corpus = path("long.txt")
    with open(corpus, "w", encoding="utf-8") as f:
        f.write("the cat sat on the mat " * 3000 + "\n" + " " * 200000 + "x y\n" +
                "Hello, world! It's 2024: naïve café, 東京 " * 2000 + "\n")
    for name, change in (("regex_normal", split_regex(r"\p{L}+|\s+|[^\s\p{L}]+")),
                         ("byte_level", lambda tok: tok.update(pre_tokenizer={
                             "type": "ByteLevel", "add_prefix_space": False, "use_regex": True}))):
        hi.expect_ok(f"{name}: long sentences tokenized within the budget",
                     ["heads", "--model", hf_folder(name, change), "--corpus", corpus, "--json", os.devnull, "--quiet"],
                     **LIMIT)
    replace = hf_folder("regex_replace", lambda tok: tok.update(normalizer={
        "type": "Replace", "pattern": {"Regex": "(?:(?:a|a){1,18}b|x)"}, "content": "y"}))
    hi.expect_error("Replace normalizer regex on 1000 a", ["maps", "--model", replace, "--sentence", a1000, "--json", "-"],
                    ["tokenizer.json", "budget"], **LIMIT)


# ---------------------------------------------------------------------------------------------
def check_special_files():
    """E: FIFOs and endless devices where the style file, a merge shard or an attention file goes."""
    fifo = path("fifo.json")
    os.mkfifo(fifo)
    E = ["export", "--sentence", "a b", "--out", path("style.png")]
    hi.expect_error("export --style FIFO", E + ["--style", fifo], ["fifo.json", "pipe (FIFO)"], **LIMIT)
    hi.expect_error("export --style /dev/zero", E + ["--style", "/dev/zero"], ["/dev/zero", "character device"], **LIMIT)
    hi.expect_error("export --style a folder", E + ["--style", hi.WORK], [hi.WORK, "folder"], **LIMIT)
    hi.expect_error("heads --merge FIFO", ["heads", "--merge", fifo], ["fifo.json", "pipe (FIFO)"], **LIMIT)
    hi.expect_error("heads --merge /dev/zero", ["heads", "--merge", "/dev/zero"], ["/dev/zero", "character device"],
                    **LIMIT)
    hi.expect_error("heads --corpus FIFO", ["heads", "--corpus", fifo], ["fifo.json", "pipe (FIFO)"], **LIMIT)
    for ext in ("npz", "safetensors"):
        att = path("fifo." + ext)
        os.mkfifo(att)
        hi.expect_error(f"--attention a FIFO .{ext}", ["maps", "--attention", att], ["fifo." + ext, "pipe (FIFO)"], **LIMIT)
    # The .tokens.json beside an attention file, a FIFO.
    att = path("maps.npz")
    write_npz(att, {"attention": npy_header("<f4", (1, 1, 2, 2)) + struct.pack("<4f", 1, 0, 0.5, 0.5)})
    os.mkfifo(att + ".tokens.json")
    hi.expect_error("--attention's .tokens.json a FIFO", ["maps", "--attention", att], ["tokens.json", "pipe (FIFO)"], **LIMIT)


# ---------------------------------------------------------------------------------------------
def npy_header(descr, shape):
    shape_text = "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_text)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode()


def write_npz(file, arrays):
    """numpy.savez_compressed's layout, written with zipfile (small arrays)."""
    import zipfile
    with zipfile.ZipFile(file, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in arrays.items():
            z.writestr(name + ".npy", data)


def deflated_zeros(n, prefix=b""):
    """Raw deflate of prefix + n zeros, ending on a byte boundary with no back-references out of
    it (a full flush), so such pieces can be concatenated."""
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    return z.compress(prefix + bytes(n)) + z.flush(zlib.Z_FULL_FLUSH)


def write_npz_bomb(file, header, declared, inflated=None):
    """One deflated entry 'attention.npy' whose directory declares `declared` bytes: `header`,
    then zeros up to `inflated` bytes (default: declared), in about inflated / 1000 bytes on disk
    (zip64 sizes, CRC left 0)."""
    chunk = 64 << 20
    zeros = (declared if inflated is None else inflated) - len(header)
    middle = deflated_zeros(chunk)
    data = (deflated_zeros(zeros % chunk, header) + middle * (zeros // chunk) +
            b"\x03\x00")  # an empty final fixed-Huffman block ends the stream
    name = b"attention.npy"
    zip64 = struct.pack("<HHQQ", 1, 16, declared, len(data))
    local = struct.pack("<IHHHHHIIIHH", 0x04034b50, 45, 0, 8, 0, 0, 0, 0xFFFFFFFF, 0xFFFFFFFF, len(name), len(zip64))
    central_extra = struct.pack("<HHQQQ", 1, 24, declared, len(data), 0)
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 45, 45, 0, 8, 0, 0, 0, 0xFFFFFFFF, 0xFFFFFFFF,
                          len(name), len(central_extra), 0, 0, 0, 0, 0)
    with open(file, "wb") as f:
        f.write(local + name + zip64 + data)
        dir_offset = f.tell()
        f.write(central + name + central_extra)
        dir_size = f.tell() - dir_offset
        end64 = f.tell()
        f.write(struct.pack("<IQHHIIQQQQ", 0x06064b50, 44, 45, 45, 0, 0, 1, 1, dir_size, dir_offset))
        f.write(struct.pack("<IIQI", 0x07064b50, 0, end64, 1))
        f.write(struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0))


def check_decompression_bombs():
    """F: an .npz declaring 6 GiB is refused before inflating (the shape is read from the .npy
    header alone); a Replace normalizer blowing a sentence up is refused."""
    six = 6 * GiB
    t = 40132  # 1 x 1 x T x T float32 is a little over 6 GiB
    big = path("big.npz")
    header = npy_header("<f4", (1, 1, t, t))
    write_npz_bomb(big, header, len(header) + 4 * t * t)
    # A machine with 512 MiB for maps (the limit set the way a smaller machine has it): the maps
    # are refused from the header alone, nothing inflated.
    hi.expect_error("--attention .npz whose maps are 6 GiB", ["maps", "--attention", big], ["big.npz", "512 MiB"],
                    env={"HEADSCOPE_MAX_MAP_BYTES": str(512 << 20)}, **LIMIT)
    small = path("lying.npz")
    write_npz_bomb(small, npy_header("<f4", (1, 1, 4, 4)), six)
    hi.expect_error("--attention .npz declaring 6 GiB for a 4 x 4 map", ["maps", "--attention", small],
                    ["lying.npz", "attention", "declares"], **LIMIT)
    mb = "x" * (1 << 20)
    for kind, pattern in (("String", "a"), ("Regex", "a")):
        folder = hf_folder("replace_" + kind, lambda tok: tok.update(normalizer={
            "type": "Replace", "pattern": {kind: pattern}, "content": mb}))
        hi.expect_error(f"Replace normalizer ({kind}) a -> 1 MB on 3000 a",
                        ["maps", "--model", folder, "--sentence", "a" * 3000, "--json", "-"],
                        ["tokenizer.json", "Replace", "normaliz"], **LIMIT)


# ---------------------------------------------------------------------------------------------
def shard(file, n, lines=None, scored=None, tokens=None, index=0, count=2):
    """A heads --corpus result of a 1 x 1-head model whose counts are `n` (per role)."""
    roles = ["previous", "first", "bos", "self", "local", "duplicate", "induction", "broadness"]
    lines = n if lines is None else lines
    scored = n if scored is None else scored
    header = {"format": "headscope head roles corpus", "version": 1,
              "model": {"name": "m", "kind": "synthetic", "n_layers": 1, "n_heads": 1}, "roles": roles,
              "settings": {"local_window": 3, "threshold": 0.4, "probe_length": 0, "probe_seed": 0},
              "probe": None, "corpus": {"path": "c.txt", "lines": lines},
              "shard": {"count": count, "indices": [index], "rule": "line index % count == index"},
              "lines": {"in_shard": scored, "scored": scored, "blank": 0, "invalid_utf8": 0, "rejected": 0, "cut": 0},
              "tokens": scored if tokens is None else tokens}
    head = {"layer": 0, "head": 0, "label": None}
    for key, value in (("n", n), ("mean", 0.5), ("std", 0.1), ("min", 0.0), ("max", 1.0), ("m2", 1.0)):
        head[key] = {r: (value if r != "induction" else (0 if key == "n" else None)) for r in roles}
    with open(file, "w") as f:
        f.write(json.dumps(header) + "\n" + json.dumps(head) + "\n")
    return file


def check_merge_counts():
    """G: counts near 2^62 are refused or their sum is, never a negative n."""
    near = (1 << 62) + 1
    a, b = shard(path("a.jsonl"), near, index=0), shard(path("b.jsonl"), near, index=1)
    hi.expect_error("heads --merge of counts near 2^62", ["heads", "--merge", a, b], ["a.jsonl"], **LIMIT)
    neg = shard(path("neg.jsonl"), -5, lines=10, scored=10)
    hi.expect_error("heads --merge of a negative count", ["heads", "--merge", neg], ["neg.jsonl", "n"], **LIMIT)
    # n above the lines the shard scored.
    more = shard(path("more.jsonl"), 10, lines=10, scored=3)
    hi.expect_error("heads --merge of n above the scored lines", ["heads", "--merge", more], ["more.jsonl"], **LIMIT)
    # Within the bounds each, but together more lines than the corpus.
    lines = 1 << 52
    c, d = shard(path("c.jsonl"), lines, lines=lines, index=0), shard(path("d.jsonl"), lines, lines=lines, index=1)
    hi.expect_error("heads --merge of shards holding more lines than the corpus", ["heads", "--merge", c, d],
                    ["d.jsonl", "lines"], **LIMIT)
    ok_a, ok_b = shard(path("ok_a.jsonl"), 3, lines=6), shard(path("ok_b.jsonl"), 3, lines=6, index=1)
    out = hi.expect_ok("heads --merge of two honest shards", ["heads", "--merge", ok_a, ok_b], **LIMIT)
    if out is not None and b'"n":{"previous":6' not in out.replace(b" ", b""):
        hi.fail(f"heads --merge of two honest shards: n is not 6: {out[:300]!r}")


# ---------------------------------------------------------------------------------------------
def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    hi.CLI = os.path.abspath(sys.argv[1])
    hi.SANITIZED = "ASAN_OPTIONS" in os.environ or hi.built_with_asan(hi.CLI)
    with tempfile.TemporaryDirectory(prefix="headscope-hostile-files-") as work:
        hi.WORK = work
        started = time.monotonic()
        only = os.environ.get("HOSTILE_ONLY", "")
        for check in (check_float_flags, check_regex_budget, check_special_files, check_decompression_bombs,
                      check_merge_counts):
            if not only or only in check.__name__:
                check()
        print(f"{hi.passed} hostile file cases passed, {len(hi.failures)} failed in {time.monotonic() - started:.1f} s")
    return 1 if hi.failures else 0


if __name__ == "__main__":
    sys.exit(main())
