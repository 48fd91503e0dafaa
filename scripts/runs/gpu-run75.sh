#!/usr/bin/env bash
# Run 75 (staged in the twenty-third session), GPU test-machine side: is 05_matmul's grouped
# program order on one row of programs what holds the compiled workgroup-matrix kernel at 48
# TFLOP/s, where the probe of the same blocks runs 293 (runs 71-73)? The probe as in run 69, the
# same with the grouped order (--grouped, --grid1d), with every form of the compiled kernel and
# the grouped order, the compiled kernel, and the default blocks (a control for slow-state
# processes: run each twice, in turns). Here first: scripts/runs/stage-run69.sh and
# scripts/runs/stage-run70.sh. Carry .gpu and .gpu-stage/bin.
source scripts/gpu-setup.sh gpu-run75.log; P=.gpu-stage/bin/wg; W=.gpu-stage/bin/w70
probe() { # name [probe options]
  local n=$1; shift
  echo "-- probe $n $*"
  LD_LIBRARY_PATH=$P/lib timeout 60 $P/tessera-wgmatrix-probe --spv=$P/spv/mm_4096x4096x4096_128x256x64_w256_$n.spv \
    --m=4096 --n=4096 --k=4096 --bm=128 --bn=256 --wg=256 --out=f16 "$@" | grep -E "check|timed|load|launch"
}
m() { TESSERA_BACKEND=vulkan timeout 90 $W/bin/05_matmul_aot "$@" --package-dir=$W/mm 2>&1 | grep -E "timed|error"; }
for round in 1 2; do
  echo "== $(date -u +%T) round $round"
  probe f16
  probe f16grouped --grid1d
  probe f16pushsizesalignglsl450biasguardgrouped --grid1d --push-sizes --bias
  echo "-- compiled 128x256x64/8"; m 4096 4096 4096 --dtype=f16 --act=none --config=128x256x64/8 --repeat=30
  echo "-- compiled default 128x256x32/16"; m 4096 4096 4096 --dtype=f16 --act=none --config=128x256x32/16 --repeat=30
done
echo "== $(date -u +%T) done"
