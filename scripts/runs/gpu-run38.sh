#!/usr/bin/env bash
# GPU test-machine side of run 38 (twelfth session): attention's keys and values in 3 stages each
# (the copies 2 iterations ahead; r38) against 2 (run 37's compiler, r37), checked on ragged
# shapes first, then timed in the same call. Carry .gpu .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs.
source scripts/gpu-setup.sh gpu-run38.log; S=.gpu-stage
fa() { local p=$1; shift; TESSERA_BACKEND=cuda timeout 60 $S/bin/06_flash_attention_aot "$@" --package-dir=$S/pkgs/$p 2>&1 | grep -v "matrix units"; }
echo "== checked"
fa r38 2 1 333 128 --dtype=f16 --blocks=128x128 --warps=8 --causal; fa r38 1 2 1000 128 --dtype=f16 --blocks=128x128 --warps=8
fa r38 2 3 1000 128 --dtype=f16 --blocks=64x32; fa r38 1 2 100 64 --dtype=f16 --blocks=64x64 --causal
echo "== $(date -u +%T) timed"
for round in 1 2; do
  for p in r37 r38; do
    echo "== attention 128x128w8 $p"
    fa $p 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --repeat=10
    fa $p 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --causal --repeat=10
  done
done
for p in r37 r38; do echo "== 64x32 $p"; fa $p 4 32 4096 128 --dtype=f16 --blocks=64x32 --repeat=10; done
echo "== $(date -u +%T) done"
