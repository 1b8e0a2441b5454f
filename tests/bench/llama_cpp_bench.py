#!/usr/bin/python3
"""headscope against llama.cpp on the same GGUF files and the same token ids, and issue 34's targets.

The files (random quantized weights, written once into bench-models/ next to the CLI; models_bench.py):
  qwen  Qwen2.5-0.5B-shaped Q4_K_M (24 layers, d_model 896, Q5_0 / Q8_0 / Q4_K / Q6_K; 396 MB), T = 256, the thread counts of --threads
  8b    Llama-3-8B-shaped Q4_K_M-like (32 layers, d_model 4096, 32/8 heads of 128, FFN 14,336, vocabulary
        128,256; 4.9 GB), T = 128, the largest of --threads
The tokens: a sentence cut to exactly T tokens by `headscope-cli tokens`; llama.cpp gets those ids.

The peer: npm's node-llama-cpp, whose package carries llama.cpp prebuilt (a Node addon), installed
at bench time into a cache folder outside the repository (default ~/.cache/headscope-bench, or
--package-dir); never a dependency of headscope. Missing npm or package: the comparison is skipped
with the reason (pass --install to run `npm install --prefix DIR node-llama-cpp`).

Rounds alternate: `headscope-cli maps` on the sentence (the whole process: open, tokenize, every
head's map of every layer, next-token predictions, report), then llama.cpp's load + evaluation of
the same ids as one prompt (llama_cpp_eval.mjs), at the same thread count. Each process runs under
GNU time: its wall and CPU time (user + system) and peak RSS. Parts: headscope's engine time
(compute time) and llama.cpp's load and prompt evaluation (timed inside node).

Then, when built: bench_open (next to the CLI in tests/bench/) on the 8B file: open + one token in
parts; --gui: the app's keystroke benchmark (headscope --bench-frames under xvfb-run -a) on each
file: keystroke -> new maps at the end of the sentence (qwen: 200 tokens; 8b: 128), the median and the
first keystroke after opening apart; --blas: one attention layer (d_model 768, 12 heads, T = 512, 1 thread,
every map kept) through `headscope-cli maps --weights --input --repeat 7` against OpenBLAS's rate on the
layer's products (bench_blas, alternating rounds), and attention_layer_forward alone. At the end a table of every target: the measurement, the
llama.cpp ratio where one applies, met / MISSED, and the load average ("BUSY machine" when it was
above the core count: read the CPU columns then). --json FILE writes the same table as JSON.

  tests/bench/llama_cpp_bench.py --cli build/headscope-cli [--files qwen,8b] [--gui build/headscope]
      [--threads 2,1] [--rounds 5] [--rounds-8b 2] [--blas build/tests/bench/bench_blas] [--json OUT] [--install]
      [--app-only: the app's keystrokes alone, with --gui, on files already written]
Uses Debian's python3 (and numpy, to write the files once) and node/npm.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import models_bench as mb  # noqa: E402  (the files' writers, app_bench, models_dir)

PACKAGE = "node-llama-cpp"
QWEN_NAME = "qwen2.5-0.5b-shaped-q4_k_m-random-padded-vocab-v2.gguf"
GIB = 1024.0


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def timed(cmd):
    """Runs cmd under GNU time: (stdout, {"wall", "cpu", "rss_mib"}). Raises with stderr on failure."""
    fd, path = tempfile.mkstemp(prefix="headscope-time-")
    os.close(fd)
    try:
        t0 = time.perf_counter()
        r = subprocess.run(["/usr/bin/time", "-o", path, "-f", "%M %U %S"] + cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - t0
        if r.returncode != 0:
            raise RuntimeError(" ".join(cmd[:3]) + " ...: " + r.stderr.strip()[-2000:])
        kib, user, sys_ = open(path).read().split("\n")[-2].split()
        return r.stdout, {"wall": wall, "cpu": float(user) + float(sys_), "rss_mib": int(kib) / 1024.0}
    finally:
        os.unlink(path)


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


def median(xs):
    s = sorted(xs)
    return s[len(s) // 2]


def token_count(cli, model):
    """Counts a text's tokens with `headscope-cli tokens` (the tokenizer alone, no forward)."""
    def count(text):
        r = subprocess.run([cli, "tokens"] + model + ["--sentence", text, "--json", "-"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, check=True)
        return len(token_ids(r.stdout))
    return count


def token_ids(json_text):
    tok = json.loads(json_text)
    return tok["ids"] if isinstance(tok, dict) else [t["id"] for t in tok]


def fit(cli, model, tokens):
    """A prefix of models_bench's text with exactly `tokens` tokens (as near as whole characters allow)."""
    return mb.fit_sentence(cli, model, tokens, count=token_count(cli, model))


class Targets:
    """Issue 34's targets and their measurements; printed as one table (and JSON) at the end."""

    def __init__(self, cpus):
        self.cpus = cpus
        self.rows = []

    def add(self, target, measured, met, ratio=None, load=None, note="", values=None):
        """met: True / False / None (not measured) / "reported" (no target); load: the highest load average while measuring;
        values: the numbers behind `measured` (for the JSON)."""
        self.rows.append({"target": target, "measured": measured, "llama_cpp_ratio": ratio,
                          "verdict": "not run" if met is None else met if isinstance(met, str) else "met" if met else "MISSED",
                          "load_average": load, "busy": load is not None and load > self.cpus, "note": note,
                          "values": values or {}})

    def print(self):
        print("\nissue 34's targets (load average: the highest 1-minute value while measuring; BUSY machine: above %d "
              "cores, so wall times are the machine's, read the CPU times)" % self.cpus)
        w = max(len(r["target"]) for r in self.rows)
        m = max(len(r["measured"]) for r in self.rows)
        print("  %-*s | %-*s | %-19s | %-7s | %s" % (w, "target", m, "measured", "llama.cpp ratio", "verdict", "load"))
        for r in self.rows:
            load = "" if r["load_average"] is None else "%.1f%s" % (r["load_average"], " BUSY machine" if r["busy"] else "")
            print("  %-*s | %-*s | %-19s | %-7s | %s%s" % (w, r["target"], m, r["measured"], r["llama_cpp_ratio"] or "",
                                                          r["verdict"], load, ("  (" + r["note"] + ")") if r["note"] else ""))


def compare_rounds(cli, model, sentence, ids_path, gguf, package_dir, threads, rounds):
    """Alternating rounds: headscope-cli maps, then llama.cpp's load + prompt evaluation. Returns lists per field."""
    js = os.path.join(HERE, "llama_cpp_eval.mjs")
    hs = {"wall": [], "cpu": [], "rss": [], "engine": []}
    ll = {"wall": [], "cpu": [], "rss": [], "load": [], "eval": [], "inner": []}
    loads = []
    for _ in range(rounds):
        loads.append(loadavg())
        out, t = timed([cli, "maps"] + model + ["--sentence", sentence, "--threads", str(threads), "--repeat", "1"])
        hs["wall"].append(t["wall"])
        hs["cpu"].append(t["cpu"])
        hs["rss"].append(t["rss_mib"])
        for line in out.splitlines():
            if line.startswith("compute time"):
                hs["engine"].append(float(line.split(":")[1].split()[0]) / 1000.0)
        out, t = timed(["node", js, package_dir, gguf, ids_path, str(threads)])
        m = json.loads(out.strip().splitlines()[-1])
        ll["wall"].append(t["wall"])
        ll["cpu"].append(t["cpu"])
        ll["rss"].append(t["rss_mib"])
        ll["load"].append(m["load_ms"] / 1000.0)
        ll["eval"].append((m["context_ms"] + m["eval_ms"]) / 1000.0)
        ll["inner"].append((m["load_ms"] + m["context_ms"] + m["eval_ms"]) / 1000.0)
        loads.append(loadavg())
    return hs, ll, loads


def print_rounds(k, rounds, hs, ll, loads, cpus):
    busy = max(loads) > cpus
    print("\n  %d thread(s), %d alternating rounds; load average around the rounds: %s%s" %
          (k, rounds, " ".join("%.1f" % x for x in loads), "  (BUSY machine: wall times are the machine's; read CPU times)"
           if busy else ""))
    print("    %-46s %9s %9s" % ("", "best", "median"))

    def row(name, xs, unit="s", fmt="%8.2f"):
        print(("    %-46s " + fmt + "%s " + fmt + "%s") % (name, min(xs), unit, median(xs), unit))
    row("headscope-cli maps: whole process, wall", hs["wall"])
    row("headscope-cli maps: whole process, CPU", hs["cpu"])
    if hs["engine"]:
        row("headscope: engine (compute time), wall", hs["engine"])
    row("headscope-cli maps: peak RSS (MiB)", hs["rss"], "", "%9.0f")
    row("llama.cpp: load + prompt evaluation, wall", ll["inner"])
    row("llama.cpp: node process, wall", ll["wall"])
    row("llama.cpp: node process, CPU", ll["cpu"])
    row("llama.cpp: load, wall", ll["load"])
    row("llama.cpp: prompt evaluation, wall", ll["eval"])
    row("llama.cpp: node process peak RSS (MiB)", ll["rss"], "", "%9.0f")
    r = {"whole_wall": median(hs["wall"]) / median(ll["inner"]), "whole_cpu": median(hs["cpu"]) / median(ll["cpu"])}
    print("    ratio headscope whole process / llama.cpp load + prompt evaluation (medians): wall %.2f, CPU %.2f "
          "(node process)" % (r["whole_wall"], r["whole_cpu"]))
    if hs["engine"]:
        r["engine"] = median(hs["engine"]) / median(ll["eval"])
        print("    ratio headscope engine / llama.cpp prompt evaluation (medians, wall): %.2f" % r["engine"])
    return r, busy


def keystrokes(gui, model, sentence, n, work, label):
    """The app's keystroke benchmark on the file (30 frames, n keystrokes at the end): its keystrokes JSON, or None."""
    before = loadavg()
    t0 = time.perf_counter()
    j, why = mb.app_bench(gui, model, sentence, 30, n, work)
    load = max(before, loadavg())
    if j is None:
        print("  app, %s: FAILED: %s" % (label, why))
        return None, load
    k = j["keystrokes"]
    print("  app, %s (headscope --bench-frames --bench-keystrokes %d --view heads --all-layers, xvfb-run; %.0f s in all): "
          "T %d -> %d, keystroke -> new maps median %.0f ms, worst %.0f ms; worker compute median %.0f ms; %d of %d keystrokes "
          "reused the previous run's prefix; load average %.1f"
          % (label, n, time.perf_counter() - t0, k["tokens"][0] if k["tokens"] else 0, k["tokens"][-1] if k["tokens"] else 0,
             k["median_ms"], k["max_ms"], k["compute_ms_median"], len([r for r in k.get("reused_tokens", []) if r >= 0]),
             k["count"], load))
    mb.print_keystroke_parts(k)
    first = first_keystroke(k)
    print("    the first keystroke after opening: %.0f ms to the new maps (target < 150 ms: %s), the worker %.0f ms (engine "
          "%.0f), font rebuilds %.0f ms; the median keystroke %.0f ms (target < 100 ms on the qwen file: %s); load average %.1f"
          % (first["latency_ms"], "met" if first["latency_ms"] < 150 else "MISSED", first["compute_ms"], first["engine_ms"],
             first["fonts_ms"], k["median_ms"], "met" if k["median_ms"] < 100 else "MISSED", load))
    return k, load


def first_keystroke(k):
    """The first keystroke after opening, from the app's JSON ("first"; older builds: the first of the lists)."""
    f = k.get("first") or {}
    return {"latency_ms": f.get("latency_ms", k["latency_ms"][0] if k["latency_ms"] else 0.0),
            "compute_ms": f.get("compute_ms", k["compute_ms"][0] if k.get("compute_ms") else 0.0),
            "engine_ms": (f.get("compute_parts_ms") or {}).get("engine", 0.0), "fonts_ms": f.get("fonts_ms", 0.0)}


def verdict_time(wall, cpu, limit, busy, threads):
    """met by the wall time; on a busy machine a note gives the CPU time over the threads (what the wall
    time would be at best on an idle machine) against the limit."""
    met = wall < limit
    per = cpu / threads
    return met, ("" if met or not busy else "CPU time / %d threads = %.2f s: %s" % (threads, per, "within" if per < limit
                                                                                      else "also over"))


def run_qwen(a, targets, package_dir, tokdir, work, cpus, gui_sentences):
    print("\n== Qwen2.5-0.5B-shaped GGUF (24 layers x 14 heads on 2 key/value heads, d_model 896, 151,936 tokens) ==")
    gguf = mb.bench_model_path(a.cli, QWEN_NAME)
    if not os.path.isfile(gguf):
        mb.write_qwen_gguf(gguf, tokdir, pad_vocab=True)
    print("  file: %s (%.0f MiB)" % (gguf, os.path.getsize(gguf) / 2**20))
    model = ["--model", gguf]
    sentence, T = fit(a.cli, model, a.tokens)
    ids_path = write_ids(a.cli, model, sentence, work)
    print("  sentence: %d tokens (the same ids to both)" % T)
    summary = []
    for k in [int(x) for x in a.threads.split(",")]:
        hs, ll, loads = compare_rounds(a.cli, model, sentence, ids_path, gguf, package_dir, k, a.rounds)
        r, busy = print_rounds(k, a.rounds, hs, ll, loads, cpus)
        summary.append("qwen_t%d_whole=%.2fs qwen_t%d_llama=%.2fs qwen_t%d_ratio=%.2f/%.2fcpu"
                       % (k, median(hs["wall"]), k, median(ll["inner"]), k, r["whole_wall"], r["whole_cpu"]))
        if k == 2:
            load = max(loads)
            met, note = verdict_time(median(hs["wall"]), median(hs["cpu"]), 3.0, busy, k)
            targets.add("qwen T=%d 2 threads: whole process < 3 s" % T, "%.2f s wall, %.2f s CPU (median)"
                        % (median(hs["wall"]), median(hs["cpu"])), met, None, load, note,
                        {"wall_s": median(hs["wall"]), "cpu_s": median(hs["cpu"]), "engine_s": median(hs["engine"] or [0])})
            targets.add("qwen T=%d 2 threads: ratio to llama.cpp load + prompt <= 1.0" % T, "wall %.2f, CPU %.2f"
                        % (r["whole_wall"], r["whole_cpu"]), r["whole_wall"] <= 1.0,
                        "%.2f wall / %.2f CPU" % (r["whole_wall"], r["whole_cpu"]), load,
                        "" if not busy else "CPU ratio: %s" % ("within" if r["whole_cpu"] <= 1.0 else "also over"),
                        {"ratio_wall": r["whole_wall"], "ratio_cpu": r["whole_cpu"], "wall_s": median(hs["wall"]),
                         "cpu_s": median(hs["cpu"]), "llama_cpp_wall_s": median(ll["inner"]),
                         "llama_cpp_cpu_s": median(ll["cpu"])})
            rss = max(hs["rss"])
            targets.add("qwen T=%d 2 threads: peak RSS < 1.5 GB" % T, "%.0f MiB" % rss, rss < 1.5 * GIB,
                        "%.2f" % (rss / max(ll["rss"])), load, "", {"rss_mib": rss, "llama_cpp_rss_mib": max(ll["rss"])})
            summary.append("qwen_rss=%.0fMiB" % rss)
    if a.gui:
        s200, T200 = fit(a.cli, model, 200)
        gui_sentences.append(("qwen", model, s200, T200))
    else:
        targets.add("qwen app: keystroke at the end of 200 tokens -> new maps, median < 100 ms", "(pass --gui)", None)
        targets.add("qwen app: the first keystroke after opening -> new maps < 150 ms", "(pass --gui)", None)
    return summary


def run_8b(a, targets, package_dir, tokdir, work, cpus, gui_sentences):
    q = mb.LLAMA8B
    print("\n== Llama-3-8B-shaped GGUF, Q4_K_M-like (%d layers, d_model %d, %d/%d heads of %d, FFN %d, %d tokens) =="
          % (q["layers"], q["d"], q["heads"], q["kv_heads"], q["head_dim"], q["ffn"], q["vocab"]))
    gguf = mb.bench_model_path(a.cli, mb.LLAMA8B_GGUF_NAME)
    if not os.path.isfile(gguf):
        free = shutil.disk_usage(os.path.dirname(gguf)).free
        if free < 8 << 30:
            print("  SKIPPED: %.1f GB free next to the CLI; the file needs 4.9 GB (and room to spare)" % (free / 2**30))
            return []
        t0 = time.perf_counter()
        mb.write_llama8b_gguf(gguf, tokdir)
        print("  written in %.0f s" % (time.perf_counter() - t0))
    print("  file: %s (%.2f GB)" % (gguf, os.path.getsize(gguf) / 1e9))
    model = ["--model", gguf]
    k = max(int(x) for x in a.threads.split(","))
    summary = []
    # Open + one token, in parts (bench_open, when built next to the CLI).
    bench_open = a.bench_open or os.path.join(os.path.dirname(os.path.abspath(a.cli)), "tests", "bench", "bench_open")
    if os.path.exists(bench_open):
        runs = []
        for _ in range(a.rounds_8b):
            load0 = loadavg()
            out, _ = timed([bench_open, gguf, "--threads", str(k)])
            j = json.loads(out.strip().splitlines()[-1])
            j["load"] = max(load0, loadavg())
            runs.append(j)
            p = j["parts"]
            print("  open + one token (bench_open, %d threads): %.2f s wall, %.2f s CPU; parts wall/CPU: map %.3f/%.3f, "
                  "tokenizer %.3f/%.3f, setup %.3f/%.3f (open in all %.3f/%.3f), token %.3f/%.3f; peak RSS %.0f MiB; load average %.1f"
                  % (k, j["open_and_token"]["wall_s"], j["open_and_token"]["cpu_s"], p["map"]["wall_s"], p["map"]["cpu_s"],
                     p["tokenizer"]["wall_s"], p["tokenizer"]["cpu_s"], p["setup"]["wall_s"], p["setup"]["cpu_s"],
                     p["open"]["wall_s"], p["open"]["cpu_s"], p["token"]["wall_s"], p["token"]["cpu_s"], j["peak_rss_mib"], j["load"]))
        wall = median([j["open_and_token"]["wall_s"] for j in runs])
        cpu = median([j["open_and_token"]["cpu_s"] for j in runs])
        load = max(j["load"] for j in runs)
        met, note = verdict_time(wall, cpu, 3.0, load > cpus, 1)  # opening is mostly one thread
        targets.add("8b: open + one token < 3 s", "%.2f s wall, %.2f s CPU (median of %d)" % (wall, cpu, len(runs)),
                    met, None, load, note, {"wall_s": wall, "cpu_s": cpu, "runs": runs})
        summary.append("8b_open_token=%.2fs/%.2fcpu" % (wall, cpu))
    else:
        print("  open + one token: SKIPPED, %s not built (HEADSCOPE_BUILD_BENCH=ON, target bench_open)" % bench_open)
        targets.add("8b: open + one token < 3 s", "(bench_open not built)", None)
    # 128 tokens against llama.cpp.
    sentence, T = fit(a.cli, model, a.tokens_8b)
    ids_path = write_ids(a.cli, model, sentence, work)
    print("  sentence: %d tokens (the same ids to both)" % T)
    hs, ll, loads = compare_rounds(a.cli, model, sentence, ids_path, gguf, package_dir, k, a.rounds_8b)
    r, busy = print_rounds(k, a.rounds_8b, hs, ll, loads, cpus)
    load = max(loads)
    targets.add("8b T=%d %d threads: whole process vs llama.cpp load + prompt <= 1.0" % (T, k),
                "%.1f s vs %.1f s wall; %.1f s vs %.1f s CPU" % (median(hs["wall"]), median(ll["inner"]),
                                                                 median(hs["cpu"]), median(ll["cpu"])),
                r["whole_wall"] <= 1.0, "%.2f wall / %.2f CPU" % (r["whole_wall"], r["whole_cpu"]), load,
                "" if not busy else "CPU ratio: %s" % ("within" if r["whole_cpu"] <= 1.0 else "also over"),
                {"ratio_wall": r["whole_wall"], "ratio_cpu": r["whole_cpu"], "wall_s": median(hs["wall"]),
                 "cpu_s": median(hs["cpu"]), "llama_cpp_wall_s": median(ll["inner"]), "llama_cpp_cpu_s": median(ll["cpu"])})
    if "engine" in r:
        # Not one of the targets: llama.cpp's prompt evaluation alone (8-bit activations) beside the engine.
        targets.add("8b T=%d %d threads: engine alone vs llama.cpp prompt evaluation alone" % (T, k),
                    "%.1f s vs %.1f s wall" % (median(hs["engine"]), median(ll["eval"])), "reported",
                    "%.2f wall" % r["engine"], load, "", {"ratio_wall": r["engine"], "engine_s": median(hs["engine"]),
                                                          "llama_cpp_eval_s": median(ll["eval"])})
    rss = max(hs["rss"])
    targets.add("8b T=%d: peak RSS < 6.5 GB" % T, "%.0f MiB" % rss, rss < 6.5 * GIB, "%.2f" % (rss / max(ll["rss"])), load, "",
                {"rss_mib": rss, "llama_cpp_rss_mib": max(ll["rss"])})
    summary.append("8b_t%d_whole=%.1fs/%.1fcpu 8b_t%d_llama=%.1fs/%.1fcpu 8b_t%d_ratio=%.2f/%.2fcpu 8b_engine_ratio=%s "
                   "8b_rss=%.0fMiB" % (k, median(hs["wall"]), median(hs["cpu"]), k, median(ll["inner"]), median(ll["cpu"]),
                                       k, r["whole_wall"], r["whole_cpu"], "%.2f" % r["engine"] if "engine" in r else "?", rss))
    if a.gui:
        gui_sentences.append(("8b", model, sentence, T))
    else:
        targets.add("8b app: keystroke at the end -> new maps < 2 s", "(pass --gui)", None)
    return summary


def write_ids(cli, model, sentence, work):
    r = subprocess.run([cli, "tokens"] + model + ["--sentence", sentence, "--json", "-"], stdout=subprocess.PIPE,
                       text=True, check=True)
    fd, path = tempfile.mkstemp(prefix="ids-", suffix=".json", dir=work)
    with os.fdopen(fd, "w") as f:
        json.dump(token_ids(r.stdout), f)
    return path


LAYER_FLOP = 8.0 * 512 * 768 * 768 + 4.0 * 512 * 512 * 768  # the layer's products: QKV, output, 12 x (QK^T, AV)


def layer_files(work):
    """nn.MultiheadAttention(768, 12) weights (.safetensors) and a [512, 768] input (.npy), as engine_vs_torch.py writes them."""
    import engine_vs_torch as evt  # torch: Debian's python3-torch
    weights, x = os.path.join(work, "mha768.safetensors"), os.path.join(work, "x512.npy")
    evt.write_safetensors(weights, {k: v for k, v in evt.make_module().state_dict().items()})
    evt.write_npy(x, evt.make_input(512))
    return weights, x


def cli_layer_ms(cli, weights, x, repeat=7):
    """compute_ms_median of `headscope-cli maps --weights W --input X --heads 12 --repeat N --threads 1` (every map kept)."""
    r = subprocess.run([cli, "maps", "--weights", weights, "--input", x, "--heads", "12", "--repeat", str(repeat),
                        "--threads", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True)
    for line in r.stdout.splitlines():
        if line.startswith("compute time (median of"):
            return float(line.split(":")[1].split()[0])
    raise RuntimeError("no compute time in headscope-cli maps --repeat output")


def run_blas(blas, cli, targets, work, rounds=3):
    """The layer d768/h12/T512 on 1 thread with every map kept, through the programs' path (`maps --weights --input
    --repeat 7`, compute_ms_median) against OpenBLAS's rate on the layer's products (bench_blas), rounds alternating;
    bench_blas's attention_layer_forward alone (maps kept) says what the path costs around the forward."""
    label = "layer d768/h12/T512 1 thread, every map kept, through maps --weights --input: >= 100% of OpenBLAS's rate"
    if not blas:
        targets.add(label, "(pass --blas build/tests/bench/bench_blas)", None)
        return []
    load = loadavg()
    weights, x = layer_files(work)
    openblas, forward, path = [], [], []
    for _ in range(rounds):
        out, _ = timed([blas, "--rounds", "1"])
        fields = dict(f.split("=", 1) for f in out.strip().splitlines()[-1].split() if "=" in f)
        # the first openblas_1t_gflops is the streaming layer's, the same number as the kept one's
        openblas.append(float(fields["openblas_1t_gflops"].split("/")[1]))
        forward.append(float(fields["layer_kept_1t_gflops"].split("/")[1]))
        path.append(LAYER_FLOP / cli_layer_ms(cli, weights, x) / 1e6)
        load = max(load, loadavg())
    o, f, p = median(openblas), median(forward), median(path)
    print("\n== one attention layer, d_model 768, 12 heads, T = 512, 1 thread, every map kept (%d alternating rounds) ==" % rounds)
    print("  OpenBLAS on the layer's products (bench_blas): %.1f GFLOP/s = %.1f ms" % (o, LAYER_FLOP / o / 1e6))
    print("  attention_layer_forward alone (bench_blas, maps kept): %.1f GFLOP/s = %.1f ms (%.2f of OpenBLAS's rate)"
          % (f, LAYER_FLOP / f / 1e6, f / o))
    print("  headscope-cli maps --weights --input --repeat 7 --threads 1 (compute_ms_median): %.1f GFLOP/s = %.1f ms "
          "(%.2f of OpenBLAS's rate; target >= 1.00: %s); the path around the forward: %+.1f%%; load average %.1f"
          % (p, LAYER_FLOP / p / 1e6, p / o, "met" if p >= o else "MISSED", 100.0 * (f / p - 1.0), load))
    targets.add(label, "%.1f ms = %.2f of OpenBLAS's rate (%.1f ms); the forward alone %.1f ms (%.2f)"
                % (LAYER_FLOP / p / 1e6, p / o, LAYER_FLOP / o / 1e6, LAYER_FLOP / f / 1e6, f / o), p >= o, None, load, "",
                {"path_ms": LAYER_FLOP / p / 1e6, "openblas_ms": LAYER_FLOP / o / 1e6, "forward_ms": LAYER_FLOP / f / 1e6,
                 "path_vs_openblas": p / o, "forward_vs_openblas": f / o})
    return ["layer_path_1t=%.2f layer_forward_1t=%.2f" % (p / o, f / o)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", required=True, help="headscope-cli (Release build)")
    ap.add_argument("--files", default="qwen", help="qwen, 8b or qwen,8b")
    ap.add_argument("--threads", default="2,1", help="thread counts for the qwen rounds, e.g. 2,1 (8b: the largest)")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds on the qwen file")
    ap.add_argument("--rounds-8b", type=int, default=2, help="alternating rounds (and bench_open runs) on the 8b file")
    ap.add_argument("--tokens", type=int, default=256)
    ap.add_argument("--tokens-8b", type=int, default=128)
    ap.add_argument("--gui", help="headscope (the app): its keystroke benchmark on each file, under xvfb-run -a")
    ap.add_argument("--keystrokes", type=int, default=8, help="keystrokes typed at the end in the app benchmark (the first is the slowest: 8 as the issue measured)")
    ap.add_argument("--app-only", action="store_true", help="only the app's keystrokes (--gui) on the files already written")
    ap.add_argument("--bench-open", help="bench_open (default: tests/bench/bench_open next to the CLI)")
    ap.add_argument("--blas", help="bench_blas: the layer through `maps --weights --input` against OpenBLAS's rate (needs torch)")
    ap.add_argument("--json", help="write the targets table (and the summary fields) as JSON to this file")
    ap.add_argument("--package-dir", default=os.path.expanduser("~/.cache/headscope-bench"))
    ap.add_argument("--install", action="store_true", help="npm install node-llama-cpp into --package-dir when missing")
    a = ap.parse_args()
    cpus = len(os.sched_getaffinity(0))
    files = [f.strip() for f in a.files.split(",") if f.strip()]
    if not set(files) <= {"qwen", "8b"}:
        ap.error("--files: qwen, 8b or qwen,8b (got %s)" % a.files)
    if a.app_only and not a.gui:
        ap.error("--app-only needs --gui")

    print("headscope vs llama.cpp (node-llama-cpp's prebuilt build) on GGUF files with random weights: %s; "
          "load average %.2f on %d cores at the start" % (", ".join(files), loadavg(), cpus))
    reason = None if a.app_only else find_package(a.package_dir, a.install)
    if reason:
        print("  SKIPPED: " + reason)
        return 0
    tokdir = os.path.join(mb.models_dir(), "gpt2-tokenizer")
    if not os.path.isfile(os.path.join(tokdir, "encoder.json")):
        print("  SKIPPED: %s/encoder.json not found (the files' tokenizers; set HEADSCOPE_MODELS_DIR)" % tokdir)
        return 0
    targets = Targets(cpus)
    summary = []
    gui_sentences = []
    work = tempfile.mkdtemp(prefix="headscope-llama-")
    try:
        if a.app_only:  # the app's keystrokes alone, on files already written
            for name in files:
                gguf = mb.bench_model_path(a.cli, QWEN_NAME if name == "qwen" else mb.LLAMA8B_GGUF_NAME)
                if os.path.isfile(gguf):
                    sentence, T = fit(a.cli, ["--model", gguf], 200 if name == "qwen" else a.tokens_8b)
                    gui_sentences.append((name, ["--model", gguf], sentence, T))
                else:
                    print("  %s: SKIPPED, %s not written yet (run without --app-only once)" % (name, gguf))
        else:
            if "qwen" in files:
                summary += run_qwen(a, targets, a.package_dir, tokdir, work, cpus, gui_sentences)
            if "8b" in files:
                summary += run_8b(a, targets, a.package_dir, tokdir, work, cpus, gui_sentences)
        if gui_sentences:
            print("\n== the app: keystrokes typed at the end of the sentence ==")
        for name, model, sentence, T in gui_sentences:
            k, load = keystrokes(a.gui, model, sentence, a.keystrokes, work, "%s, T = %d" % (name, T))
            limit = 100.0 if name == "qwen" else 2000.0
            label = ("qwen app: keystroke at the end of %d tokens -> new maps, median < 100 ms" % T if name == "qwen" else
                     "8b app: keystroke at the end of %d tokens -> new maps < 2 s" % T)
            first_label = "qwen app: the first keystroke after opening -> new maps < 150 ms"
            if k is None:
                targets.add(label, "(failed)", None, None, load)
                if name == "qwen":
                    targets.add(first_label, "(failed)", None, None, load)
                continue
            if name == "qwen":
                first = first_keystroke(k)
                targets.add(first_label, "%.0f ms (worker %.0f ms, of which the engine %.0f; font rebuilds %.0f ms)"
                            % (first["latency_ms"], first["compute_ms"], first["engine_ms"], first["fonts_ms"]),
                            first["latency_ms"] < 150.0, None, load, "", first)
            targets.add(label, "%.0f ms median (worst %.0f), worker %.0f ms" % (k["median_ms"], k["max_ms"],
                                                                               k["compute_ms_median"]),
                        k["median_ms"] < limit, None, load, "",
                        {"median_ms": k["median_ms"], "max_ms": k["max_ms"], "worker_ms": k["compute_ms_median"],
                         "engine_ms": (k.get("compute_parts_ms_median") or {}).get("engine")})
            summary.append("%s_key_ms=%.0f/%.0f" % (name, k["median_ms"], k["max_ms"]))
        summary += run_blas(a.blas, a.cli, targets, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    targets.print()
    end = loadavg()
    print("\n  load average %.2f at the end\nBENCH_LLAMA %s" % (end, " ".join(summary)))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"cores": cpus, "load_average_end": end, "targets": targets.rows, "summary": summary}, f, indent=1)
        print("  targets as JSON: %s" % a.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
