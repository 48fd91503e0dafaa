#!/usr/bin/env bash
# Run 103 (thirty-first session), GPU test-machine side; scripts/runs/stage-run103.sh says what.
# Carry .gpu and .gpu-stage/bin/w103. The anchors (SDPA among them), then through Vulkan each
# form checked against float64 on ragged shapes, then attention f16 B4 H32 L4096 D128 timed in
# turns, two rounds: the queries' matrices kept in registers (h) at 64 x 32 / 4, 128 x 32 / 8 and
# 128 x 32 / 4 against run 98's form (o, 64 x 32 / 4), causal and not.
source scripts/gpu-setup.sh gpu-run103.log; W=.gpu-stage/bin/w103
export LD_LIBRARY_PATH=$W/lib:${LD_LIBRARY_PATH:-}
fa() { local v=$1; shift; TESSERA_BACKEND=vulkan timeout 90 $W/bin/06_flash_attention_aot "$@" --stats --package-dir=$W/$v 2>&1 | grep -v "^matrix units"; }
python3 bench/dot_anchors.py
forms="o:64x32:4 h:64x32:4 h:128x32:8 h:128x32:4"
f() { local x=(${1//:/ }); fa ${x[0]} "${@:2}" --blocks=${x[1]} --warps=${x[2]}; }
echo "== $(date -u +%T) checks"
for form in $forms; do f $form 2 1 333 128 --dtype=f16 --causal; f $form 1 2 100 128 --dtype=f16; done
fa h 1 2 100 64 --dtype=f16 --blocks=64x64; fa h 2 1 333 128 --dtype=bf16 --causal --blocks=64x32
for round in 1 2; do
  for causal in "" --causal; do
    for form in $forms; do
      echo "== $(date -u +%T) round $round $form $causal"
      f $form 4 32 4096 128 --dtype=f16 $causal --repeat=5 | grep -E "timed|error|refus|driver|stats|regist"
    done
  done
done
echo "== $(date -u +%T) done"
