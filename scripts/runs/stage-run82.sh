#!/usr/bin/env bash
# Build machine side of run 82 (twenty-fifth session, scripts/runs/gpu-run82.sh). Run 81 put the CUDA
# f16 matmul's machine code next to Triton's for the same blocks: the same loop but for two
# things. Ours fences each thread's landed cp.async copies for the units' async proxy before the
# barrier (MEMBAR.ALL.CTA + FENCE.VIEW.ASYNC.S), Triton does not; ours issues the copies for the
# iteration ahead before its wgmma, Triton after. Packages for each: base, nofence
# (TESSERA_ASYNC_COPY_FENCE=0), after (TESSERA_COPIES_AFTER_MMA=1), both; in .gpu-stage/bin/w82.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/stage-setup.sh 82 "05_matmul"
for v in base nofence after both; do
  mkdir -p "$W/$v"
  case $v in
    base) set -- ;;
    nofence) set -- TESSERA_ASYNC_COPY_FENCE=0 ;;
    after) set -- TESSERA_COPIES_AFTER_MMA=1 ;;
    both) set -- TESSERA_ASYNC_COPY_FENCE=0 TESSERA_COPIES_AFTER_MMA=1 ;;
  esac
  for c in 128x256x64/8 128x128x64/8; do
    for act in none gelu; do
      env "$@" build/bin/05_matmul 16 16 16 --dtype=f16 --act=$act --config=$c --write-package="$W/$v/" --ptx-chips=sm_90,sm_90a > /dev/null 2>&1 || true
    done
  done
  env "$@" build/bin/05_matmul 16 16 16 --dtype=bf16 --act=none --config=128x256x64/8 --write-package="$W/$v/" --ptx-chips=sm_90,sm_90a > /dev/null 2>&1 || true
done
ls "$W"/*; du -sh "$W"
