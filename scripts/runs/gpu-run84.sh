#!/usr/bin/env bash
# Run 84 (twenty-fifth session), GPU test-machine side: scripts/runs/stage-run84.sh says what. Checks
# first: 1040 x 528 x 272 takes the multiple-of-16 variant with rows and a k step partly past the
# matrix (zero-filled copies), 1000^3 the plain code; then 4096^3 and 8192^3 in turns, and
# cuBLAS and a Triton matmul timed both by do_bench and back to back, as the example times.
# Carry .gpu and .gpu-stage/bin/w84.
source scripts/gpu-setup.sh gpu-run84.log; W=.gpu-stage/bin/w84
export LD_LIBRARY_PATH=$W/lib:${LD_LIBRARY_PATH:-}
m() { local d=$1; shift; TESSERA_BACKEND=cuda timeout 90 $W/bin/05_matmul_aot "$@" --package-dir=$W/$d 2>&1 | grep -v "^matrix units"; }
echo "== $(date -u +%T) checked"
for v in new after; do
  m $v 1040 528 272 --dtype=f16 --act=gelu --config=128x256x64/8
  m $v 1040 528 272 --dtype=f16 --act=none --config=128x256x64/8
  m $v 1000 1000 1000 --dtype=f16 --act=gelu --config=128x256x64/8
  m $v 1040 528 272 --dtype=f16 --act=none --config=128x128x64/8
  m $v 1040 528 272 --dtype=bf16 --act=none --config=128x256x64/8
done
for round in 1 2 3; do
  echo "== $(date -u +%T) round $round"
  for v in old new after; do
    echo "-- $v"
    m $v 4096 4096 4096 --dtype=f16 --act=none --config=128x256x64/8 --repeat=20 | grep timed
    m $v 4096 4096 4096 --dtype=f16 --act=none --config=128x128x64/8 --repeat=20 | grep timed
    m $v 4096 4096 4096 --dtype=bf16 --act=none --config=128x256x64/8 --repeat=20 | grep timed
    m $v 8192 8192 8192 --dtype=f16 --act=none --config=128x256x64/8 --repeat=5 | grep timed
  done
done
echo "== $(date -u +%T) anchors"
PYTHONUNBUFFERED=1 timeout 150 python3 - <<'PY'
import sys; sys.path.insert(0, "bench")
import triton_matmul as t
t.run(4096, [(128, 256, 64, 8, 3)])
t.run(8192, [(128, 256, 64, 8, 3)])
PY
echo "== $(date -u +%T) done"
