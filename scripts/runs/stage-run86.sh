#!/usr/bin/env bash
# Build machine side of run 86 (twenty-fifth session, scripts/runs/gpu-run86.sh): the zero-filling
# copies without the offset select (a masked-off run's copy passes its own offset, src-size 0,
# as Triton's do), against run 85's packages (with it). Packages in .gpu-stage/bin/w86/{prev,cur};
# prev is copied from .gpu-stage/bin/w85/p. The measured edit was reverted (cur ran 7-9% slower):
# to run this again, first make copyToShared pass offsets[j] where it selects 0.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/stage-setup.sh 86 "05_matmul" prev cur
cp .gpu-stage/bin/w85/p/matmul_{f16,bf16}_none_fast_128x256x64w8.tspkg .gpu-stage/bin/w85/p/matmul_f16_gelu_fast_128x256x64w8.tspkg "$W/prev/"
mm() { build/bin/05_matmul 16 16 16 "$@" --write-package="$W/cur/" --ptx-chips=sm_90,sm_90a > /dev/null 2>&1 || true; }
for act in none gelu; do mm --dtype=f16 --act=$act --config=128x256x64/8; done
mm --dtype=f16 --act=none --config=128x128x64/8
mm --dtype=bf16 --act=none --config=128x256x64/8
ls "$W"/*; du -sh "$W"
