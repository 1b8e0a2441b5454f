#!/usr/bin/python3
"""Long documents (issue 50): time and peak memory against T on the Qwen2.5-0.5B-shaped GGUF file.

The file: models_bench.py's Qwen2.5-0.5B-shaped Q4_K_M file with random weights and the vocabulary
padded to the embedding rows (llama_cpp_bench.py's, so llama.cpp loads the same file), written once
into bench-models/ next to the CLI. The input: T random ordinary token ids (--input-ids; the same ids
go to llama.cpp), T = --sizes (default 512, 1024, 2048, 4096).

For each T, each process under GNU time (wall, CPU = user + system, peak RSS), at --threads:
  heads    `headscope-cli heads`: every head's role scores; past the long-input rule (2048 tokens or
           1 GiB of maps) no T x T map is held, every head streams in blocks of query rows
  export   `headscope-cli export --layer L --whole-maps --out L.npy`: one layer's exact maps
           [1, 14, T, T]; the run keeps only that layer's maps whole (the rest stream)
  llama    llama.cpp's load + prompt evaluation of the same ids (npm's node-llama-cpp, as
           llama_cpp_bench.py runs it); skipped with the reason when node or the package is missing
  app      with --app build/headscope: the desktop app under xvfb-run until its first screenshot
           (1280 x 720): start, the run, and the layers x heads overview of block maxima drawn
  app+head the same with --view head --layer L --head 3: the overview's run, then head 3's exact
           T x T map computed and drawn (the app's peak RSS; issue 50's target < 3 GB at T = 4096)
Then issue 50's targets at T = 4096 beside the measurements, and the load average (a wall time on a
busy machine is the machine's: "provisional"; memory does not depend on the load).

Correctness, once (--check-T, default 512): the kept layer of `export --layer L --whole-maps` under a
memory limit that refuses every map (so the run keeps only layer L, every other head streamed)
against the full-memory run's layer L (`export --whole-maps`, every map): the largest difference.

  tests/bench/long_document.py --cli build/headscope-cli [--sizes 512,1024,2048,4096,8192] [--threads 2]
      [--layer 12] [--app build/headscope] [--package-dir DIR] [--install] [--skip heads,llama] [--json OUT]
Uses Debian's python3 with numpy; the file needs MODELS_DIR/gpt2-tokenizer (HEADSCOPE_MODELS_DIR).
"""
import argparse
import json
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import llama_cpp_bench as lcb  # noqa: E402  (timed, find_package, loadavg, the padded file's name)
import models_bench as mb  # noqa: E402  (write_qwen_gguf, models_dir, bench_model_path)

GIB = 1024.0  # MiB per GiB
# Issue 50's targets at T = 4096, 2 threads (memory in MiB; time as a multiple of llama.cpp's evaluation).
EXPORT_RSS_MIB, EXPORT_TIME_X = 2.5 * 1000 ** 3 / 2 ** 20, 1.5
HEADS_RSS_MIB, HEADS_TIME_X = 1.5 * 1000 ** 3 / 2 ** 20, 2.0
APP_RSS_MIB = 3.0 * 1000 ** 3 / 2 ** 20
APP_HEAD = 3


def model_file(cli):
    path = mb.bench_model_path(cli, lcb.QWEN_NAME)
    if not os.path.isfile(path):
        tokdir = os.path.join(mb.models_dir(), "gpt2-tokenizer")
        if not os.path.isfile(os.path.join(tokdir, "encoder.json")):
            sys.exit("%s/encoder.json not found (the file's tokenizer; set HEADSCOPE_MODELS_DIR)" % tokdir)
        print("writing %s (once) ..." % path, flush=True)
        mb.write_qwen_gguf(path, tokdir, pad_vocab=True)
    return path


def random_ids(T, seed=50):
    """T ordinary token ids (below Qwen's first special token), the same for every program."""
    from qwen_vocab import QWEN_ORDINARY
    return [int(i) for i in np.random.default_rng(seed + T).integers(0, QWEN_ORDINARY, T)]


def measure(cmd):
    load = lcb.loadavg()
    try:
        out, t = lcb.timed(cmd)
    except RuntimeError as e:
        return None, {"error": str(e)}
    t["load"] = max(load, lcb.loadavg())
    return out, t


def llama_eval(package_dir, gguf, ids, threads, work):
    path = os.path.join(work, "ids-%d.json" % len(ids))
    with open(path, "w") as f:
        json.dump(ids, f)
    out, t = measure(["node", os.path.join(HERE, "llama_cpp_eval.mjs"), package_dir, gguf, path, str(threads)])
    if out is not None:
        m = json.loads(out.strip().splitlines()[-1])
        t["eval"] = (m["context_ms"] + m["eval_ms"]) / 1000.0
        t["load_s"] = m["load_ms"] / 1000.0
    return t


