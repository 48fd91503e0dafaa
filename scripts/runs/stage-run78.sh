#!/usr/bin/env bash
# Build machine side of run 78 (scripts/runs/gpu-run78.sh): do the subgroup-path kernels gain from
# their sizes as specialization constants as the workgroup-matrix ones did (run 76b)? 05_matmul
# and 06_flash_attention packages compiled with and without TESSERA_SPECIALIZE_SIZES=1 (every i32
# scalar a specialization constant), in .gpu-stage/bin/w78/{plain,spec}, with this build's
# runtime and the AOT examples (carried with .gpu-stage/bin).
set -euo pipefail
cd "$(dirname "$0")/../.."
ninja -C build -j "${TESSERA_JOBS:-2}"
W=.gpu-stage/bin/w78
rm -rf "$W"; mkdir -p "$W/bin" "$W/lib"
cp build/bin/05_matmul_aot build/bin/06_flash_attention_aot "$W/bin/"
cp -L build/lib/libtessera_runtime.so "$W/lib/"
for v in plain spec; do
  mkdir -p "$W/$v"
  [ $v = spec ] && export TESSERA_SPECIALIZE_SIZES=1 || unset TESSERA_SPECIALIZE_SIZES
  for c in 128x256x32/16 128x128x32/8 128x256x64/8; do
    build/bin/05_matmul 16 16 16 --dtype=f16 --act=none --config=$c --write-package="$W/$v/" > /dev/null 2>&1 || true
  done
  build/bin/05_matmul 16 16 16 --dtype=f32 --act=none --config=128x128x16/8 --write-package="$W/$v/" > /dev/null 2>&1 || true
  build/bin/06_flash_attention 1 1 64 128 --dtype=f16 --blocks=64x32 --write-package="$W/$v/" > /dev/null 2>&1 || true
  build/bin/06_flash_attention 1 1 64 128 --dtype=f16 --causal --blocks=64x32 --write-package="$W/$v/" > /dev/null 2>&1 || true
done
unset TESSERA_SPECIALIZE_SIZES
ls "$W/plain" "$W/spec"; du -sh "$W"
