#!/usr/bin/env bash
# Run 99 (twenty-ninth session), GPU test-machine side; scripts/runs/stage-run99.sh says what.
# Carry .gpu and .gpu-stage/bin/w99. Each block shape checked on a ragged shape, then timed at
# 4096^3 through CUDA in turns, two rounds; sgemm.
source scripts/gpu-setup.sh gpu-run99.log; W=.gpu-stage/bin/w99
export LD_LIBRARY_PATH=$W/lib:${LD_LIBRARY_PATH:-}
m() { TESSERA_BACKEND=cuda timeout 90 $W/bin/05_matmul_aot "$@" --package-dir=$W/f32 2>&1 | grep -v "^matrix units"; }
cs="128x256x32/8 256x128x32/8 128x128x32/4 128x128x32/8 64x256x32/8 256x128x16/8"
for c in $cs; do m 333 517 200 --dtype=f32 --act=none --config=$c; done
for round in 1 2; do
  for c in $cs; do
    echo "== $(date -u +%T) round $round $c"
    m 4096 4096 4096 --dtype=f32 --act=none --config=$c --repeat=10 | grep -E "timed|error|refus"
  done
done
echo "== $(date -u +%T) sgemm (PyTorch, no tf32)"
timeout 60 python3 bench/sgemm_anchor.py
echo "== $(date -u +%T) done"
