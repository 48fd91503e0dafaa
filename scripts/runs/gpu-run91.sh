#!/usr/bin/env bash
# Run 91 (twenty-seventh session), GPU test-machine side; scripts/runs/stage-run91.sh says what.
# Carry .gpu .gpu-bench .gpu-stage/bin/w91. The parts named (default: fma dot wf), in that
# order, each logging to $OUT:
#   fma    the f32 matmul's FMA path in turns, 4096^3 through CUDA and Vulkan (fma: this build;
#          fma/old: before fma-layout and the 16-byte shared loads; fma/plain: TESSERA_FMA_LAYOUT=0),
#          then a ragged check, then three other blocks with and without fma-layout;
#   dot    issue [5/6]'s table (scripts/gpu-dot-table.sh: the anchors, then the examples at their
#          default blocks through CUDA and Vulkan, checked on ragged shapes, then timed both ways);
#   wf     run 90: wait-before-copies (wf) against without (on) in turns, the sm_80 code's 64 x 64
#          store blocks checked, Nsight Compute's duration of on and wf at 4096^3;
#   bench  issue [4/6]'s table (scripts/gpu-bench.sh without Nsight profiles).
W=.gpu-stage/bin/w91
export LD_LIBRARY_PATH=$W/lib:${LD_LIBRARY_PATH:-}
parts=" ${*:-fma dot wf} "
m() { local be=$1 v=$2; shift 2; TESSERA_BACKEND=$be timeout 90 $W/bin/05_matmul_aot "$@" --package-dir=$W/$v 2>&1 | grep -v "^matrix units"; }
if [[ $parts == *" fma "* ]]; then (
  source scripts/gpu-setup.sh gpu-run91-fma.log
  for round in 1 2; do
    for be in cuda vulkan; do
      for v in fma fma/old fma/plain; do
        echo "== $(date -u +%T) round $round f32 $be $v"
        m $be $v 4096 4096 4096 --dtype=f32 --act=none --config=64x256x16/8 --repeat=10 | grep -E "timed|error|refus"
      done
    done
  done
  m cuda fma 1040 528 272 --dtype=f32 --act=gelu --config=64x256x16/8; m vulkan fma 1040 528 272 --dtype=f32 --act=gelu --config=64x256x16/8
  for be in cuda vulkan; do
    for c in 128x128x16/8 64x128x16/4 128x256x16/8; do
      for v in fma fma/plain; do
        echo "== $(date -u +%T) f32 $be $v $c"
        m $be $v 4096 4096 4096 --dtype=f32 --act=none --config=$c --repeat=10 | grep -E "timed|error|refus"
      done
    done
  done
  echo "== $(date -u +%T) done"
) fi
[[ $parts == *" dot "* ]] && bash scripts/gpu-dot-table.sh gpu-run91-dot.log $W/full $W/bin
[[ $parts == *" bench "* ]] && TESSERA_NCU=0 bash scripts/gpu-bench.sh
[[ $parts == *" wf "* ]] || exit 0
source scripts/gpu-setup.sh gpu-run91-wf.log
echo "== $(date -u +%T) checked"
m cuda wf 1040 528 272 --dtype=f16 --act=gelu --config=128x256x64/8; m cuda wf 1040 528 272 --dtype=bf16 --act=none --config=128x256x64/8
m cuda col 1040 528 272 --dtype=f16 --act=gelu --config=128x256x64/8; m cuda col 4096 4096 4096 --dtype=f16 --act=gelu --config=128x256x64/8
for round in 1 2; do
  for v in on wf; do
    echo "== $(date -u +%T) round $round $v"
    m cuda $v 4096 4096 4096 --dtype=f16 --act=none --config=128x256x64/8 --repeat=20 | grep timed
    m cuda $v 4096 4096 16384 --dtype=f16 --act=none --config=128x256x64/8 --repeat=10 | grep timed
    m cuda $v 8192 8192 8192 --dtype=f16 --act=none --config=128x256x64/8 --repeat=5 | grep timed
  done
done
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
for v in on wf; do
  echo "== $(date -u +%T) ncu: $v 4096^3"
  [ -n "$ncu" ] && TESSERA_BACKEND=cuda timeout 60 "$ncu" --clock-control none -k regex:matmul -s 3 -c 1 --section SpeedOfLight \
    $W/bin/05_matmul_aot 4096 4096 4096 --dtype=f16 --act=none --config=128x256x64/8 --repeat=5 --package-dir=$W/$v 2>&1 |
    grep -E "Duration|SM Frequency|Compute \(SM\)"
done
echo "== $(date -u +%T) done"
