#!/usr/bin/env bash
# GPU test-machine side of run 37 (twelfth session): attention with one barrier of the program
# per iteration (the values' copies issued after the keys' barrier, r37) against two (run 35/36's
# best form, r35-onebar), checked on ragged shapes first, then timed with SDPA in the same call.
# Carry .gpu .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs.
source scripts/gpu-setup.sh gpu-run37.log; S=.gpu-stage
fa() { local p=$1; shift; TESSERA_BACKEND=cuda timeout 90 $S/bin/06_flash_attention_aot "$@" --package-dir=$S/pkgs/$p 2>&1 | grep -v "matrix units"; }
echo "== checked"
fa r37 2 1 333 128 --dtype=f16 --blocks=128x128 --warps=8 --causal; fa r37 1 2 1000 128 --dtype=f16 --blocks=128x128 --warps=8
fa r37 2 1 333 128 --dtype=f16 --blocks=64x32 --causal; fa r37 2 3 1000 128 --dtype=f16 --blocks=64x32
fa r37 2 1 333 128 --dtype=f16 --blocks=128x64 --warps=8 --causal; fa r37 1 2 100 64 --dtype=f16 --blocks=64x64 --causal
echo "== $(date -u +%T) timed"
for round in 1 2 3; do
  for p in r35-onebar r37; do
    echo "== attention 128x128w8 $p"
    fa $p 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --repeat=10
    fa $p 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --causal --repeat=10
  done
  [ $round = 1 ] && python3 bench/dot_anchors.py 2>&1 | grep -i "sdpa"
done
echo "== 64x32 r37"
fa r37 4 32 4096 128 --dtype=f16 --blocks=64x32 --repeat=10
echo "== $(date -u +%T) done"
