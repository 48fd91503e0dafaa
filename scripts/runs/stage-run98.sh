#!/usr/bin/env bash
# Build machine side of run 98 (twenty-ninth session, scripts/runs/gpu-run98.sh): issue [5/6]'s
# table with this build's defaults (the f32 matmul through CUDA at 128x256x32/8, its k steps one
# block each) and issue [4/6]'s (the benchmark kernels with tile-scalarize-uniform). Refills
# .gpu-bench (scripts/stage-gpu-bench.sh) and makes .gpu-stage/bin/w98 with the examples'
# runtime-only builds and full/: the examples at each backend's default blocks (as run 91's).
set -euo pipefail
cd "$(dirname "$0")/../.."
TESSERA_JOBS=${TESSERA_JOBS:-2} bash scripts/stage-gpu-bench.sh
source scripts/stage-setup.sh 98 "05_matmul 06_flash_attention" full
w() { build/bin/"$@" --write-package="$W/full/" > /dev/null 2>&1 || true; } # lavapipe refuses the large blocks after writing
for dt in f16 bf16; do
  for c in 128x256x64/8 128x256x32/16; do w 05_matmul 16 16 16 --dtype=$dt --act=none --config=$c; done
done
for c in 128x256x64/8 128x256x32/16; do
  w 05_matmul 16 16 16 --dtype=f16 --act=gelu --config=$c
  w 05_matmul 16 16 16 --dtype=f16 --act=none --b-transposed --config=$c
done
for c in 128x256x32/8 64x256x16/8 64x128x16/4; do w 05_matmul 16 16 16 --dtype=f32 --act=none --config=$c; done
for causal in "" --causal; do
  w 06_flash_attention 1 1 16 128 --dtype=f16 --blocks=128x128 --warps=8 $causal
  w 06_flash_attention 1 1 16 128 --dtype=f16 --blocks=64x32 $causal
  w 06_flash_attention 1 1 16 128 --dtype=f16 --blocks=128x32 --warps=8 $causal # Vulkan's default since run 103
  w 06_flash_attention 1 1 16 64 --dtype=f16 --blocks=64x64 $causal
  w 06_flash_attention 1 1 16 128 --dtype=bf16 --blocks=128x32 --warps=8 $causal # for run 104
done
ls "$W"/full; du -sh "$W" .gpu-bench .gpu
