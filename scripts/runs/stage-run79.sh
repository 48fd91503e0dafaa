#!/usr/bin/env bash
# Build machine side of run 79 (scripts/runs/gpu-run79.sh): the examples' own specializedArgs packages
# (05_matmul's M, N, K and 06_flash_attention's seq) beside run 78's "plain" ones, and the
# memory-bound benchmark kernels in fast mode compiled with and without TESSERA_SPECIALIZE_SIZES=1
# (every i32 scalar a specialization constant), in .gpu-stage/bin/w79 (carried with .gpu-stage/bin).
# After scripts/runs/stage-run78.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
ninja -C build -j "${TESSERA_JOBS:-2}"
W=.gpu-stage/bin/w79
rm -rf "$W"; mkdir -p "$W/bin" "$W/lib" "$W/own" "$W/bench-plain" "$W/bench-spec"
cp build/bin/05_matmul_aot build/bin/06_flash_attention_aot build/bin/tessera-bench-aot "$W/bin/"
cp -L build/lib/libtessera_runtime.so "$W/lib/"
for c in 128x256x32/16 128x128x32/8; do
  build/bin/05_matmul 16 16 16 --dtype=f16 --act=none --config=$c --write-package="$W/own/" > /dev/null 2>&1 || true
done
build/bin/06_flash_attention 1 1 64 128 --dtype=f16 --blocks=64x32 --write-package="$W/own/" > /dev/null 2>&1 || true
for v in plain spec; do
  [ $v = spec ] && export TESSERA_SPECIALIZE_SIZES=1 || unset TESSERA_SPECIALIZE_SIZES
  build/bin/tessera-bench --compile-only --mode=fast --subgroups=32 --write-packages="$W/bench-$v" > /dev/null
done
unset TESSERA_SPECIALIZE_SIZES
ls "$W/own"; ls "$W/bench-spec" | head -3; du -sh "$W"
