#!/usr/bin/env bash
# Sets up a Debian 12 machine for Tessera and builds it: installs the Debian packages that are
# missing (nothing is downloaded when all are present), then configures and builds with CMake,
# Ninja, clang-22, lld-22 and ccache into build/.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake ninja-build clang-22 lld-22 ccache          # build tools
  libclang-rt-22-dev                                 # the sanitizers' runtimes (scripts/sanitize.sh)
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools  # LLVM/MLIR 22 (compiler, lit, FileCheck)
  spirv-tools                                        # SPIR-V validation and disassembly
  libvulkan-dev libvulkan-volk-dev                   # Vulkan headers and volk (the loader is dlopened)
  mesa-vulkan-drivers                                # lavapipe: a CPU Vulkan device
  doctest-dev                                        # unit tests
  libpng-dev pkg-config                              # the embedding example (examples/embed) and its install test
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

jobs=${TESSERA_JOBS:-$(nproc)}
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
fi
cmake --build build -j "$jobs"