def check_kept_layer(cli, gguf, layer, T, threads, work):
    """The kept-only path against the full-memory run at T: (largest difference, cells compared)."""
    ids = ",".join(map(str, random_ids(T)))
    base = [cli, "export", "--model", gguf, "--input-ids", ids, "--threads", str(threads), "--whole-maps"]
    full_path, kept_path = os.path.join(work, "full.npy"), os.path.join(work, "kept.npy")
    lcb.timed(base + ["--out", full_path])
    full = np.load(full_path, mmap_mode="r")[layer]
    one_layer = 14 * T * T * 4
    limit = str(2 * one_layer)  # every map (24 layers) over it, one layer under it
    env = dict(os.environ, HEADSCOPE_MAX_MAP_BYTES=limit)
    import subprocess
    r = subprocess.run(base + ["--layer", str(layer), "--out", kept_path], env=env, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("kept-only export: " + r.stderr.strip())
    refused = subprocess.run(base + ["--out", os.path.join(work, "refused.npy")], env=env, capture_output=True, text=True)
    kept = np.load(kept_path)[0]
    err = float(np.abs(kept.astype(np.float64) - full.astype(np.float64)).max())
    os.unlink(full_path)
    return err, kept.size, refused.returncode != 0 and "maps of T x T floats need" in refused.stderr


def app_measure(app, args, layer, work, opened):
    """The app until its first screenshot under xvfb-run (GNU time outside: the peak RSS is the app's,
    the largest process of the tree), the overview or (opened) head APP_HEAD of `layer` opened exactly."""
    import shutil
    xvfb = shutil.which("xvfb-run")
    if not xvfb:
        return {"error": "xvfb-run not found (apt-get install xvfb)"}
    png = os.path.join(work, "app.png")
    view = ["--view", "head", "--layer", str(layer), "--head", str(APP_HEAD)] if opened else []
    t = measure([xvfb, "-a", "-s", "-screen 0 1280x720x24", app] + args + view +
                ["--width", "1280", "--height", "720", "--screenshot", png, "--frames", "3"])[1]
    if "error" not in t and opened:
        with open(png + ".json") as f:
            shown = [x["text"] for x in json.load(f)["texts"]]
        # Long-input mode says "exact map: all T x T cells" once the head is opened; whole maps are exact anyway.
        if any("long-input mode" in x for x in shown) and not any(x.startswith("exact map: all") for x in shown):
            t["error"] = "the screenshot does not show the exact map (no 'exact map: all ...' line)"
        t["whole_maps"] = not any("long-input mode" in x for x in shown)
    return t


def fmt(t, key="wall", unit="s"):
    if t is None:
        return "skipped"
    if "error" in t:
        return "FAILED"
    return ("%.1f %s" % (t[key], unit)) if unit == "s" else ("%.0f MiB" % t[key])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--sizes", default="512,1024,2048,4096")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--layer", type=int, default=12)
    ap.add_argument("--app", help="the desktop app (build/headscope): time and memory of its overview and one opened head")
    ap.add_argument("--check-T", type=int, default=512, help="T of the correctness check (0: skip it)")
    ap.add_argument("--package-dir", default=os.path.expanduser("~/.cache/headscope-bench"))
    ap.add_argument("--install", action="store_true", help="npm install node-llama-cpp into --package-dir when missing")
    ap.add_argument("--skip", default="", help="comma-separated: heads, export, llama")
    ap.add_argument("--json", help="write the measurements as JSON")
    a = ap.parse_args()
    skip = set(filter(None, a.skip.split(",")))
    gguf = model_file(a.cli)
    no_llama = "llama" in skip and "skipped (--skip llama)" or lcb.find_package(a.package_dir, a.install)
    print("Long documents on %s, %d threads, layer %d; load average at the start %.2f (cores: %d)"
          % (os.path.basename(gguf), a.threads, a.layer, lcb.loadavg(), os.cpu_count()))
    if no_llama:
        print("llama.cpp: SKIPPED: " + no_llama)
    results = {"threads": a.threads, "layer": a.layer, "sizes": {}}
    with tempfile.TemporaryDirectory(prefix="headscope-longdoc-") as work:
        if a.check_T > 0:
            err, cells, refused = check_kept_layer(a.cli, gguf, a.layer, a.check_T, a.threads, work)
            print("check at T = %d: layer %d kept alone (every map refused by the limit: %s) against the full-memory run: "
                  "largest difference %.3g over %d cells (target <= 1e-6: %s)"
                  % (a.check_T, a.layer, "yes" if refused else "NO", err, cells, "met" if err <= 1e-6 and refused else "MISSED"))
            results["check"] = {"T": a.check_T, "max_error": err, "cells": cells, "all_maps_refused": refused}
        print("\n%6s | %-30s | %-30s | %-26s | %s" % ("T", "heads: wall, CPU, peak RSS", "export --layer: wall, CPU, RSS",
                                                   "llama.cpp eval (process RSS)", "load"))
        for T in [int(x) for x in a.sizes.split(",")]:
            ids = random_ids(T)
            args = ["--model", gguf, "--input-ids", ",".join(map(str, ids)), "--threads", str(a.threads)]
            row = {}
            if "heads" not in skip:
                row["heads"] = measure([a.cli, "heads"] + args)[1]
            if "export" not in skip:
                out = os.path.join(work, "L.npy")
                row["export"] = measure([a.cli, "export"] + args + ["--layer", str(a.layer), "--whole-maps", "--out", out])[1]
                if "error" not in row["export"]:
                    row["export"]["npy_bytes"] = os.path.getsize(out)
                    os.unlink(out)
            if not no_llama:
                row["llama"] = llama_eval(a.package_dir, gguf, ids, a.threads, work)
            if a.app and "app" not in skip:
                row["app"] = app_measure(a.app, args, a.layer, work, False)
                row["app_head"] = app_measure(a.app, args, a.layer, work, True)
            results["sizes"][T] = row
            cell = lambda t: "skipped" if t is None else "FAILED" if "error" in t else "%6.1f s %6.1f s %6.0f MiB" % (
                t["wall"], t["cpu"], t["rss_mib"])  # noqa: E731
            ll = row.get("llama")
            llama_cell = ("skipped" if ll is None else "FAILED" if "error" in ll else
                          "%6.1f s (%5.0f MiB)" % (ll["eval"], ll["rss_mib"]))
            load = max(t["load"] for t in row.values() if t and "load" in t) if row else lcb.loadavg()
            print("%6d | %-30s | %-30s | %-26s | %.2f" % (T, cell(row.get("heads")), cell(row.get("export")), llama_cell, load),
                  flush=True)
            if a.app and "app" not in skip:
                print("%6s | app overview: %-30s | app + exact L%d h%d: %s" % (
                    "", cell(row.get("app")), a.layer, APP_HEAD, cell(row.get("app_head"))), flush=True)
            for name, t in row.items():
                if t and "error" in t:
                    print("       %s: %s" % (name, t["error"][-400:]))
        print_targets(results)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)


