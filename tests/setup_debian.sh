#!/usr/bin/env bash
# Installs every Debian 12 package headscope needs to build, run and test (as root, or with sudo),
# including what CI's sanitizer and fuzz runs use: gcc's ASan/UBSan runtimes come with
# build-essential; the libFuzzer harnesses need clang-14 + libclang-rt-14-dev (llvm-14 gives
# llvm-symbolizer for readable crash stacks).
# Idempotent: when everything is already installed it changes nothing and needs no network.
set -euo pipefail
packages=(
  build-essential cmake pkg-config
  libeigen3-dev libcli11-dev nlohmann-json3-dev libpcre2-dev libicu-dev libcairo2-dev libfontconfig-dev zlib1g-dev
  libimgui-dev libstb-dev libglfw3-dev python3-glad libgl-dev
  fonts-dejavu-core fonts-droid-fallback fonts-symbola
  libgtest-dev libgmock-dev libbenchmark-dev
  python3-torch python3-numpy libopenblas0-pthread libopenblas-dev python3-sentencepiece
  xvfb xauth xclip poppler-utils
  clang-14 libclang-rt-14-dev llvm-14
)
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
