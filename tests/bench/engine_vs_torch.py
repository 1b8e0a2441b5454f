#!/usr/bin/python3
"""headscope's engine against PyTorch, side by side in one run (issue 7).

For d_model 768, 12 heads and T in {128, 512, 2048}, 1 thread and all threads:
  engine = `headscope-cli maps --weights W --input X --heads 12 --repeat N --threads K`
           (timing.compute_ms_median: one attention layer, every head's map recorded)
  torch  = nn.MultiheadAttention(768, 12, batch_first=True) on the same weights and input,
           called as m(x, x, x, need_weights=True, average_attn_weights=False) under
           torch.no_grad() with torch.set_num_threads(K), after a warm-up; median of N.
Both are measured in alternating rounds (engine, torch, engine, torch, ...) and each side's
time is the median over rounds, so a burst of load from other processes hits both.

Also: the machine's SGEMM rate (torch.mm and Eigen at 768-sized products) as the ceiling and
our effective GFLOP/s against it; peak RSS for T = 512 ... 8192 (getrusage of the child);
parity of maps and output at T = 128; one summary line at the end (BENCH_SUMMARY ...).

Run through tests/bench/run.sh, which builds everything first. Uses only Debian's python3
and python3-torch (no numpy: arrays are written as .npy/.safetensors by hand).
"""
import argparse
import ctypes
import json
import math
import os
import struct
import subprocess
import sys
import tempfile
import time

D_MODEL = 768
HEADS = 12
DISPLAY = 1024  # long-input mode's display size (cells per side), as the app uses for 12 heads


# ---------------------------------------------------------------------------------------
# Files: .safetensors (nn.MultiheadAttention's state_dict) and .npy, written without numpy.

def tensor_bytes(t):
    import torch
    t = t.detach().to(torch.float32).contiguous()
    return ctypes.string_at(t.data_ptr(), t.numel() * 4)


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        b = tensor_bytes(t)
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def write_npy(path, t):
    shape = "(" + ", ".join(str(s) for s in t.shape) + ("," if t.dim() == 1 else "") + ")"
    h = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % shape
    h += " " * (-(10 + len(h) + 1) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode("latin1"))
        f.write(tensor_bytes(t))


def make_module(seed=0):
    import torch
    torch.manual_seed(seed)
    m = torch.nn.MultiheadAttention(D_MODEL, HEADS, batch_first=True)
    with torch.no_grad():  # torch initialises the biases to 0: make them count
        m.in_proj_bias.uniform_(-0.1, 0.1)
        m.out_proj.bias.uniform_(-0.1, 0.1)
    return m.eval()


def make_input(T, seed=1):
    import torch
    g = torch.Generator().manual_seed(seed + T)
    return torch.randn(T, D_MODEL, generator=g)


# ---------------------------------------------------------------------------------------
# The torch worker: a child process (so its environment can differ) that answers
# "T K N" lines with the median milliseconds of N calls.

def blas_info():
    """Which BLAS library torch loaded and which OpenBLAS kernel it runs."""
    libs = sorted({l.split()[-1] for l in open("/proc/self/maps") if "blas" in l.lower()})
    core = "?"
    for lib in libs:
        try:
            f = ctypes.CDLL(lib).openblas_get_corename
            f.restype = ctypes.c_char_p
            core = f().decode()
            break
        except (OSError, AttributeError):
            continue
    return {"libs": libs, "openblas_core": core,
            "torch_blas": "BLAS_INFO=" + next((p.split("=")[1] for p in __import__("torch").__config__.show().replace(",", " ").split()
                                              if p.startswith("BLAS_INFO=")), "?")}


def openblas_threads_setter():
    """torch.set_num_threads does not reach OpenBLAS's own pool: set it too (or None)."""
    for lib in sorted({l.split()[-1] for l in open("/proc/self/maps") if "openblas" in l.lower()}):
        try:
            return ctypes.CDLL(lib).openblas_set_num_threads
        except (OSError, AttributeError):
            continue
    return None


