#!/usr/bin/env bash
# Build machine side of run 87 (twenty-fifth session, scripts/runs/gpu-run87.sh): the f32 (FMA) matmul's
# blocks through CUDA and Vulkan, with loads a step ahead (s2) or not, to pick 05_matmul's f32
# defaults (run 80 measured three shapes). Packages in .gpu-stage/bin/w87.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/stage-setup.sh 87 "05_matmul" p
for c in $(bash scripts/runs/gpu-run87.sh --configs); do
  for s in 1 2; do
    build/bin/05_matmul 16 16 16 --dtype=f32 --act=none --config=$c --stages=$s --write-package="$W/p/" --ptx-chips=sm_90,sm_90a > /dev/null 2>&1 || true
  done
done
ls "$W/p" | wc -l; du -sh "$W"
