#!/usr/bin/env bash
# Run 101 (thirtieth session), GPU test-machine side; scripts/runs/stage-run101.sh says what.
# Carry .gpu and .gpu-stage/bin/w101. Each form checked on ragged shapes, then f16 and bf16 at
# 4096^3 and 8192^3 in turns, back to back and after L2 flushes, two rounds; cuBLAS both ways.
source scripts/gpu-setup.sh gpu-run101.log; W=.gpu-stage/bin/w101
export LD_LIBRARY_PATH=$W/lib:${LD_LIBRARY_PATH:-}
m() { local v=$1; shift; TESSERA_BACKEND=cuda timeout 90 $W/bin/05_matmul_aot "$@" --act=none --config=128x256x64/8 --package-dir=$W/$v 2>&1 | grep -v "^matrix units"; }
for v in after before; do for dt in f16 bf16; do m $v 333 517 200 --dtype=$dt; m $v 1000 1000 1000 --dtype=$dt; done; done
for round in 1 2; do
  for t in --flush-l2 ""; do
    for dt in f16 bf16; do
      for n in 4096 8192; do
        r=$([ $n = 4096 ] && echo 20 || echo 5)
        for v in after before; do
          echo "== $(date -u +%T) round $round $v $dt $n ${t:-back-to-back}"
          m $v $n $n $n --dtype=$dt --repeat=$r $t | grep -E "timed|error|refus"
        done
      done
    done
  done
done
echo "== $(date -u +%T) cuBLAS (bench/dot_anchors.py)"
timeout 200 python3 bench/dot_anchors.py
echo "== $(date -u +%T) done"
