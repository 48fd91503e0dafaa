#!/usr/bin/env bash
# Run 69 (twenty-third session), GPU test-machine side: VK_NV_cooperative_matrix2's workgroup-scope
# matrices measured on their own. Each module (bench/wgmatrix/gen_wg_matmul.py) gives a workgroup
# one BM x BN block of C and loads its slices of A and B straight from the buffers; the driver stages
# them. Checked on 16 random rows against float64, then timed; cuBLAS from bench/dot_anchors.py in
# the same call. Here first: scripts/runs/stage-run69.sh. Carry .gpu and .gpu-stage/bin.
source scripts/gpu-setup.sh gpu-run69.log; W=.gpu-stage/bin/wg
p() { # spv-name M BM BN WG OUT [extra]
  local n=$1 m=$2 bm=$3 bn=$4 wg=$5 o=$6; shift 6
  echo "-- $n $*"
  [ -f $W/spv/$n.spv ] || { echo "no module $n"; return; }
  LD_LIBRARY_PATH=$W/lib timeout 90 $W/tessera-wgmatrix-probe --spv=$W/spv/$n.spv --m=$m --n=$m --k=$m --bm=$bm --bn=$bn \
    --wg=$wg --out=$o "$@"; echo "rc=$?"
}
echo "== $(date -u +%T) probes"
if [ "${RUN69B:-0}" = 1 ]; then # run 69b: loads a step ahead, bf16, other blocks
  p mm_4096x4096x4096_128x256x64_w256_f16prefetch 4096 128 256 256 f16
  p mm_4096x4096x4096_128x256x32_w256_f16prefetch 4096 128 256 256 f16
  p mm_4096x4096x4096_256x128x64_w256_f16 4096 256 128 256 f16
  p mm_4096x4096x4096_256x128x32_w256_f16prefetch 4096 256 128 256 f16
  p mm_4096x4096x4096_128x256x64_w256_f16bf16 4096 128 256 256 f16 --in=bf16
  p mm_4096x4096x4096_128x128x64_w128_f16 4096 128 128 128 f16
  p mm_4096x4096x4096_64x256x64_w128_f16 4096 64 256 128 f16
  p mm_4096x4096x4096_128x256x128_w256_f16 4096 128 256 256 f16
  p mm_4096x4096x4096_128x256x64_w256_f16 4096 128 256 256 f16
  p mm_8192x8192x8192_256x128x64_w256_f16 8192 256 128 256 f16 --rows=4
  p mm_8192x8192x8192_128x256x64_w256_f16 8192 128 256 256 f16 --rows=4
  echo "== $(date -u +%T) done"; exit 0
fi
p mm_4096x4096x4096_128x256x32_w256_f16 4096 128 256 256 f16 --shapes
p mm_4096x4096x4096_128x256x32_w256_f16 4096 128 256 256 f16 --nv-extension
p mm_4096x4096x4096_128x256x64_w256_f16 4096 128 256 256 f16
p mm_4096x4096x4096_256x128x32_w256_f16 4096 256 128 256 f16
p mm_4096x4096x4096_128x128x32_w128_f16 4096 128 128 128 f16
p mm_4096x4096x4096_128x128x64_w256_f16 4096 128 128 256 f16
p mm_4096x4096x4096_64x256x32_w128_f16 4096 64 256 128 f16
p mm_4096x4096x4096_128x256x32_w256_f32 4096 128 256 256 f32
p mm_8192x8192x8192_128x256x32_w256_f16 8192 128 256 256 f16 --rows=4
p mm_8192x8192x8192_128x256x64_w256_f16 8192 128 256 256 f16 --rows=4
echo "== $(date -u +%T) anchors"
PYTHONUNBUFFERED=1 timeout 150 python3 bench/dot_anchors.py
echo "== $(date -u +%T) done"
