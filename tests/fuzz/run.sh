#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang (ASan + UBSan) and runs each for SECONDS (default 60),
# two at a time ($HEADSCOPE_FUZZ_JOBS).
#   bash tests/fuzz/run.sh [SECONDS] [HARNESS...]
# Work corpora and crash files go to the build folder, build-fuzz/ (or $HEADSCOPE_FUZZ_BUILD_DIR);
# a crash makes the script exit 1. Copy a crash file into tests/fuzz/regressions/<harness>/ once
# fixed, so the normal suite replays it.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
shift || true
dir=${HEADSCOPE_FUZZ_BUILD_DIR:-build-fuzz}
command -v clang++-14 >/dev/null || { echo "needs clang: apt-get install clang-14 libclang-rt-14-dev" >&2; exit 2; }
# -O1 -g1 with assertions on, as tests/sanitize.sh builds: it compiles in about 60% of -O2 -g's
# time, reports keep file:line stacks, and assert() catches what Release compiles out.
CC=clang-14 CXX=clang++-14 cmake -S . -B "$dir" -DHEADSCOPE_FUZZ=ON -DHEADSCOPE_BUILD_GUI=OFF \
  -DHEADSCOPE_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DCMAKE_C_FLAGS_DEBUG="-O1 -g1" >/dev/null
harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
  for f in tests/fuzz/fuzz_*.cpp; do h=$(basename "$f" .cpp); harnesses+=("${h#fuzz_}"); done
fi
targets=()
for h in "${harnesses[@]}"; do targets+=("fuzz_$h"); done
cmake --build "$dir" -j2 --target "${targets[@]}"
# Two harnesses at a time (one per core): each still runs for SECONDS of wall time.
jobs=${HEADSCOPE_FUZZ_JOBS:-2}
run_one() {
  local h=$1 work=$dir/corpus/$1 crashes=$dir/crashes/$1 bin=$dir/fuzz_$1
  mkdir -p "$work" "$crashes"
  cp -n tests/fuzz/corpus/$h/* "$work"/ 2>/dev/null || true
  [[ $bin == /* ]] || bin=./$bin
  if ! "$bin" "$work" -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=20 \
       -artifact_prefix="$crashes/" -print_final_stats=1 2>"$dir/fuzz_$h.log"; then
    { echo "fuzz_$h FOUND A PROBLEM: see $dir/fuzz_$h.log and $crashes/"; tail -40 "$dir/fuzz_$h.log"; } >&2 || true
    return 1
  fi
}
report() {
  echo "== fuzz_$1 for ${seconds}s: $2"
  grep -E "stat::number_of_executed_units|cov:" "$dir/fuzz_$1.log" | tail -2 || true
}
status=0
declare -A running=()
for h in "${harnesses[@]}"; do
  while [ ${#running[@]} -ge "$jobs" ]; do
    wait -n -p done_pid && rc=0 || rc=$?
    report "${running[$done_pid]}" "$([ $rc -eq 0 ] && echo clean || echo FAILED)"; [ $rc -eq 0 ] || status=1
    unset "running[$done_pid]"
  done
  run_one "$h" & running[$!]=$h
done
while [ ${#running[@]} -gt 0 ]; do
  wait -n -p done_pid && rc=0 || rc=$?
  report "${running[$done_pid]}" "$([ $rc -eq 0 ] && echo clean || echo FAILED)"; [ $rc -eq 0 ] || status=1
  unset "running[$done_pid]"
done
exit $status
