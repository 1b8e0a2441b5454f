#!/usr/bin/env bash
# Installs the Debian 12 packages headscope needs (as root, or with sudo).
#   bash tests/setup_debian.sh --run   only what building and running headscope and headscope-cli
#                                      needs: a compiler, CMake and Ninja, the libraries, the fonts
#   bash tests/setup_debian.sh         that, and what the tests, the benchmarks, the Debian package
#                                      and CI's sanitizer and fuzz runs use: gcc's ASan/UBSan runtimes
#                                      come with build-essential; the libFuzzer harnesses need clang-14
#                                      + libclang-rt-14-dev (llvm-14 gives llvm-symbolizer for readable
#                                      crash stacks); help2man writes the man pages, dpkg-dev gives
#                                      dpkg-shlibdeps for the package's dependencies; python3-dev,
#                                      pybind11, venv, wheel, setuptools and pytest build and test
#                                      the Python package (docs/python.md).
# Idempotent: when everything is already installed it changes nothing and needs no network.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config
  libeigen3-dev libcli11-dev nlohmann-json3-dev libpcre2-dev libicu-dev libcairo2-dev libfontconfig-dev zlib1g-dev
  libimgui-dev libstb-dev libglfw3-dev python3-glad libgl-dev
  fonts-dejavu-core fonts-droid-fallback fonts-symbola xclip
)
if [ "${1:-}" != "--run" ]; then
  packages+=(
    libgtest-dev libgmock-dev libbenchmark-dev
    python3-torch python3-numpy python3-scipy libopenblas0-pthread libopenblas-dev python3-sentencepiece
    xvfb xauth poppler-utils help2man dpkg-dev
    python3-dev pybind11-dev python3-pybind11 python3-venv python3-wheel python3-setuptools python3-pytest
    clang-14 libclang-rt-14-dev llvm-14
    chromium nodejs python3-pil
  )
  # npm fetches puppeteer-core for the HTML page's browser test; a nodejs from elsewhere brings its own.
  command -v npm >/dev/null || packages+=(npm)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi
echo "setup: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
