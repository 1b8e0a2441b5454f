#!/usr/bin/env bash
# The whole test suite built with AddressSanitizer + UndefinedBehaviorSanitizer
# (HEADSCOPE_SANITIZE=ON) in build-asan/. Any sanitizer report fails the test that caused it:
# ASan and UBSan stop the process (UBSan is built with -fno-sanitize-recover and also told to
# halt), and LeakSanitizer makes the exit status non-zero. Tests that run headscope-cli or the app
# as a child process (Python oracles, xvfb screenshots) run build-asan's sanitized binaries with
# the same options, because the environment is inherited.
#   bash tests/sanitize.sh [extra ctest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
# -O1 -g1 (line tables) with assertions on: about 40% less compile time than -O2 -g, full file:line
# stacks in reports, and assert() checks the programmer errors Release compiles out.
# clang-14 (installed for the fuzzers): it compiles these flags in ~0.64x GCC 12's time (16
# sampled files, alternated: 42 s against 66 s), which is ~5 of CI's minutes, and its UBSan adds
# the vptr and function-type checks.
command -v clang++-14 >/dev/null || { echo "needs clang: apt-get install clang-14 libclang-rt-14-dev" >&2; exit 2; }
CC=clang-14 CXX=clang++-14 cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DCMAKE_C_FLAGS_DEBUG="-O1 -g1" \
  -DHEADSCOPE_SANITIZE=ON -DHEADSCOPE_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j2
# The options are set here, not taken from the caller's environment, so every run is the same.
# Leaks inside the system's OpenGL/X11/fontconfig libraries are theirs, not ours: tests/lsan.supp.
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0"
# intercept_tls_get_addr=0: the sanitizer runtime up to LLVM 16 (clang-14's) and GCC 13 takes a
# dynamic TLS block that happens to start 16 bytes into a page for a pre-2.25 glibc header and
# reads the words before it as that block's bounds; when a dlopen'ed library (Mesa's GL driver) has such a block,
# LeakSanitizer's tracer dies at exit ("Tracer caught signal 11 ... LeakSanitizer has encountered
# a fatal error") with no leak found: a run of app_hostile_input failed so in CI. Our own thread
# locals are static TLS in the executable, which LeakSanitizer still scans.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:check_initialization_order=1:intercept_tls_get_addr=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:abort_on_error=1"
# Tests may make their work lighter under a sanitizer (each says so in its output); never skipped.
export HEADSCOPE_SANITIZER=1
export PYTHONHASHSEED=0
ctest --test-dir build-asan --output-on-failure -j2 "$@"
# Only the skips tests/allowed_skips.txt allows (tests/check_skips.py).
python3 tests/check_skips.py build-asan
