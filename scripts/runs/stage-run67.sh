#!/usr/bin/env bash
# Build machine side of run 67 (scripts/runs/gpu-run67.sh): fills the ignored folder .gpu-stage/ with
# this build's runtime and runtime-only binaries, and the same kernels' packages compiled twice:
# "new" by this build, "old" by the compiler of commit 2a8ff79 (before SPIR-V's branch-free loads
# and the SPIR-V variants that count a dot's operands). For "old" the compiler's files of that
# commit are checked out over this tree, the compiler rebuilt, and this tree's files put back and
# rebuilt at the end (about 10 minutes on 2 cores). Needs a clean tree. Then carry .gpu and
# .gpu-stage and run scripts/runs/gpu-run67.sh there.
set -euo pipefail
cd "$(dirname "$0")/../.."
BEFORE=2a8ff79
FILES=(backends/spirv/SPIRVTargetInfo.cpp backends/spirv/GPUToSPIRV.cpp backends/Compiler.cpp
       dialects/Tile/IR/TileOps.td dialects/Tile/IR/TileOps.cpp)
if [ -n "$(git status --porcelain -- "${FILES[@]}")" ]; then
  echo "stage-run67.sh: commit or stash your changes to ${FILES[*]} first" >&2
  exit 1
fi
JOBS=${TESSERA_JOBS:-2}
packages() { # $1: old or new
  local P=.gpu-stage/pkgs/$1
  rm -rf "$P"; mkdir -p "$P/mm" "$P/att" "$P/bench"
  for c in 128x256x32/16 256x128x32/8 128x128x32/8; do
    build/bin/05_matmul 16 16 16 --dtype=f16 --act=none --config=$c --write-package="$P/mm/" > /dev/null 2>&1 || true
  done
  for c in 256x128x32/8 128x128x32/8; do
    build/bin/05_matmul 16 16 16 --dtype=f16 --act=none --config=$c --stages=2 --write-package="$P/mm/" > /dev/null 2>&1 || true
  done
  build/bin/05_matmul 16 16 16 --dtype=f32 --act=none --config=128x128x16/8 --write-package="$P/mm/" > /dev/null 2>&1 || true
  build/bin/05_matmul 16 16 16 --dtype=bf16 --act=none --config=128x256x32/16 --write-package="$P/mm/" > /dev/null 2>&1 || true
  build/bin/06_flash_attention 1 1 64 128 --dtype=f16 --blocks=64x32 --write-package="$P/att/" > /dev/null 2>&1 || true
  build/bin/tessera-bench --compile-only --subgroups=32 --write-packages="$P/bench" > "$P/bench/compile.log"
  # (The examples write their package before loading it; lavapipe then refuses the large blocks.)
  [ "$(ls "$P/mm" | wc -l)" = 7 ] && [ "$(ls "$P/att" | wc -l)" = 1 ] || { echo "stage-run67.sh: packages missing in $P" >&2; exit 1; }
}
ninja -C build -j "$JOBS"
rm -rf .gpu-stage
mkdir -p .gpu-stage/bin .gpu-stage/lib
cp build/bin/tessera build/bin/05_matmul_aot build/bin/06_flash_attention_aot build/bin/tessera-bench-aot .gpu-stage/bin/
cp -L build/lib/libtessera_runtime.so .gpu-stage/lib/
packages new
trap 'git checkout -q HEAD -- "${FILES[@]}"; ninja -C build -j "$JOBS" > /dev/null' EXIT
git checkout -q "$BEFORE" -- "${FILES[@]}"
ninja -C build -j "$JOBS" tessera 05_matmul 06_flash_attention tessera-bench
packages old
du -sh .gpu-stage
