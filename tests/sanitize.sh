#!/usr/bin/env bash
# The whole test suite built with AddressSanitizer + UndefinedBehaviorSanitizer
# (HEADSCOPE_SANITIZE=ON) in build-asan/. Any sanitizer report fails the test that caused it.
#   bash tests/sanitize.sh [extra ctest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHEADSCOPE_SANITIZE=ON -DHEADSCOPE_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j2
# Leaks inside the system's OpenGL/X11/fontconfig libraries are theirs, not ours: suppressed.
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
ctest --test-dir build-asan --output-on-failure -j2 "$@"
