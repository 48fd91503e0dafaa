#!/usr/bin/env bash
# Run 94 (twenty-eighth session), GPU test-machine side; scripts/runs/stage-run94.sh says what.
# Carry .gpu and .gpu-stage/bin/w94. The f32 matmul at 4096^3 through CUDA and Vulkan, staged in
# halves (halves/) or not (off/), in turns, at three block shapes; two rounds of the default.
source scripts/gpu-setup.sh gpu-run94.log; W=.gpu-stage/bin/w94
export LD_LIBRARY_PATH=$W/lib:${LD_LIBRARY_PATH:-}
m() { local be=$1 v=$2; shift 2; TESSERA_BACKEND=$be timeout 90 $W/bin/05_matmul_aot "$@" --package-dir=$W/$v 2>&1 | grep -v "^matrix units"; }
for be in cuda vulkan; do
  m $be halves 1040 528 272 --dtype=f32 --act=gelu --config=64x256x16/8
  m $be halves 333 517 200 --dtype=f32 --act=none --config=128x128x16/8
done
for round in 1 2; do
  for be in cuda vulkan; do
    cs="64x256x16/8 128x128x16/8 64x128x16/4"; [ $round = 2 ] && cs=64x256x16/8
    for c in $cs; do
      for v in off halves; do
        echo "== $(date -u +%T) round $round $be $v $c"
        m $be $v 4096 4096 4096 --dtype=f32 --act=none --config=$c --repeat=10 | grep -E "timed|error|refus"
      done
    done
  done
done
echo "== $(date -u +%T) sgemm (PyTorch, no tf32)"
timeout 60 python3 bench/sgemm_anchor.py
echo "== $(date -u +%T) done"
