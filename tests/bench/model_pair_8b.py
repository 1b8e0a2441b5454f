#!/usr/bin/python3
"""Two 8B-class files of different quantizations compared head by head within the memory budget:
`headscope-cli compare --model A --model-b B --sentence S` under GNU time, its peak resident set
against the target (below the two files' sizes plus 1 GiB: two mapped files, never copies;
docs/model-pairs.md#memory). Not run by CI (it writes about 9.5 GB and takes minutes).

The files: Llama-3-8B-shaped, random weights (tests/bench/models_bench.py write_llama8b_gguf):
A Q4_K_M-like (4.9 GB), B every matrix Q4_0 (4.6 GB), the same shapes and tokenizer, kept in
bench-models/ next to the CLI (written on the first run, reused afterwards; delete them by hand).
Prints each target beside its measurement and the load average before and after.

usage: model_pair_8b.py HEADSCOPE_CLI [--sentence S] [--b-type Q4_0|Q8_0]
"""
import argparse
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import models_bench as mb  # noqa: E402

GiB = 1 << 30


def load_average():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def ensure_file(cli, name, matrix_type):
    path = mb.bench_model_path(cli, name)
    if os.path.isfile(path):
        return path
    need = (9 if matrix_type == "Q8_0" else 5) * GiB
    free = shutil.disk_usage(os.path.dirname(path)).free
    if free < need + 2 * GiB:
        raise SystemExit("%s: %.1f GiB free; the file needs about %.1f GiB and room to spare" % (path, free / GiB, need / GiB))
    t0 = time.perf_counter()
    tmp = path + ".part"
    mb.write_llama8b_gguf(tmp, os.path.join(mb.models_dir(), "gpt2-tokenizer"), matrix_type)
    os.replace(tmp, path)
    print("  wrote %s in %.0f s" % (path, time.perf_counter() - t0))
    return path


def timed_peak(cmd):
    """(peak RSS in bytes, wall seconds, stdout) of cmd under GNU time."""
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit("%s failed (exit %d): %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    return int(p.stderr.strip().splitlines()[-1]) * 1024, wall, p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cli")
    ap.add_argument("--sentence", default="The quick brown fox jumps over the lazy dog.")
    ap.add_argument("--b-type", default="Q4_0", choices=["Q4_0", "Q8_0"])
    a = ap.parse_args()
    path_a = ensure_file(a.cli, mb.LLAMA8B_GGUF_NAME, None)
    path_b = ensure_file(a.cli, "llama3-8b-shaped-%s-random-v1.gguf" % a.b_type.lower(), a.b_type)
    size_a, size_b = os.path.getsize(path_a), os.path.getsize(path_b)
    print("A: %s (%.2f GiB)\nB: %s (%.2f GiB)" % (path_a, size_a / GiB, path_b, size_b / GiB))
    load0 = load_average()
    peak, wall, out = timed_peak([a.cli, "compare", "--model", path_a, "--model-b", path_b, "--sentence", a.sentence, "--top", "3"])
    load1 = load_average()
    print(out.rstrip())
    target = size_a + size_b + GiB
    print("\ncompare A against B on %r: %.0f s wall; load average %.1f before, %.1f after (2 cores)" % (a.sentence, wall, load0, load1))
    print("  target: peak RSS < the two files + 1 GiB = %.2f GiB   measured: %.2f GiB   %s"
          % (target / GiB, peak / GiB, "met" if peak < target else "NOT MET"))
    print("  for scale: the larger file alone is %.2f GiB (the CLI releases A before it reads B)" % (max(size_a, size_b) / GiB))
    return 0 if peak < target else 1


if __name__ == "__main__":
    sys.exit(main())
