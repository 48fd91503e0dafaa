#!/usr/bin/env bash
# Build machine side of run 68 (scripts/runs/gpu-run68.sh): the targets of issues [4/6] and [5/6] in
# one call with this build. Refills .gpu-bench (scripts/stage-gpu-bench.sh: the benchmark
# kernels and tessera-bench-aot) and writes the examples' packages at their default blocks into
# .gpu-stage/pkgs/full (CUDA sm_90a and Vulkan subgroup 32 in each): matmul f16 and bf16 at
# 128x256x64/8 (CUDA) and 128x256x32/16 (Vulkan), also with gelu and with B stored N x K, f32 at
# 128x128x16/8, attention at 128x128 on 8 warps (CUDA) and 64x32 (Vulkan), D 128 and 64, causal
# or not. Needs .gpu-stage/bin and .gpu-stage/lib from scripts/runs/stage-run67.sh (this build's
# runtime-only binaries). Then carry what scripts/runs/gpu-run68.sh names and run it there.
set -euo pipefail
cd "$(dirname "$0")/../.."
TESSERA_JOBS=${TESSERA_JOBS:-2} bash scripts/stage-gpu-bench.sh
P=.gpu-stage/pkgs/full
rm -rf "$P"; mkdir -p "$P"
w() { build/bin/"$@" --write-package="$P/" > /dev/null 2>&1 || true; } # lavapipe refuses the large blocks after writing
for dt in f16 bf16; do
  for c in 128x256x64/8 128x256x32/16; do
    w 05_matmul 16 16 16 --dtype=$dt --act=none --config=$c
  done
done
for c in 128x256x64/8 128x256x32/16; do
  w 05_matmul 16 16 16 --dtype=f16 --act=gelu --config=$c
  w 05_matmul 16 16 16 --dtype=f16 --act=none --b-transposed --config=$c
done
w 05_matmul 16 16 16 --dtype=f32 --act=none --config=128x128x16/8
for causal in "" --causal; do
  w 06_flash_attention 1 1 16 128 --dtype=f16 --blocks=128x128 --warps=8 $causal
  w 06_flash_attention 1 1 16 128 --dtype=f16 --blocks=64x32 $causal
  w 06_flash_attention 1 1 16 64 --dtype=f16 --blocks=64x64 $causal
done
ls "$P"
du -sh .gpu .gpu-bench .gpu-stage
