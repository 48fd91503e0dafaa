#!/usr/bin/env bash
# GPU test-machine side of run 43 (thirteenth session): attention's values dot left in flight into
# the next iteration (the scores' wait ends it; TileLowering::deferredWaits), r43, against the
# same compiler without it (r41), both with the producer warpgroup (the default). Checked on
# ragged shapes first (D 128 and 64, causal and not), then timed in turns.
# Here: 06_flash_attention 1 1 16 128|64 --blocks=128x128 --warps=8 [--causal]
# --write-package=.gpu-stage/pkgs/r43. Carry .gpu .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs.
source scripts/gpu-setup.sh gpu-run43.log; S=.gpu-stage
fa() { local p=$1; shift; TESSERA_BACKEND=cuda timeout 60 $S/bin/06_flash_attention_aot "$@" --package-dir=$S/pkgs/$p 2>&1 | grep -v "matrix units\|bulk tensor"; }
echo "== checked"
b="--dtype=f16 --blocks=128x128 --warps=8"
fa r43 2 1 333 128 $b --causal; fa r43 1 3 1000 128 $b; fa r43 1 2 129 128 $b; fa r43 2 1 333 64 $b --causal; fa r43 1 2 1000 64 $b
echo "== $(date -u +%T) timed"
for round in 1 2 3; do
  for p in r41 r43; do
    echo "== attention 128x128w8 $p"
    fa $p 4 32 4096 128 $b --repeat=10; fa $p 4 32 4096 128 $b --causal --repeat=10
  done
done
python3 bench/dot_anchors.py 2>&1 | grep -i "sdpa"
echo "== $(date -u +%T) done"
