#!/usr/bin/env bash
# GPU test-machine side of run 50 (fourteenth session): run 49's two closest forms again, four
# rounds in turns: the default (r49, plain loop) against the rotated loop with turns of a whole
# iteration (r49-pp --overlap=1), causal and not. Carry as run 49.
source scripts/gpu-setup.sh gpu-run50.log; S=.gpu-stage
fa() { local p=$1; shift; TESSERA_BACKEND=cuda timeout 60 $S/bin/06_flash_attention_aot "$@" --package-dir=$S/pkgs/$p 2>&1 | grep -v "matrix units\|bulk tensor"; }
for round in 1 2 3 4; do
  for c in "r49 --overlap=0" "r49-pp --overlap=1"; do
    echo "== $c"
    fa $c 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --repeat=10 | grep timed
    fa $c 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --causal --repeat=10 | grep timed
  done
done
echo "== $(date -u +%T) done"