def set_threads(n, openblas_set):
    import torch
    torch.set_num_threads(n)
    if openblas_set:
        openblas_set(n)


def timed(fn, reps):
    """Median wall ms and median process-CPU ms of reps calls."""
    wall, cpu = [], []
    for _ in range(reps):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append((time.perf_counter() - t0) * 1e3)
        cpu.append((time.process_time() - c0) * 1e3)
    return {"ms": median(wall), "cpu_ms": median(cpu)}


def torch_worker():
    import torch
    m = make_module()
    openblas_set = openblas_threads_setter()
    print(json.dumps(blas_info()), flush=True)
    for line in sys.stdin:
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "mm":  # SGEMM ceiling: [M, K] x [K, N]
            M, N, K, threads, reps = map(int, parts[1:])
            set_threads(threads, openblas_set)
            a, b = torch.randn(M, K), torch.randn(K, N)
            for _ in range(3):
                torch.mm(a, b)
            print(json.dumps(timed(lambda: torch.mm(a, b), reps)), flush=True)
            continue
        T, threads, reps = map(int, parts)
        set_threads(threads, openblas_set)
        x = make_input(T).unsqueeze(0)
        with torch.no_grad():
            for _ in range(2):  # warm-up
                m(x, x, x, need_weights=True, average_attn_weights=False)
            r = timed(lambda: m(x, x, x, need_weights=True, average_attn_weights=False), reps)
        print(json.dumps(r), flush=True)


class TorchWorker:
    def __init__(self, env):
        self.p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--torch-worker"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True)
        self.info = json.loads(self.p.stdout.readline())

    def ask(self, line):
        """{"ms": median wall ms, "cpu_ms": median process CPU ms}"""
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        return json.loads(self.p.stdout.readline())

    def close(self):
        self.p.stdin.close()
        self.p.wait()


# ---------------------------------------------------------------------------------------

def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def flops(T):
    """Multiply-adds x 2 of one layer: Q, K, V and out projections, Q K^T and A V per head."""
    return 8 * T * D_MODEL ** 2 + 4 * T * T * D_MODEL


