#!/usr/bin/env bash
# Run 108 (thirty-first session), GPU test-machine side; scripts/runs/stage-run108.sh says what.
# Carry .gpu and .gpu-stage/bin/w108. The self-test's report (a fresh cache), each form checked
# against float64 on ragged shapes, then attention f16 B4 H32 L4096 D128 at 128 x 32 / 8, 64 x 64 / 4 and
# (coop-a-lanes only) 128 x 64 / 8 in turns, one round (about 180 s).
source scripts/gpu-setup.sh gpu-run108.log; W=.gpu-stage/bin/w108
export LD_LIBRARY_PATH=$W/lib:${LD_LIBRARY_PATH:-} TESSERA_CACHE_DIR=$(mktemp -d)
fa() { local v=$1; shift; TESSERA_BACKEND=vulkan timeout 60 $W/bin/06_flash_attention_aot "$@" --dtype=f16 --package-dir=$W/$v 2>&1; }
forms="p:128x32:8 l:128x32:8 p:64x32:4 l:64x32:4 p:64x64:4 l:64x64:4 l:128x64:8"
f() { local x=(${1//:/ }); fa ${x[0]} "${@:2}" --blocks=${x[1]} --warps=${x[2]}; }
f p:128x32:8 1 2 100 128 | grep "^matrix units"
for form in $forms; do f $form 2 1 333 128 --causal | grep -v "^matrix units"; f $form 1 2 100 128 | grep -v "^matrix units"; done
for round in 1; do
  for causal in "" --causal; do
    for form in p:128x32:8 l:128x32:8 p:64x64:4 l:64x64:4 l:128x64:8; do
      echo "== $(date -u +%T) round $round $form $causal"
      f $form 4 32 4096 128 $causal --repeat=5 --stats | grep -E "timed|error|refus|driver"
    done
  done
done
echo "== $(date -u +%T) done"
