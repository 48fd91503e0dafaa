#!/usr/bin/env bash
# Build machine side of run 85 (twenty-fifth session, scripts/runs/gpu-run85.sh): issue [5/6]'s CUDA
# column with this session's code (the multiple-of-16 variant's zero-filling copies, the copies
# after the matrix instructions, 05_matmul's f32 default of 64 x 128 x 16 / 4), against cuBLAS and
# SDPA timed both ways in the same call. Packages in .gpu-stage/bin/w85 (sm_90 and sm_90a).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/stage-setup.sh 85 "05_matmul 06_flash_attention" p
c="--write-package=$W/p/ --ptx-chips=sm_90,sm_90a"
mm() { build/bin/05_matmul 16 16 16 "$@" $c > /dev/null 2>&1 || true; }
for act in none gelu; do mm --dtype=f16 --act=$act --config=128x256x64/8; done
mm --dtype=f16 --act=none --config=128x256x64/8 --b-transposed
mm --dtype=bf16 --act=none --config=128x256x64/8
mm --dtype=f32 --act=none --config=64x128x16/4
mm --dtype=f32 --act=none --config=128x128x16/8
for causal in "" --causal; do
  build/bin/06_flash_attention 1 1 16 128 --dtype=f16 --blocks=128x128 --warps=8 $causal $c > /dev/null 2>&1 || true
done
ls "$W/p"; du -sh "$W"
