#!/usr/bin/env bash
# Build machine side of run 84 (twenty-fifth session, scripts/runs/gpu-run84.sh). Run 83 found the
# cp.async copies' element-by-element fallback costing the CUDA matmul 5% (ptxas: 255 registers
# with it, 211 without). The multiple-of-16 variant now proves the dot operands' runs whole too
# (specializedArgs counts them on PTX) and copies each run with one zero-filling cp.async (no
# fallback). Packages: old (run 82's base, copied from .gpu-stage/bin/w82/base if there), new
# (this build), after (this build, TESSERA_COPIES_AFTER_MMA=1); in .gpu-stage/bin/w84.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/stage-setup.sh 84 "05_matmul" old new after
[ -d .gpu-stage/bin/w82/base ] && cp .gpu-stage/bin/w82/base/matmul_{f16,bf16}_none_fast_128x256x64w8.tspkg \
  .gpu-stage/bin/w82/base/matmul_f16_none_fast_128x128x64w8.tspkg "$W/old/"
for v in new after; do
  [ $v = after ] && export TESSERA_COPIES_AFTER_MMA=1 || unset TESSERA_COPIES_AFTER_MMA
  mm() { build/bin/05_matmul 16 16 16 "$@" --write-package="$W/$v/" --ptx-chips=sm_90,sm_90a > /dev/null 2>&1 || true; }
  for act in none gelu; do mm --dtype=f16 --act=$act --config=128x256x64/8; done
  mm --dtype=f16 --act=none --config=128x128x64/8
  mm --dtype=bf16 --act=none --config=128x256x64/8
done
unset TESSERA_COPIES_AFTER_MMA
ls "$W"/*; du -sh "$W"
