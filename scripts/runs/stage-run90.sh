#!/usr/bin/env bash
# Build machine side of run 90 (twenty-sixth session, scripts/runs/gpu-run90.sh). Run 89's hand-edited
# PTX with the warpgroup wait before the copies (waitfirst) ran +11% in one round and -6..0% in
# the other. The compiler now does that edit (pass option wait-before-copies,
# TESSERA_WAIT_BEFORE_COPIES=1): packages of this build without it (on) and with it (wf), f16 and
# bf16 128 x 256 x 64 / 8, in .gpu-stage/bin/w90; and sm_80 code in col.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/stage-setup.sh 90 "05_matmul" on wf
for v in on wf; do
  [ $v = wf ] && export TESSERA_WAIT_BEFORE_COPIES=1 || unset TESSERA_WAIT_BEFORE_COPIES
  for act in none gelu; do
    build/bin/05_matmul 16 16 16 --dtype=f16 --act=$act --config=128x256x64/8 --write-package="$W/$v/" --ptx-chips=sm_90,sm_90a > /dev/null 2>&1 || true
  done
  build/bin/05_matmul 16 16 16 --dtype=bf16 --act=none --config=128x256x64/8 --write-package="$W/$v/" --ptx-chips=sm_90,sm_90a > /dev/null 2>&1 || true
done
unset TESSERA_WAIT_BEFORE_COPIES
# col: sm_80 code alone (the driver compiles it for the sm_90 device), whose 128 x 256 x 64 result
# goes through shared memory in blocks of 64 x 64 (no band of full rows fits there): checked only.
mkdir -p "$W/col"
build/bin/05_matmul 16 16 16 --dtype=f16 --act=gelu --config=128x256x64/8 --write-package="$W/col/" --ptx-chips=sm_80 > /dev/null 2>&1 || true
ls "$W"/*; du -sh "$W"
