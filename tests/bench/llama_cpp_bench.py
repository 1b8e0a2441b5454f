#!/usr/bin/python3
"""headscope against llama.cpp on the same GGUF file and the same token ids (issue 34).

The file: models_bench.py's Qwen2.5-0.5B-shaped GGUF with random quantized weights (Q5_0 for the
896-wide rows and the tied embedding, Q4_K for ffn_down), its token list padded to the 151,936
embedding rows (llama.cpp requires it); written once into the build tree. The tokens: a 256-token
sentence, tokenized by `headscope-cli tokens`; llama.cpp gets those ids.

The peer: npm's node-llama-cpp, whose package carries llama.cpp prebuilt (a Node addon), installed
at bench time into a cache folder outside the repository (default ~/.cache/headscope-bench, or
--package-dir); never a dependency of headscope. Missing npm or package: the comparison is skipped
with the reason (pass --install to run `npm install --prefix DIR node-llama-cpp`).

Rounds alternate: `headscope-cli maps` on the sentence (the whole process: load, tokenize, every
head's map of every layer, next-token predictions, report), then llama.cpp's load + evaluation of
the same ids as one prompt (llama_cpp_eval.mjs), at the same thread count. Each side: best and
median wall time, CPU time (user + system of the process), and its parts (headscope: the engine's
compute time; llama.cpp: load and prompt evaluation). Then the ratios, the load average at each
round, and issue 34's targets beside the measurements. On a busy machine (load average above the
core count) the wall times are the machine's, not the programs': read the CPU times and ratios.

  tests/bench/llama_cpp_bench.py --cli build-bench/headscope-cli [--threads 2,1] [--rounds 5] [--install]
Uses Debian's python3 (and numpy, to write the file once) and node/npm.
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import models_bench as mb  # noqa: E402  (write_qwen_gguf, fit_sentence, models_dir)

PACKAGE = "node-llama-cpp"
GGUF_NAME = "qwen2.5-0.5b-shaped-q4_k-random-padded-vocab-v1.gguf"
TARGETS = {"whole_s": 3.0, "ratio": 1.0, "rss_mib": 1536}


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


class Child:
    """CPU time and peak RSS of the children run since the last call (RUSAGE_CHILDREN deltas)."""

    def __init__(self):
        self.last = resource.getrusage(resource.RUSAGE_CHILDREN)

    def run(self, cmd):
        t0 = time.perf_counter()
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - t0
        now = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (now.ru_utime - self.last.ru_utime) + (now.ru_stime - self.last.ru_stime)
        self.last = now
        if r.returncode != 0:
            raise RuntimeError(" ".join(cmd[:3]) + " ...: " + r.stderr.strip()[-2000:])
        return r.stdout, wall, cpu


def peak_rss_mib(cmd):
    """Peak RSS of one run of cmd (GNU time), or None."""
    if not shutil.which("time") and not os.path.exists("/usr/bin/time"):
        return None
    r = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        return int(r.stderr.strip().splitlines()[-1]) / 1024.0
    except (ValueError, IndexError):
        return None


def find_package(package_dir, install):
    """The reason the peer cannot run, or None."""
    if not shutil.which("node") or not shutil.which("npm"):
        return "node or npm not found (Debian: apt-get install nodejs npm)"
    entry = os.path.join(package_dir, "node_modules", PACKAGE, "dist", "index.js")
    if not os.path.isfile(entry) and install:
        print("  installing %s into %s (benchmark only; not a dependency of headscope)" % (PACKAGE, package_dir))
        os.makedirs(package_dir, exist_ok=True)
        subprocess.run(["npm", "install", "--prefix", package_dir, "--no-audit", "--no-fund", PACKAGE], check=False)
    if not os.path.isfile(entry):
        return "%s not found in %s (pass --install, or npm install --prefix %s %s)" % (PACKAGE, package_dir, package_dir, PACKAGE)
    return None


def stats(xs):
    s = sorted(xs)
    return s[0], s[len(s) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", required=True, help="headscope-cli (Release build)")
    ap.add_argument("--threads", default="2,1", help="thread counts, e.g. 2,1")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--tokens", type=int, default=256)
    ap.add_argument("--package-dir", default=os.path.expanduser("~/.cache/headscope-bench"))
    ap.add_argument("--install", action="store_true", help="npm install node-llama-cpp into --package-dir when missing")
    a = ap.parse_args()
    cpus = os.cpu_count() or 1

    print("headscope vs llama.cpp (node-llama-cpp's prebuilt build) on a Qwen2.5-0.5B-shaped GGUF, %d tokens; "
          "load average %.2f on %d cores at the start" % (a.tokens, loadavg(), cpus))
    reason = find_package(a.package_dir, a.install)
    if reason:
        print("  SKIPPED: " + reason)
        return 0
    tokdir = os.path.join(mb.models_dir(), "gpt2-tokenizer")
    if not os.path.isfile(os.path.join(tokdir, "encoder.json")):
        print("  SKIPPED: %s/encoder.json not found (the file's tokenizer; set HEADSCOPE_MODELS_DIR)" % tokdir)
        return 0
    folder = os.path.join(os.path.dirname(os.path.abspath(a.cli)), "bench-models")
    os.makedirs(folder, exist_ok=True)
    gguf = os.path.join(folder, GGUF_NAME)
    if not os.path.isfile(gguf):
        mb.write_qwen_gguf(gguf, tokdir, pad_vocab=True)
    print("  file: %s (%.0f MiB)" % (gguf, os.path.getsize(gguf) / 2**20))
    model = ["--model", gguf]
    sentence, T = mb.fit_sentence(a.cli, model, a.tokens)
    r = subprocess.run([a.cli, "tokens"] + model + ["--sentence", sentence, "--json", "-"], stdout=subprocess.PIPE,
                       text=True, check=True)
    tok = json.loads(r.stdout)
    ids = tok["ids"] if isinstance(tok, dict) else [t["id"] for t in tok]
    work = tempfile.mkdtemp(prefix="headscope-llama-")
    ids_path = os.path.join(work, "ids.json")
    with open(ids_path, "w") as f:
        json.dump(ids, f)
    print("  sentence: %d tokens (the same ids to both)" % len(ids))
    js = os.path.join(HERE, "llama_cpp_eval.mjs")
    child = Child()
    summary = []
    for k in [int(x) for x in a.threads.split(",")]:
        hs = {"wall": [], "cpu": [], "engine": []}
        ll = {"wall": [], "cpu": [], "load": [], "eval": [], "inner": []}
        loads = []
        for _ in range(a.rounds):
            out, wall, cpu = child.run([a.cli, "maps"] + model + ["--sentence", sentence, "--threads", str(k), "--repeat", "1"])
            hs["wall"].append(wall)
            hs["cpu"].append(cpu)
            for line in out.splitlines():
                if line.startswith("compute time"):
                    hs["engine"].append(float(line.split(":")[1].split()[0]) / 1000.0)
            out, wall, cpu = child.run(["node", js, a.package_dir, gguf, ids_path, str(k)])
            m = json.loads(out.strip().splitlines()[-1])
            ll["wall"].append(wall)
            ll["cpu"].append(cpu)
            ll["load"].append(m["load_ms"] / 1000.0)
            ll["eval"].append((m["context_ms"] + m["eval_ms"]) / 1000.0)
            ll["inner"].append((m["load_ms"] + m["context_ms"] + m["eval_ms"]) / 1000.0)
            loads.append(loadavg())
        busy = max(loads) > cpus
        print("\n  %d thread(s), %d alternating rounds; load average per round: %s%s" %
              (k, a.rounds, " ".join("%.1f" % x for x in loads),
               "  (BUSY MACHINE: wall times are the machine's; read CPU times)" if busy else ""))
        print("    %-44s %9s %9s" % ("", "best", "median"))

        def row(name, xs):
            b, m = stats(xs)
            print("    %-44s %8.2fs %8.2fs" % (name, b, m))
        row("headscope-cli maps: whole process, wall", hs["wall"])
        row("headscope-cli maps: whole process, CPU", hs["cpu"])
        if hs["engine"]:
            row("headscope: engine (compute time)", hs["engine"])
        row("llama.cpp: load + prompt evaluation, wall", ll["inner"])
        row("llama.cpp: node process, CPU", ll["cpu"])
        row("llama.cpp: load", ll["load"])
        row("llama.cpp: prompt evaluation", ll["eval"])
        ratio_wall = stats(hs["wall"])[1] / stats(ll["inner"])[1]
        ratio_cpu = stats(hs["cpu"])[1] / stats(ll["cpu"])[1]
        print("    ratio headscope whole process / llama.cpp load + evaluation (medians): wall %.2f, CPU %.2f"
              % (ratio_wall, ratio_cpu))
        if hs["engine"]:
            print("    ratio headscope engine / llama.cpp prompt evaluation (medians): %.2f"
                  % (stats(hs["engine"])[1] / stats(ll["eval"])[1]))
        summary.append("t%d_whole=%.2fs t%d_llama=%.2fs t%d_ratio=%.2f" % (k, stats(hs["wall"])[1], k,
                                                                          stats(ll["inner"])[1], k, ratio_wall))
        if k == 2 and T == 256:
            rss = peak_rss_mib([a.cli, "maps"] + model + ["--sentence", sentence, "--threads", str(k)])
            print("    issue 34 targets (T = 256, 2 threads)%s:" % (" -- measured on a BUSY machine" if busy else ""))
            print("      whole process < %.1f s:            %.2f s (median wall)" % (TARGETS["whole_s"], stats(hs["wall"])[1]))
            print("      ratio to llama.cpp <= %.1f:         %.2f (wall), %.2f (CPU)" % (TARGETS["ratio"], ratio_wall, ratio_cpu))
            print("      peak RSS < %d MiB:               %s" % (TARGETS["rss_mib"], "%.0f MiB" % rss if rss else "?"))
    shutil.rmtree(work, ignore_errors=True)
    print("\n  load average %.2f at the end\nBENCH_LLAMA %s" % (loadavg(), " ".join(summary)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
