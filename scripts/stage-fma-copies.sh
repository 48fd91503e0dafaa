#!/usr/bin/env bash
# Build machine side of an f32 copies run (runs 95, 96: scripts/runs/stage-runNN.sh call it):
#   bash scripts/stage-fma-copies.sh NN CONFIG...
# The f32 matmul's FMA path with its operands copied by cp.async in stages
# (TESSERA_FMA_ASYNC_COPIES=1: async/) against none (TESSERA_FMA_ASYNC_COPIES=0: base/, staged from
# registers in halves) at the block shapes named (BMxBNxBK/WARPS), plus 64x256x16/8 with GELU, in
# .gpu-stage/bin/wNN with 05_matmul's runtime-only build.
set -euo pipefail
cd "$(dirname "$0")/.."
run=$1; shift
source scripts/stage-setup.sh "$run" "05_matmul" base async
w() { local dir=$1; shift; build/bin/"$@" --write-package="$W/$dir/" --ptx-chips=sm_90 > /dev/null 2>&1 || true; }
for v in base async; do
  [ $v = async ] && export TESSERA_FMA_ASYNC_COPIES=1 || export TESSERA_FMA_ASYNC_COPIES=0
  w $v 05_matmul 16 16 16 --dtype=f32 --act=gelu --config=64x256x16/8
  for c in "$@"; do w $v 05_matmul 16 16 16 --dtype=f32 --act=none --config=$c; done
done
unset TESSERA_FMA_ASYNC_COPIES
for p in "$W"/async/*.tspkg; do echo "$(basename $p)"; python3 bench/package_ptx.py "$p" | grep ptx | awk '{print "  "$3, $5, $7}'; done
du -sh "$W"