def print_targets(results):
    row = results["sizes"].get(4096)
    if not row:
        print("\nissue 50's targets are at T = 4096: not in --sizes")
        return
    ll = row.get("llama")
    base = ll["eval"] if ll and "error" not in ll else None
    load = max([t["load"] for t in row.values() if t and "load" in t] or [lcb.loadavg()])
    print("\nissue 50's targets at T = 4096, %d threads (load average while measuring: %.2f on %d cores%s)"
          % (results["threads"], load, os.cpu_count(), "; BUSY: times are provisional" if load > 1.0 else ""))

    def line(target, measured, ok):
        print("  %-62s | %-22s | %s" % (target, measured, "not run" if ok is None else "met" if ok else "MISSED"))

    for name, rss_target, time_x in (("export", EXPORT_RSS_MIB, EXPORT_TIME_X), ("heads", HEADS_RSS_MIB, HEADS_TIME_X)):
        t = row.get(name)
        what = "export --layer L --whole-maps" if name == "export" else "heads"
        if not t or "error" in t:
            line(what + ": peak RSS < %.1f GB" % (rss_target * 2 ** 20 / 1000 ** 3), fmt(t), None)
            continue
        line(what + ": peak RSS < %.1f GB" % (rss_target * 2 ** 20 / 1000 ** 3), "%.0f MiB" % t["rss_mib"],
             t["rss_mib"] < rss_target)
        if base:
            line(what + ": wall <= %.1fx llama.cpp's evaluation (%.1f s)" % (time_x, base),
                 "%.1f s (%.2fx)" % (t["wall"], t["wall"] / base), t["wall"] <= time_x * base)
        else:
            line(what + ": wall <= %.1fx llama.cpp's evaluation" % time_x, "%.1f s (no llama.cpp)" % t["wall"], None)
    for name, what in (("app", "app, overview shown"), ("app_head", "app, overview + one head's exact map")):
        t = row.get(name)
        if t is None:
            continue
        if "error" in t:
            line(what + ": peak RSS < 3 GB", fmt(t), None)
        else:
            line(what + ": peak RSS < 3 GB", "%.0f MiB (%.1f s)" % (t["rss_mib"], t["wall"]), t["rss_mib"] < APP_RSS_MIB)


if __name__ == "__main__":
    main()
