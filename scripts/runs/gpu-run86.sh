#!/usr/bin/env bash
# Run 86 (twenty-fifth session), GPU test-machine side: scripts/runs/stage-run86.sh says what. Checks on
# shapes whose variant copies runs past the matrix (their offsets outside the buffers), then
# prev and cur in turns. Carry .gpu and .gpu-stage/bin/w86.
source scripts/gpu-setup.sh gpu-run86.log; W=.gpu-stage/bin/w86
export LD_LIBRARY_PATH=$W/lib:${LD_LIBRARY_PATH:-}
m() { local d=$1; shift; TESSERA_BACKEND=cuda timeout 90 $W/bin/05_matmul_aot "$@" --package-dir=$W/$d 2>&1 | grep -v "^matrix units"; }
echo "== $(date -u +%T) checked"
m cur 1040 528 272 --dtype=f16 --act=gelu --config=128x256x64/8; m cur 16 16 16 --dtype=f16 --act=none --config=128x256x64/8
m cur 2064 4112 1040 --dtype=f16 --act=none --config=128x256x64/8; m cur 1040 528 272 --dtype=f16 --act=none --config=128x128x64/8
m cur 1040 528 272 --dtype=bf16 --act=none --config=128x256x64/8; m cur 1000 1000 1000 --dtype=f16 --act=gelu --config=128x256x64/8
for round in 1 2 3; do
  echo "== $(date -u +%T) round $round"
  for d in prev cur; do
    echo "-- $d"
    m $d 4096 4096 4096 --dtype=f16 --act=none --config=128x256x64/8 --repeat=20 | grep timed
    m $d 4096 4096 4096 --dtype=bf16 --act=none --config=128x256x64/8 --repeat=20 | grep timed
  done
  m cur 4096 4096 4096 --dtype=f16 --act=none --config=128x128x64/8 --repeat=20 | grep timed
done
echo "== $(date -u +%T) done"
