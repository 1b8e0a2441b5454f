#!/usr/bin/env bash
# The benchmark command (issue 7): builds headscope Release in build-bench/ and prints
#   - the engine against PyTorch's nn.MultiheadAttention, side by side in one run, with ratios
#   - the machine's SGEMM rate (torch.mm on OpenBLAS, Eigen) as the ceiling
#   - peak RSS for T = 512 ... 8192
#   - stories260K and a GPT-2-small-shaped random checkpoint (T = 256) through headscope-cli, the latter
#     next to the same forward in PyTorch (models_bench.py)
#   - a Qwen2.5-0.5B-shaped GGUF file with random 4-bit weights (written once into the build tree),
#     every head's map of a 256-token sentence and its peak memory (models_bench.py)
#   - the app under xvfb-run: frame times with 144 heatmaps on screen, keystroke -> new maps
#   - one line starting BENCH_SUMMARY that later runs can be compared to.
# Usage: tests/bench/run.sh [engine_vs_torch.py options, e.g. --sizes 512 --rounds 5]
# Environment: HEADSCOPE_BENCH_BUILD_DIR (default build-bench), HEADSCOPE_BENCH_CMAKE_ARGS
# (e.g. "-DHEADSCOPE_NATIVE=ON" to measure a -march=native build).
# Timings on a shared or busy machine are noisy: read the ratios (measured in alternating
# rounds), not the absolute times.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
build="${HEADSCOPE_BENCH_BUILD_DIR:-build-bench}"

# Debian packages the benchmark needs beyond the README's set-up. libopenblas0-pthread makes
# torch (BLAS_INFO=generic: it calls whatever libblas.so.3 is) run on OpenBLAS instead of the
# reference BLAS. xvfb: the app benchmark runs in a virtual X server (Mesa's llvmpipe renders).
need=()
for pkg in libopenblas0-pthread libopenblas-dev python3-torch libbenchmark-dev time xvfb xauth; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if ((${#need[@]})); then
  echo "installing ${need[*]}" >&2
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >&2
fi

# shellcheck disable=SC2086
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHEADSCOPE_BUILD_GUI=ON -DHEADSCOPE_BUILD_TESTS=OFF \
  -DHEADSCOPE_BUILD_BENCH=ON ${HEADSCOPE_BENCH_CMAKE_ARGS:-} >/dev/null
targets=(headscope-cli bench_engine headscope)
# bench_blas: the engine's products against OpenBLAS (built when libopenblas-dev is installed).
cmake --build "$build" --target help | grep -E '^(\.\.\. )?bench_blas(:|$)' >/dev/null && targets+=(bench_blas)
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}" >/dev/null

cli="$(find "$build" -maxdepth 3 -name headscope-cli -type f -perm -u+x | head -n1)"
exec /usr/bin/python3 "$root/tests/bench/engine_vs_torch.py" --cli "$cli" \
  --bench-bin "$build/tests/bench/bench_engine" --blas-bin "$build/tests/bench/bench_blas" --gui "$build/headscope" "$@"
