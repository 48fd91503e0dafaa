#!/usr/bin/env bash
# GPU test-machine side of an f32 copies run (runs 95, 96: scripts/runs/gpu-runNN.sh call it), after
# scripts/stage-fma-copies.sh NN on the build machine; carry .gpu and .gpu-stage/bin/wNN:
#   bash scripts/gpu-fma-copies.sh NN CONFIG...
# Ragged checks of the copied form at each block shape, then the f32 matmul at 4096^3 through
# CUDA in turns (base/, async/), two rounds of the first shape; sgemm both ways; Nsight Compute
# of the copied form at the first shape.
run=$1; shift
source scripts/gpu-setup.sh gpu-run$run.log; W=.gpu-stage/bin/w$run
export LD_LIBRARY_PATH=$W/lib:${LD_LIBRARY_PATH:-}
m() { local v=$1; shift; TESSERA_BACKEND=cuda timeout 90 $W/bin/05_matmul_aot "$@" --package-dir=$W/$v 2>&1 | grep -v "^matrix units"; }
m async 1040 528 272 --dtype=f32 --act=gelu --config=64x256x16/8
m async 4096 4096 4096 --dtype=f32 --act=gelu --config=64x256x16/8 | grep -v timed
for c in "$@"; do
  m async 333 517 200 --dtype=f32 --act=none --config=$c
  m async 1000 1000 1000 --dtype=f32 --act=none --config=$c
done
for round in 1 2; do
  cs="$*"; [ $round = 2 ] && cs=$1
  for c in $cs; do
    for v in base async; do
      echo "== $(date -u +%T) round $round $v $c"
      m $v 4096 4096 4096 --dtype=f32 --act=none --config=$c --repeat=10 | grep -E "timed|error|refus"
    done
  done
done
echo "== $(date -u +%T) sgemm (PyTorch, no tf32)"
timeout 60 python3 bench/sgemm_anchor.py
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
echo "== $(date -u +%T) ncu: async $1"
TESSERA_BACKEND=cuda timeout 120 "$ncu" --clock-control none -k regex:matmul -s 3 -c 1 --section SpeedOfLight --section WarpStateStats \
  --section SchedulerStats --section LaunchStats --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio \
  $W/bin/05_matmul_aot 4096 4096 4096 --dtype=f32 --act=none --config=$1 --repeat=5 --package-dir=$W/async > $out/ncu-async.txt 2>&1
grep -E "Duration|Issued Warp|Registers Per|stalled" $out/ncu-async.txt | grep -v " 0$"
echo "== $(date -u +%T) done"
