#!/usr/bin/env bash
# Run 72 (twenty-third session), GPU test-machine side: why the compiled workgroup-matrix matmul
# (run 71: 48 TFLOP/s at 128 x 256 x 64) is slower than the probe of the same blocks (run 69: 295):
# the probe as in run 69, with N and K from push constants, rounded to multiples of 8, with the
# GLSL450 memory model, and all three, with the bias (a stride-0 load) alone and with all three,
# under a guard (a selection) alone and with all the rest (the compiled kernel's form); in turns with the compiled
# kernel and the default blocks (a control for slow-state processes). Here first:
# scripts/runs/stage-run69.sh and scripts/runs/stage-run70.sh. Carry .gpu and .gpu-stage/bin.
source scripts/gpu-setup.sh gpu-run72.log; P=.gpu-stage/bin/wg; W=.gpu-stage/bin/w70
probe() { # name [--push-sizes]
  local n=$1; shift
  echo "-- probe $n $*"
  LD_LIBRARY_PATH=$P/lib timeout 60 $P/tessera-wgmatrix-probe --spv=$P/spv/mm_4096x4096x4096_128x256x64_w256_$n.spv \
    --m=4096 --n=4096 --k=4096 --bm=128 --bn=256 --wg=256 --out=f16 "$@" | grep -E "check|timed|Register|load|launch"
}
m() { TESSERA_BACKEND=vulkan timeout 90 $W/bin/05_matmul_aot "$@" --package-dir=$W/mm 2>&1 | grep -E "timed|error|matmul "; }
for round in $(seq 1 ${ROUNDS:-1}); do
  echo "== $(date -u +%T) round $round"
  probe f16
  probe f16pushsizes --push-sizes
  probe f16pushsizesalign --push-sizes
  probe f16glsl450
  probe f16pushsizesalignglsl450 --push-sizes
  probe f16bias --bias
  probe f16pushsizesalignglsl450bias --push-sizes --bias
  probe f16guard
  probe f16pushsizesalignglsl450biasguard --push-sizes --bias
  echo "-- compiled 128x256x64/8"; m 4096 4096 4096 --dtype=f16 --act=none --config=128x256x64/8 --repeat=30
  echo "-- compiled default 128x256x32/16"; m 4096 4096 4096 --dtype=f16 --act=none --config=128x256x32/16 --repeat=30
  echo "-- compiled 128x256x32/8 (its plain code), then TESSERA_WORKGROUP_MATRICES=1 (its variant)"
  m 4096 4096 4096 --dtype=f16 --act=none --config=128x256x32/8 --repeat=30
  TESSERA_WORKGROUP_MATRICES=1 m 4096 4096 4096 --dtype=f16 --act=none --config=128x256x32/8 --repeat=30
done
echo "== $(date -u +%T) done"
