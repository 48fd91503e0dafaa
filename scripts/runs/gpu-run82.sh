#!/usr/bin/env bash
# Run 82 (twenty-fifth session), GPU test-machine side: scripts/runs/stage-run82.sh says what. Ragged
# checks first, then 4096^3 and 8192^3 in turns (three rounds), then cuBLAS and Triton.
# Carry .gpu and .gpu-stage/bin/w82.
source scripts/gpu-setup.sh gpu-run82.log; W=.gpu-stage/bin/w82
export LD_LIBRARY_PATH=$W/lib:${LD_LIBRARY_PATH:-}
m() { local d=$1; shift; TESSERA_BACKEND=cuda timeout 90 $W/bin/05_matmul_aot "$@" --package-dir=$W/$d 2>&1 | grep -v "^matrix units"; }
echo "== $(date -u +%T) checked (ragged)"
for v in base nofence after both; do
  m $v 1000 1000 1000 --dtype=f16 --act=gelu --config=128x256x64/8
  m $v 333 517 200 --dtype=f16 --act=none --config=128x128x64/8
  m $v 1000 1000 1000 --dtype=bf16 --act=none --config=128x256x64/8
done
for round in 1 2 3; do
  echo "== $(date -u +%T) round $round"
  for v in base nofence after both; do
    echo "-- $v"
    m $v 4096 4096 4096 --dtype=f16 --act=none --config=128x256x64/8 --repeat=20 | grep timed
    m $v 4096 4096 4096 --dtype=f16 --act=none --config=128x128x64/8 --repeat=20 | grep timed
    m $v 8192 8192 8192 --dtype=f16 --act=none --config=128x256x64/8 --repeat=5 | grep timed
  done
done
echo "-- bf16 4096^3"
for v in base both; do m $v 4096 4096 4096 --dtype=bf16 --act=none --config=128x256x64/8 --repeat=20 | grep timed; done
echo "== $(date -u +%T) anchors"
PYTHONUNBUFFERED=1 timeout 120 python3 - <<'PY'
import sys; sys.path.insert(0, "bench")
import triton_matmul as t
t.run(4096, [(128, 256, 64, 8, 3)])
PY
echo "== $(date -u +%T) done"
