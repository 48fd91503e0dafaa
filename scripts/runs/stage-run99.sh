#!/usr/bin/env bash
# Build machine side of run 99 (twenty-ninth session, scripts/runs/gpu-run99.sh): the f32
# matmul's FMA path with each 32-deep k step one block (this build's default, fma-unroll 32 on
# NVPTX) at more block shapes than run 97's, in .gpu-stage/bin/w99/f32.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/stage-setup.sh 99 "05_matmul" f32
for c in 128x256x32/8 256x128x32/8 128x128x32/4 128x128x32/8 64x256x32/8 256x128x16/8; do
  build/bin/05_matmul 16 16 16 --dtype=f32 --act=none --config=$c --write-package="$W/f32/" --ptx-chips=sm_90 > /dev/null 2>&1 || true
done
ls "$W/f32"; du -sh "$W"
