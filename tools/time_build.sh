#!/usr/bin/env bash
# Times a fresh build of headscope and headscope-cli alone (tests and benchmarks off), as the
# README's run command builds them, without ccache, on JOBS cores (default 2), and prints the
# wall time, the CPU time, the load average before and after, and the ten slowest compile steps
# by wall time and by CPU time.
# Usage: tools/time_build.sh [BUILD_DIR] [JOBS]      (BUILD_DIR is removed first; default build-light)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-light}
jobs=${2:-2}
rm -rf "$dir"
mkdir -p "$dir"
cpu_log=$(cd "$dir" && pwd)/step_cpu.txt
export CCACHE_DISABLE=1
# Each compile step runs under /usr/bin/time, which appends its CPU time to step_cpu.txt. A
# compiler launcher turns unity builds off by default (for ccache), so they are asked for here.
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHEADSCOPE_BUILD_TESTS=OFF -DHEADSCOPE_BUILD_BENCH=OFF \
  -DHEADSCOPE_UNITY=ON -DHEADSCOPE_PCH=ON "-DCMAKE_CXX_COMPILER_LAUNCHER=/usr/bin/time;-a;-o;$cpu_log;-f;%U %S %C" >/dev/null
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f "build of headscope and headscope-cli on $jobs cores: %e s wall, %U s user + %S s system CPU" \
  cmake --build "$dir" -j"$jobs" >/dev/null
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "slowest compile steps by wall time (s):"
awk 'NR > 1 { printf "%6.1f %s\n", ($2 - $1) / 1000, $4 }' "$dir/.ninja_log" | sort -rn | head -10
echo "slowest compile steps by CPU time, user + system (s):"
awk '{ out = ""; for (i = 3; i < NF; ++i) if ($i == "-o") out = $(i + 1); if (out != "") printf "%6.1f %s\n", $1 + $2, out }' \
  "$cpu_log" | sort -rn | head -10
