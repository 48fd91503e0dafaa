#!/usr/bin/env bash
# Build machine side of run 88 (twenty-sixth session, scripts/runs/gpu-run88.sh): how the CUDA f16
# matmul's time splits between the loop and what each program does once (its first copies, its
# epilogue), against Triton's matmul of the same blocks: 4096 x 4096 results at depths 512 to
# 16384, and Nsight Compute's issue and stall sections of both at 4096^3. Packages in
# .gpu-stage/bin/w88 with this build's runtime and AOT example.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/stage-setup.sh 88 "05_matmul" new
build/bin/05_matmul 16 16 16 --dtype=f16 --act=none --config=128x256x64/8 --write-package="$W/new/" \
  --ptx-chips=sm_90,sm_90a > /dev/null 2>&1 || true
ls "$W"/*; du -sh "$W"
