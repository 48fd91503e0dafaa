#!/usr/bin/env bash
# Build machine side of run 95 (twenty-eighth session, scripts/gpu-run95.sh): the f32 matmul's
# FMA path with its operands copied by cp.async in stages (TESSERA_FMA_ASYNC_COPIES=1: async/)
# against none (TESSERA_FMA_ASYNC_COPIES=0: base/, staged from registers in halves), at five block
# shapes. (Run 95 ran this script with async copies off by default, base/ as the default was.)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/stage-setup.sh 95 "05_matmul" base async
w() { local dir=$1; shift; build/bin/"$@" --write-package="$W/$dir/" --ptx-chips=sm_90 > /dev/null 2>&1 || true; }
for v in base async; do
  [ $v = async ] && export TESSERA_FMA_ASYNC_COPIES=1 || export TESSERA_FMA_ASYNC_COPIES=0
  w $v 05_matmul 16 16 16 --dtype=f32 --act=gelu --config=64x256x16/8
  for c in 64x256x16/8 128x128x16/8 64x128x16/4 64x256x32/8 128x256x16/8; do
    w $v 05_matmul 16 16 16 --dtype=f32 --act=none --config=$c
  done
done
unset TESSERA_FMA_ASYNC_COPIES
for p in "$W"/async/*.tspkg; do echo "$(basename $p)"; python3 bench/package_ptx.py "$p" | grep ptx | awk '{print "  "$3, $5, $7}'; done
du -sh "$W"
