#!/usr/bin/python3
"""Head ablation on the Qwen2.5-0.5B-shaped GGUF (issue 49): every head knocked out once (24 x 14 = 336
zero-ablations, 337 passes), an 11-token sentence, 2 threads, `headscope-cli ablate --json`:

  mean loss     the mean next-token loss over every position (every row of logits): target <= 20 s
  last target   --target " the" --measure-only: the log-prob of " the" after the last token, one row
                of logits per pass: target < 5 s

Each run prints its target beside the measurement: the whole process's wall time (loading included),
the passes' compute_ms from the JSON, and the load average before and after (a timing on a busy
machine is not a result). llama.cpp has no head ablation, so there is no llama.cpp ratio; instead each
case prints its arithmetic floor: the FLOPs of its knocked-out passes (each head of layer l reruns
layers l .. L-1 on T rows, 2 x the layer's parameters per row, plus its rows of logits, 2 x d x vocab
each) divided by the engine's own rate on a long prompt, measured here in the same conditions
(`maps` on a T = 256 prompt, --repeat 3: 2 x parameters per token + attention + the next-token
logits at every position, over its compute_ms_median). --plain also times one head per pass
(--heads-per-pass 1, the path before heads were stacked) for the before/after ratio. The file is the one llama_cpp_bench.py uses (bench-models/ next to the CLI,
written once by models_bench.write_qwen_gguf when missing, ~400 MB), or --model FILE.

  tests/bench/ablate_bench.py --cli build/headscope-cli [--model FILE] [--tokens 11] [--threads 2] [--rounds 1]
                              [--case both|loss|last] [--plain] [--no-floor]
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


def ablate_layer_params(q):
    """Parameters of one Qwen-shaped layer's products: q, k, v, o and the gated FFN's three."""
    d, qd, kvd = q["d"], q["heads"] * q["head_dim"], q["kv_heads"] * q["head_dim"]
    return d * qd + 2 * d * kvd + qd * d + 3 * d * q["ffn"]


def ablate_flops(q, T, logit_rows_per_head):
    """FLOPs of every head's knocked-out pass: (L - l) layers of T rows for each head of layer l, and
    its rows of logits (T - 1 for the mean loss, 1 for a target with --measure-only)."""
    L, H = q["layers"], q["heads"]
    layers = H * sum(L - l for l in range(L))
    return layers * T * 2 * ablate_layer_params(q) + L * H * logit_rows_per_head * 2 * q["d"] * q["vocab"]


def ablate_engine_rate(cli, model, threads, q):
    """(GFLOP/s, T, compute s) of `maps` on a 256-token prompt (the engine's rate on a long prompt)."""
    sentence, T = mb.fit_sentence(cli, ["--model", model], 256)
    r = subprocess.run([cli, "maps", "--model", model, "--sentence", sentence, "--threads", str(threads), "--repeat", "3",
                        "--json", "-"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError("headscope-cli maps: " + r.stderr.strip()[-300:])
    s = json.loads(r.stdout)["timing"]["compute_ms_median"] / 1000.0
    attention = q["layers"] * 2 * 2 * T * T * q["heads"] * q["head_dim"]  # scores and contexts, whole T x T
    flops = T * 2 * q["layers"] * ablate_layer_params(q) + attention + T * 2 * q["d"] * q["vocab"]
    return flops / s / 1e9, T, s


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", required=True, help="headscope-cli (Release build)")
    ap.add_argument("--model", help="the GGUF file (default: bench-models/%s next to the CLI, written when missing)" % QWEN_NAME)
    ap.add_argument("--tokens", type=int, default=11)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=1, help="runs of each case (the best and the median are printed)")
    ap.add_argument("--case", choices=["both", "loss", "last"], default="both", help="which of the two cases to run")
    ap.add_argument("--plain", action="store_true", help="also time one head per pass (--heads-per-pass 1): the before")
    ap.add_argument("--no-floor", action="store_true", help="skip measuring the engine's rate (no floor printed)")
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
    rate = None
    if not a.no_floor:
        try:
            rate, rate_T, rate_s = ablate_engine_rate(a.cli, model, a.threads, mb.QWEN)
            print("  engine rate: %.0f GFLOP/s (maps, T = %d, %d threads, compute %.2f s; load %.2f)"
                  % (rate, rate_T, a.threads, rate_s, ablate_loadavg()))
        except RuntimeError as e:
            print("  engine rate: FAILED: %s" % e)
    fields = []
    for name, extra, limit, op in cases:
        if a.plain:
            cases_plain = [run_ablate(a.cli, model, sentence, a.threads, extra + ["--heads-per-pass", "1"])
                           for _ in range(a.rounds)]
            plain_wall = sorted(r[0] for r in cases_plain)[len(cases_plain) // 2]
            print("  %-62s one head per pass (before): %6.2f s wall, passes %6.2f s | load %.2f"
                  % (name, plain_wall, sorted(r[1] for r in cases_plain)[len(cases_plain) // 2],
                     max(max(r[3], r[4]) for r in cases_plain)))
        if rate:
            flops = ablate_flops(mb.QWEN, T, 1 if extra else T - 1)
            print("  %-62s floor: %.2f TFLOP / %.0f GFLOP/s = %.1f s%s" % (name, flops / 1e12, rate, flops / rate / 1e9,
                  " (the target is below it)" if flops / rate / 1e9 > limit else ""))
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
