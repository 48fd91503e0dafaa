#!/usr/bin/env bash
# Build machine side of run 94 (twenty-eighth session, scripts/runs/gpu-run94.sh): fma-halves through
# both backends without run 93's vectors of A on SPIR-V (reverted), and other block shapes.
# Makes .gpu-stage/bin/w94 with 05_matmul's runtime-only build and f32 packages at three block
# shapes, compiled without (off/) and with TESSERA_FMA_HALVES=1 (halves/).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/stage-setup.sh 94 "05_matmul" off halves
w() { local dir=$1; shift; build/bin/"$@" --write-package="$W/$dir/" > /dev/null 2>&1 || true; }
for v in off halves; do
  [ $v = halves ] && export TESSERA_FMA_HALVES=1 || unset TESSERA_FMA_HALVES
  w $v 05_matmul 16 16 16 --dtype=f32 --act=gelu --config=64x256x16/8
  for c in 64x256x16/8 128x128x16/8 64x128x16/4; do
    w $v 05_matmul 16 16 16 --dtype=f32 --act=none --config=$c
  done
done
unset TESSERA_FMA_HALVES
for p in "$W"/halves/*.tspkg; do echo "$(basename $p)"; python3 bench/package_ptx.py "$p" | grep -E "threads=256" | awk '{print "  "$2, $3, $5, $7}' | sort -u; done
du -sh "$W"
