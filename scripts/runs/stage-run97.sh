#!/usr/bin/env bash
# Build machine side of run 97 (twenty-ninth session, scripts/runs/gpu-run97.sh): the f32 matmul's
# FMA path with its k loop unrolled further (fma-unroll, TESSERA_FMA_UNROLL) against the default
# 8, each block shape as the defaults otherwise compile it (cp.async copies where auto takes them).
#   u8   the default (8 k values a step of the inner loop)
#   u16  16 k values a step (the whole 16-deep k step of most shapes in one block)
#   u32  32 (the 32-deep shapes)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/stage-setup.sh 97 "05_matmul" u8 u16 u32
w() { local dir=$1; shift; build/bin/"$@" --write-package="$W/$dir/" --ptx-chips=sm_90 > /dev/null 2>&1 || true; }
for u in 8 16 32; do
  export TESSERA_FMA_UNROLL=$u
  w u$u 05_matmul 16 16 16 --dtype=f32 --act=gelu --config=64x128x16/4
  for c in 64x128x16/4 128x256x16/8 64x256x16/8 128x128x16/4 64x128x32/4 128x256x32/8; do
    [ $u = 32 ] && [[ $c != *x32/* ]] && continue
    w u$u 05_matmul 16 16 16 --dtype=f32 --act=none --config=$c
  done
done
unset TESSERA_FMA_UNROLL
for p in "$W"/u*/*.tspkg; do
  python3 bench/package_ptx.py "$p" get 5 /tmp/run97.ptx > /dev/null
  echo "$p: $(/usr/local/cuda/bin/ptxas -arch=sm_90 -v /tmp/run97.ptx -o /dev/null 2>&1 | grep -o 'Used [0-9]* registers')"
done
du -sh "$W"
