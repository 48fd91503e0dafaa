#!/usr/bin/env bash
# Build machine side of run 80 (twenty-fifth session, scripts/runs/gpu-run80.sh): where the CUDA f16
# matmul's time goes at 128 x 256 x 64 on 8 warps (cp.async form against the A-by-tensor-copy form
# with the producer warpgroup, Nsight Compute's L2 and stall sections), a Triton matmul of the
# same blocks as a second anchor (bench/triton_matmul.py), and the f32 FMA matmul's blocks with
# loads one step ahead (--stages=2) or not, through CUDA and Vulkan. Packages in
# .gpu-stage/bin/w80/{cp,tc,f32}, with this build's runtime and AOT example (carried with
# .gpu-stage/bin).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/stage-setup.sh 80 "05_matmul" cp tc f32
mm() { build/bin/05_matmul 16 16 16 "$@" > /dev/null 2>&1 || true; }
for c in 128x256x64/8 128x128x64/8; do
  mm --dtype=f16 --act=none --config=$c --write-package="$W/cp/" --ptx-chips=sm_90,sm_90a
  TESSERA_TENSOR_COPIES_A=1 TESSERA_PRODUCER_WARP=1 mm --dtype=f16 --act=none --config=$c --write-package="$W/tc/" --ptx-chips=sm_90,sm_90a
done
TESSERA_TENSOR_COPIES_A=1 TESSERA_PRODUCER_WARP=1 mm --dtype=f16 --act=gelu --config=128x256x64/8 --write-package="$W/tc/" --ptx-chips=sm_90,sm_90a
for c in 128x128x16/8 128x128x32/8 64x128x16/4; do
  for s in 1 2; do mm --dtype=f32 --act=none --config=$c --stages=$s --write-package="$W/f32/" --ptx-chips=sm_90,sm_90a; done
done
ls "$W"/*; du -sh "$W"
