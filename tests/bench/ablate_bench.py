#!/usr/bin/python3
"""Head ablation on the Qwen2.5-0.5B-shaped GGUF (issue 49): every head knocked out once (24 x 14 = 336
zero-ablations, 337 passes), an 11-token sentence, 2 threads, `headscope-cli ablate --json`:

  mean loss     the mean next-token loss over every position (every row of logits): target <= 20 s
  last target   --target " the" --measure-only: the log-prob of " the" after the last token, one row
                of logits per pass: target < 5 s

Each run prints its target beside the measurement: the whole process's wall time (loading included),
the passes' compute_ms from the JSON, and the load average before and after (a timing on a busy
machine is not a result). The file is the one llama_cpp_bench.py uses (bench-models/ next to the CLI,
written once by models_bench.write_qwen_gguf when missing, ~400 MB), or --model FILE.

  tests/bench/ablate_bench.py --cli build/headscope-cli [--model FILE] [--tokens 11] [--threads 2] [--rounds 1] [--case both|loss|last]
Uses Debian's python3 (and numpy, to write the file once).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import models_bench as mb  # noqa: E402  (the file's writer, fit_sentence, models_dir)

QWEN_NAME = "qwen2.5-0.5b-shaped-q4_k_m-random-padded-vocab-v2.gguf"  # as llama_cpp_bench.py names it


def ablate_loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def run_ablate(cli, model, sentence, threads, extra):
    """One `ablate --json` run: (wall s, compute s, heads, load before, load after) or raises."""
    out = tempfile.mktemp(prefix="headscope-ablate-bench-", suffix=".json")
    load0 = ablate_loadavg()
    t0 = time.perf_counter()
    r = subprocess.run([cli, "ablate", "--model", model, "--sentence", sentence, "--threads", str(threads), "--quiet",
                        "--json", out] + extra, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    load1 = ablate_loadavg()
    if r.returncode != 0:
        raise RuntimeError("headscope-cli ablate %s: %s" % (" ".join(extra), r.stderr.strip()[-300:]))
    with open(out) as f:
        j = json.load(f)
    os.unlink(out)
    heads = sum(len(row) for row in j["delta_measure"])
    return wall, j["compute_ms"] / 1000.0, heads, load0, load1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", required=True, help="headscope-cli (Release build)")
    ap.add_argument("--model", help="the GGUF file (default: bench-models/%s next to the CLI, written when missing)" % QWEN_NAME)
    ap.add_argument("--tokens", type=int, default=11)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=1, help="runs of each case (the best and the median are printed)")
    ap.add_argument("--case", choices=["both", "loss", "last"], default="both", help="which of the two cases to run")
    a = ap.parse_args()
    model = a.model or mb.bench_model_path(a.cli, QWEN_NAME)
    if not os.path.isfile(model):
        tokdir = os.path.join(mb.models_dir(), "gpt2-tokenizer")
        print("writing %s (once)" % model)
        mb.write_qwen_gguf(model, tokdir, pad_vocab=True)
    sentence, T = mb.fit_sentence(a.cli, ["--model", model], a.tokens)
    print("head ablation, %s: T = %d, %d threads, load average %.2f at the start" % (os.path.basename(model), T,
                                                                                   a.threads, ablate_loadavg()))
    # The last-position target: the log-prob of " the" as the token after the last one (row T-1).
    cases = [("mean loss (every row of logits)", [], 20.0, "<="),
             ("last-position target (--target ' the' --measure-only)", ["--target", " the", "--measure-only"], 5.0, "<")]
    cases = [c for c in cases if a.case == "both" or (a.case == "loss") == (not c[1])]
    fields = []
    for name, extra, limit, op in cases:
        try:
            runs = [run_ablate(a.cli, model, sentence, a.threads, extra) for _ in range(a.rounds)]
        except RuntimeError as e:
            print("  %-62s FAILED: %s" % (name, e))
            fields.append("qwen_ablate_%s=failed" % ("loss" if not extra else "last"))
            continue
        walls = sorted(r[0] for r in runs)
        computes = sorted(r[1] for r in runs)
        load = max(max(r[3], r[4]) for r in runs)
        wall = walls[len(walls) // 2]
        met = wall <= limit if op == "<=" else wall < limit
        print("  %-62s target %s %4.1f s | measured %6.2f s wall (best %.2f), passes %6.2f s, %d heads | %s | load %.2f%s"
              % (name, op, limit, wall, walls[0], computes[len(computes) // 2], runs[0][2], "met" if met else "MISSED",
                 load, " BUSY machine" if load > len(os.sched_getaffinity(0)) else ""))
        fields.append("qwen_ablate_%s_t%d=%.2fs" % ("loss" if not extra else "last", a.threads, wall))
    print("  load average %.2f at the end\nBENCH_ABLATE %s" % (ablate_loadavg(), " ".join(fields)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
