#!/usr/bin/env bash
# Build machine side of run 101 (thirtieth session, scripts/runs/gpu-run101.sh): the f16 and bf16
# matmul at 05_matmul's default blocks (128x256x64/8 on sm_90a's warpgroup units) with the
# warpgroup wait before the copies (wait-before-copies, TESSERA_WAIT_BEFORE_COPIES=1: Triton's
# order; run 89 left it unsettled) against after them (the default).
#   after   the defaults
#   before  TESSERA_WAIT_BEFORE_COPIES=1
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/stage-setup.sh 101 "05_matmul" after before
w() { local dir=$1; shift; build/bin/05_matmul 16 16 16 --act=none "$@" --write-package="$W/$dir/" > /dev/null 2>&1 || true; }
for dt in f16 bf16; do
  w after --dtype=$dt --config=128x256x64/8
  TESSERA_WAIT_BEFORE_COPIES=1 w before --dtype=$dt --config=128x256x64/8
done
ls "$W"/after "$W"/before; du -sh "$W"
