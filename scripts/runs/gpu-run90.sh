#!/usr/bin/env bash
# Run 90 (twenty-sixth session), GPU test-machine side; scripts/runs/stage-run90.sh says what. Ragged
# checks of wf and of col (sm_80 code, the result in blocks of 64 x 64), then on and wf in turns, two rounds, and Nsight Compute's duration of each. Carry .gpu and .gpu-stage/bin/w90.
source scripts/gpu-setup.sh gpu-run90.log; W=.gpu-stage/bin/w90
export LD_LIBRARY_PATH=$W/lib:${LD_LIBRARY_PATH:-}
m() { local v=$1; shift; TESSERA_BACKEND=cuda timeout 90 $W/bin/05_matmul_aot "$@" --package-dir=$W/$v 2>&1 | grep -v "^matrix units"; }
echo "== $(date -u +%T) checked"
m wf 1040 528 272 --dtype=f16 --act=gelu --config=128x256x64/8; m wf 1040 528 272 --dtype=bf16 --act=none --config=128x256x64/8
m wf 1000 1000 1000 --dtype=f16 --act=none --config=128x256x64/8
m col 1040 528 272 --dtype=f16 --act=gelu --config=128x256x64/8; m col 4096 4096 4096 --dtype=f16 --act=gelu --config=128x256x64/8
for round in 1 2; do
  for v in on wf; do
    echo "== $(date -u +%T) round $round $v"
    m $v 4096 4096 4096 --dtype=f16 --act=none --config=128x256x64/8 --repeat=20 | grep timed
    m $v 4096 4096 16384 --dtype=f16 --act=none --config=128x256x64/8 --repeat=10 | grep timed
    m $v 8192 8192 8192 --dtype=f16 --act=none --config=128x256x64/8 --repeat=5 | grep timed
  done
done
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
for pass in 1; do for v in on wf; do
  echo "== $(date -u +%T) ncu: $v 4096^3"
  [ -n "$ncu" ] && TESSERA_BACKEND=cuda timeout 60 "$ncu" --clock-control none -k regex:matmul -s 3 -c 1 --section SpeedOfLight \
    $W/bin/05_matmul_aot 4096 4096 4096 --dtype=f16 --act=none --config=128x256x64/8 --repeat=5 --package-dir=$W/$v 2>&1 |
    grep -E "Duration|SM Frequency|Compute \(SM\)"
done; done
echo "== $(date -u +%T) done"
