#!/usr/bin/env bash
# Run 87 (twenty-fifth session), GPU test-machine side: scripts/runs/stage-run87.sh says what. f32
# 4096^3, 5 launches each (each about 4 ms), through CUDA and Vulkan; the shapes checked at
# 333 x 517 x 200 first. Carry .gpu and .gpu-stage/bin/w87.
configs="64x128x16/4 64x128x32/4 128x64x16/4 64x64x16/4 64x256x16/8 128x128x16/8"
[ "${1:-}" = --configs ] && { echo $configs; exit 0; }
source scripts/gpu-setup.sh gpu-run87.log; W=.gpu-stage/bin/w87
export LD_LIBRARY_PATH=$W/lib:${LD_LIBRARY_PATH:-}
m() { local be=$1; shift; TESSERA_BACKEND=$be timeout 60 $W/bin/05_matmul_aot "$@" --package-dir=$W/p 2>&1 | grep -v "^matrix units"; }
echo "== $(date -u +%T) checked"
for be in cuda vulkan; do m $be 333 517 200 --dtype=f32 --act=none --config=64x128x16/4 --stages=2; m $be 333 517 200 --dtype=f32 --act=none --config=64x256x16/8; done
for be in cuda vulkan; do
  echo "== $(date -u +%T) $be"
  for c in $configs; do for s in 1 2; do
    echo "-- $be $c s$s $(m $be 4096 4096 4096 --dtype=f32 --act=none --config=$c --stages=$s --repeat=5 | grep -o 'median.*TFLOP/s\|error.*\|unsupported.*')"
  done; done
done
echo "== $(date -u +%T) done"