def run_cli(cmd):
    """Runs the CLI; returns (stdout, CPU seconds of the child: user + system)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        out.seek(0)
        err.seek(0)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit("engine failed: " + " ".join(cmd) + "\n" + err.read().decode(errors="replace"))
        return out.read().decode(errors="replace"), ru.ru_utime + ru.ru_stime


def engine_ms(cli, weights, npy, threads, reps):
    """{"ms": the CLI's compute_ms_median, "cpu_ms": CPU per run}: the CPU of a --repeat reps
    process less that of a --repeat 1 process, over reps - 1 (start, loading and the report cancel)."""
    base = [cli, "maps", "--weights", weights, "--input", npy, "--heads", str(HEADS), "--threads", str(threads)]
    text, cpu_n = run_cli(base + ["--repeat", str(reps)])
    _, cpu_1 = run_cli(base + ["--repeat", "1"])
    for line in text.splitlines():
        if line.startswith("compute time"):
            return {"ms": float(line.split(":")[1].split()[0]), "cpu_ms": (cpu_n - cpu_1) / (reps - 1) * 1e3}
    sys.exit("no 'compute time' line in the output of " + " ".join(base))


def peak_rss(cmd):
    """Runs cmd under GNU time; returns (peak RSS of cmd in MiB, wall seconds), (None, s) on failure.
    (getrusage of a child forked from this process would count this process's own peak: Linux
    carries the RSS high-water mark across fork and exec. GNU time is small, so its child's is not.)"""
    r = subprocess.run(["/usr/bin/time", "-f", "HS_RSS %M %e"] + cmd, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    line = next((l for l in reversed(r.stderr.splitlines()) if l.startswith("HS_RSS")), None)
    if line is None:
        return None, None, None
    kib, wall = line.split()[1:3]
    compute = next((float(l.split(":")[1].split()[0]) for l in r.stdout.splitlines() if l.startswith("compute time")), None)
    return (int(kib) / 1024.0 if r.returncode == 0 else None), float(wall), compute


def parity(cli, weights, npy, T):
    import torch
    m = make_module()
    x = make_input(T).unsqueeze(0)
    with torch.no_grad():
        out, att = m(x, x, x, need_weights=True, average_attn_weights=False)
    r = subprocess.run([cli, "maps", "--weights", weights, "--input", npy, "--heads", str(HEADS), "--json", "-"],
                       stdout=subprocess.PIPE, check=True)
    j = json.loads(r.stdout)
    a = torch.tensor(j["attention"][0])
    o = torch.tensor(j["output"])
    return float((a - att[0]).abs().max()), float((o - out[0]).abs().max())


def kernel_rates(bench_bin):
    """1-thread GFLOP/s (per CPU-second) of Eigen's and headscope's SGEMM from the Google Benchmark
    binary: ({name: GFLOP/s}, the instruction set headscope's kernels run with)."""
    if not bench_bin or not os.path.exists(bench_bin):
        return {}, "?"
    r = subprocess.run([bench_bin, "--benchmark_filter=BM_EigenSgemm|BM_KernelSgemm", "--benchmark_format=json",
                        "--benchmark_repetitions=3", "--benchmark_report_aggregates_only=true"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    if r.returncode != 0:
        return {}, "?"
    out, isa = {}, "?"
    for b in json.loads(r.stdout)["benchmarks"]:
        if b.get("aggregate_name") == "median":
            name = b["run_name"].replace("BM_EigenSgemm", "Eigen").replace("BM_KernelSgemm", "headscope")
            out[name] = b["GFLOP/s"] / 1e9 if b["GFLOP/s"] > 1e6 else b["GFLOP/s"]
            if b.get("label"):
                isa = b["label"]
    return out, isa


def blas_comparison(blas_bin, rounds):
    """Runs bench_blas (the engine's products against OpenBLAS's cblas_sgemm at every shape of a
    GPT-2-small layer, 1 and 2 threads, alternating rounds), prints its table and returns its
    summary fields with the layer target (engine layer >= 90% of OpenBLAS's SGEMM rate, 1 thread)."""
    if not blas_bin or not os.path.exists(blas_bin):
        print("\nbench_blas not built (libopenblas-dev missing?): no OpenBLAS comparison")
        return []
    r = subprocess.run([blas_bin, "--rounds", str(max(rounds, 5))], stdout=subprocess.PIPE, text=True)
    lines = r.stdout.rstrip().splitlines()
    print("\n" + "\n".join(l for l in lines if not l.startswith("BENCH_SUMMARY")))
    fields = next((l.split()[2:] for l in lines if l.startswith("BENCH_SUMMARY")), [])
    # best/median of the rounds; the target is read on the median (steadier on a busy machine).
    ratio = next((float(f.split("=")[1].split("/")[-1]) for f in fields if f.startswith("layer_1t_vs_openblas=")), None)
    if ratio is not None:
        fields.append(f"layer_vs_openblas_target>=0.90:{'met' if ratio >= 0.9 else 'missed'}")
    return fields


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torch-worker", action="store_true")
    ap.add_argument("--cli", default="build-bench/headscope-cli")
    ap.add_argument("--bench-bin", default="build-bench/tests/bench/bench_engine")
    ap.add_argument("--blas-bin", default="build-bench/tests/bench/bench_blas")
    ap.add_argument("--sizes", default="128,512,2048")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--rss-sizes", default="512,1024,2048,4096,8192")
    ap.add_argument("--torch-rss-max", type=int, default=8192, help="largest T whose torch peak RSS is measured")
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--gui", default=None, help="the app (headscope) for the app benchmark; omit to skip it")
    ap.add_argument("--no-models", action="store_true", help="skip the pretrained-checkpoint and app benchmarks")
    ap.add_argument("--app-frames", type=int, default=300)
    ap.add_argument("--app-keystrokes", type=int, default=10)
    args = ap.parse_args()
    if args.torch_worker:
        return torch_worker()

    import torch
    cpus = len(os.sched_getaffinity(0))
    work = args.workdir or tempfile.mkdtemp(prefix="headscope-bench-")
    os.makedirs(work, exist_ok=True)
    weights = os.path.join(work, "mha768.safetensors")
    m = make_module()
    write_safetensors(weights, {k: v for k, v in m.state_dict().items()})
    sizes = [int(s) for s in args.sizes.split(",")]
    rss_sizes = [int(s) for s in args.rss_sizes.split(",") if s]
    npys = {}
    for T in sorted(set(sizes + rss_sizes)):
        npys[T] = os.path.join(work, f"x{T}.npy")
        write_npy(npys[T], make_input(T))

    # The machine's environment as it is, and (when it pins OpenBLAS's kernel) without the pin.
    pinned = {k: os.environ[k] for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if k in os.environ}
    workers = {"env": TorchWorker(dict(os.environ))}
    if pinned:
        env = {k: v for k, v in os.environ.items() if k not in pinned}
        workers["unpinned"] = TorchWorker(env)

    print(f"machine: {cpus} cpus; {open('/proc/cpuinfo').read().split('model name')[1].split(':')[1].splitlines()[0].strip()}")
    print(f"torch {torch.__version__}: {workers['env'].info['torch_blas']}, loads {', '.join(os.path.basename(l) for l in workers['env'].info['libs'])}")
    print(f"  OpenBLAS kernel with this environment ({' '.join(f'{k}={v}' for k, v in pinned.items()) or 'no OPENBLAS_* set'}): "
          f"{workers['env'].info['openblas_core']}")
    if pinned:
        print(f"  OpenBLAS kernel with OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE unset: {workers['unpinned'].info['openblas_core']}")

    a_max, o_max = parity(args.cli, weights, npys[sizes[0]] if sizes[0] <= 512 else npys[min(npys)], min(sizes[0], 512))
    print(f"parity at T={min(sizes[0], 512)}: max |maps - torch| = {a_max:.2e}, max |output - torch| = {o_max:.2e}"
          f"  ({'ok' if max(a_max, o_max) <= 1e-5 else 'ABOVE 1e-5'})")

    # SGEMM ceiling: [512, 768] x [768, 2304] (the in-projection's shape).
    M, N, K = 512, 3 * D_MODEL, D_MODEL
    ceiling = {}
    for name, w in workers.items():
        for threads in sorted({1, cpus}):
            r = [w.ask(f"mm {M} {N} {K} {threads} 20") for _ in range(args.rounds)]
            ceiling[(name, threads)] = 2 * M * N * K / median([x["ms"] for x in r]) / 1e6
            if threads == 1:
                ceiling[(name, "cpu")] = 2 * M * N * K / median([x["cpu_ms"] for x in r]) / 1e6
    eig, isa = kernel_rates(args.bench_bin)
    print(f"\nSGEMM ceiling, [{M},{K}] x [{K},{N}] (GFLOP/s):")
    for (name, threads), g in ceiling.items():
        what = "1 thread, per CPU-second" if threads == "cpu" else f"{threads} thread(s), wall"
        print(f"  torch.mm (OpenBLAS {workers[name].info['openblas_core']}), {what}: {g:7.1f}")
    for name, g in eig.items():
        print(f"  {name} (M/N/K[/B transposed]), 1 thread, per CPU-second: {g:7.1f}")
    print(f"  headscope's kernels run with: {isa}")

    reps = {128: 30, 512: 10, 1024: 6, 2048: 3}
    rows = []
    for T in sizes:
        for threads in sorted({1, cpus}):
            n = reps.get(T, 3)
            e, t, u = [], [], []
            for _ in range(args.rounds):
                e.append(engine_ms(args.cli, weights, npys[T], threads, n))
                t.append(workers["env"].ask(f"{T} {threads} {n}"))
                if "unpinned" in workers:
                    u.append(workers["unpinned"].ask(f"{T} {threads} {n}"))
            rows.append({"T": T, "threads": threads,
                         "engine": median([x["ms"] for x in e]), "torch": median([x["ms"] for x in t]),
                         "engine_cpu": median([x["cpu_ms"] for x in e]), "torch_cpu": median([x["cpu_ms"] for x in t]),
                         "torch_unpinned": median([x["ms"] for x in u]) if u else None,
                         "torch_unpinned_cpu": median([x["cpu_ms"] for x in u]) if u else None,
                         "ratios": [a["ms"] / b["ms"] for a, b in zip(e, t)]})

    print(f"\nengine vs torch: one attention layer, d_model {D_MODEL}, {HEADS} heads, every head's map; "
          f"median of {args.rounds} alternating rounds (each a median of N calls)")
    hdr = (f"{'T':>5} {'thr':>3} | {'engine ms':>10} {'torch ms':>10} {'ratio':>6} {'(per round)':>17} | "
           f"{'GFLOP/s':>7} {'of ceil':>7}")
    if pinned:
        hdr += f" | {'torch unpinned':>14} {'ratio':>6}"
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        g = flops(r["T"]) / r["engine"] / 1e6
        ceil = ceiling[("env", r["threads"])]
        line = (f"{r['T']:>5} {r['threads']:>3} | {r['engine']:>10.2f} {r['torch']:>10.2f} {r['engine'] / r['torch']:>6.2f} "
                f"{' '.join(f'{x:.2f}' for x in r['ratios']):>17} | {g:>7.1f} {100 * g / ceil:>6.0f}%")
        if pinned:
            line += f" | {r['torch_unpinned']:>14.2f} {r['engine'] / r['torch_unpinned']:>6.2f}"
        print(line)
    print("wall-clock medians; ratio = engine / torch (target at T=512, 1 thread: <= 0.70); 'of ceil' = engine "
          "GFLOP/s over torch.mm's (OpenBLAS) with the same threads")

    print(f"\nthe 1-thread rows in CPU time (user + system; steadier than wall time when other work shares the cores):")
    hdr = f"{'T':>5} | {'engine cpu ms':>13} {'torch cpu ms':>12} {'ratio':>6} | {'GFLOP/CPU-s':>11} {'of ceil':>7}"
    if pinned:
        hdr += f" | {'torch unpinned':>14} {'ratio':>6}"
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        if r["threads"] != 1:
            continue
        g = flops(r["T"]) / r["engine_cpu"] / 1e6
        line = (f"{r['T']:>5} | {r['engine_cpu']:>13.2f} {r['torch_cpu']:>12.2f} {r['engine_cpu'] / r['torch_cpu']:>6.2f} | "
                f"{g:>11.1f} {100 * g / ceiling[('env', 'cpu')]:>6.0f}%")
        if pinned:
            line += f" | {r['torch_unpinned_cpu']:>14.2f} {r['engine_cpu'] / r['torch_unpinned_cpu']:>6.2f}"
        print(line)
    print("engine CPU per run = (CPU of a --repeat N process - CPU of a --repeat 1 process) / (N - 1)")

    print(f"\npeak RSS, all threads, --repeat 1 (full float32 maps = {HEADS} x T^2 x 4 bytes):")
    print(f"{'T':>5} | {'engine MiB':>10} {'compute s':>9} {'process s':>9} | {'torch MiB':>10} {'process s':>9} | {'maps MiB':>9}")
    rss, compute_s = {}, {}
    torch_script = ("import sys,torch; sys.path.insert(0, %r); import engine_vs_torch as b; m = b.make_module(); "
                    "x = b.make_input(%%d).unsqueeze(0)\nwith torch.no_grad(): m(x, x, x, need_weights=True, "
                    "average_attn_weights=False)") % os.path.dirname(os.path.abspath(__file__))
    for T in rss_sizes:
        e_mib, e_s, e_compute = peak_rss([args.cli, "maps", "--weights", weights, "--input", npys[T], "--heads", str(HEADS),
                               "--repeat", "1"])
        t_mib, t_s = (None, None)
        if T <= args.torch_rss_max:
            t_mib, t_s, _ = peak_rss([sys.executable, "-c", torch_script % T])
        rss[T] = e_mib
        nan = float("nan")
        print(f"{T:>5} | {e_mib or nan:>10.0f} {(e_compute or nan) / 1e3:>9.2f} {e_s or nan:>9.1f} | {t_mib or nan:>10.0f} "
              f"{t_s or nan:>9.1f} | {HEADS * T * T * 4 / 2**20:>9.0f}")
        if e_compute:
            compute_s[T] = e_compute / 1e3
    print("compute s: the engine's compute_ms_median (all threads); process s: the whole process (start, loading,\n"
          "compute, text report; torch's includes importing torch)")

    # Long-input mode (what the app uses past 2048 tokens): no T x T map is held, only 1024 x 1024
    # block maxima per head, exact head numbers and the q and k for exact rows.
    print(f"\nlong-input mode (--display-size {DISPLAY}), all threads, median of 3:")
    print(f"{'T':>5} | {'engine MiB':>10} {'compute s':>9} {'process s':>9} | {'whole maps MiB':>14}")
    long_rss, long_s = {}, {}
    for T in [t for t in rss_sizes if t >= 2048]:
        e_mib, e_s, e_compute = peak_rss([args.cli, "maps", "--weights", weights, "--input", npys[T], "--heads", str(HEADS),
                                          "--display-size", str(DISPLAY), "--repeat", "3"])
        nan = float("nan")
        print(f"{T:>5} | {e_mib or nan:>10.0f} {(e_compute or nan) / 1e3:>9.2f} {e_s or nan:>9.1f} | "
              f"{HEADS * T * T * 4 / 2**20:>14.0f}")
        if e_mib:
            long_rss[T] = e_mib
        if e_compute:
            long_s[T] = e_compute / 1e3

    for w in workers.values():
        w.close()
    model_fields = []
    if not args.no_models:  # stories260K, the GPT-2-shaped checkpoint, the app (models_bench.py)
        import models_bench
        model_fields = models_bench.run(args.cli, args.gui, cpus, args.rounds, args.app_frames, args.app_keystrokes,
                                        args.workdir)
    blas_fields = blas_comparison(args.blas_bin, args.rounds)
    r512 = next((r for r in rows if r["T"] == 512 and r["threads"] == 1), rows[0])
    summary = " ".join(
        [f"BENCH_SUMMARY"] +
        [f"T{r['T']}t{r['threads']}={r['engine']:.2f}ms/{r['torch']:.2f}ms={r['engine'] / r['torch']:.2f}x" for r in rows] +
        [f"ratio512t1={r512['engine'] / r512['torch']:.2f}", f"cpu_ratio512t1={r512['engine_cpu'] / r512['torch_cpu']:.2f}",
         f"target<=0.70:{'met' if r512['engine'] / r512['torch'] <= 0.7 else 'missed'}"] +
        [f"rss{T}={v:.0f}MiB" for T, v in rss.items() if v] +
        [f"compute{T}={v:.2f}s" for T, v in compute_s.items() if T >= 4096] +
        [f"long_rss{T}={v:.0f}MiB" for T, v in long_rss.items()] +
        [f"long_compute{T}={v:.2f}s" for T, v in long_s.items()] +
        [f"blas={workers['env'].info['openblas_core']}", f"kernels={isa}"] + blas_fields + model_fields)
    print("\n" + summary)


if __name__ == "__main__":
    main()
