#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang (ASan + UBSan) and runs each for SECONDS (default 60).
#   bash tests/fuzz/run.sh [SECONDS] [HARNESS...]
# Work corpora and crash files go to build-fuzz/; a crash makes the script exit 1. Copy a crash
# file into tests/fuzz/regressions/<harness>/ once fixed, so the normal suite replays it.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
shift || true
command -v clang++-14 >/dev/null || { echo "needs clang: apt-get install clang-14 libclang-rt-14-dev" >&2; exit 2; }
CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -DHEADSCOPE_FUZZ=ON -DHEADSCOPE_BUILD_GUI=OFF \
  -DHEADSCOPE_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
  for f in tests/fuzz/fuzz_*.cpp; do h=$(basename "$f" .cpp); harnesses+=("${h#fuzz_}"); done
fi
targets=()
for h in "${harnesses[@]}"; do targets+=("fuzz_$h"); done
cmake --build build-fuzz -j2 --target "${targets[@]}"
status=0
for h in "${harnesses[@]}"; do
  work=build-fuzz/corpus/$h; crashes=build-fuzz/crashes/$h
  mkdir -p "$work" "$crashes"
  cp -n tests/fuzz/corpus/$h/* "$work"/ 2>/dev/null || true
  echo "== fuzz_$h for ${seconds}s"
  if ! ./build-fuzz/fuzz_$h "$work" -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=20 \
       -artifact_prefix="$crashes/" -print_final_stats=1 2>build-fuzz/fuzz_$h.log; then
    echo "fuzz_$h FOUND A PROBLEM: see build-fuzz/fuzz_$h.log and $crashes/" >&2
    status=1
  fi
  grep -E "stat::number_of_executed_units|cov:" build-fuzz/fuzz_$h.log | tail -2 || true
done
exit $status
