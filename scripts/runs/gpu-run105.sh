#!/usr/bin/env bash
# Run 105 (thirty-first session), GPU test-machine side; scripts/runs/stage-run105.sh says what.
# Carry .gpu and .gpu-stage/bin/w105. Each form checked against float64 on ragged shapes, then
# attention f16 B4 H32 L4096 D128 through Vulkan in turns, two rounds, back to back.
source scripts/gpu-setup.sh gpu-run105.log; W=.gpu-stage/bin/w105
export LD_LIBRARY_PATH=$W/lib:${LD_LIBRARY_PATH:-}
fa() { TESSERA_BACKEND=vulkan timeout 90 $W/bin/06_flash_attention_aot "$@" --dtype=f16 --blocks=128x32 --warps=8 --stats --package-dir=$W/p 2>&1 | grep -v "^matrix units"; }
for v in "" --stages=2 --overlap=1; do fa 2 1 333 128 --causal $v; fa 1 2 100 128 $v; done
for round in 1 2; do
  for causal in "" --causal; do
    for v in "" --stages=2 --overlap=1; do
      echo "== $(date -u +%T) round $round ${v:-plain} $causal"
      fa 4 32 4096 128 $causal $v --repeat=5 | grep -E "timed|error|refus|driver"
    done
  done
done
echo "== $(date -u +%T) done"
