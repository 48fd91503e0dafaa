#!/usr/bin/env bash
# GPU test-machine side of run 44 (thirteenth session): attention at D = 64 through CUDA, whose
# default blocks are 64 x 64 on 4 warps, against 128 x 128 and 128 x 64 on 8 warps with the
# producer warpgroup (r44, the default there) and without it (r44-np: TESSERA_PRODUCER_WARP=0).
# Here: 06_flash_attention 1 1 16 64 --blocks=... [--warps=8] [--causal] --write-package=DIR
# --ptx-chips=sm_90,sm_90a. Carry .gpu .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs.
source scripts/gpu-setup.sh gpu-run44.log; S=.gpu-stage
fa() { local p=$1; shift; TESSERA_BACKEND=cuda timeout 60 $S/bin/06_flash_attention_aot "$@" --package-dir=$S/pkgs/$p 2>&1 | grep -v "matrix units\|bulk tensor"; }
echo "== checked"
fa r44 2 1 333 64 --dtype=f16 --blocks=128x64 --warps=8 --causal; fa r44 1 2 1000 64 --dtype=f16 --blocks=128x64 --warps=8
echo "== $(date -u +%T) timed"
for round in 1 2; do
  for c in "r44 --blocks=64x64" "r44 --blocks=128x128 --warps=8" "r44-np --blocks=128x128 --warps=8" "r44 --blocks=128x64 --warps=8" "r44-np --blocks=128x64 --warps=8"; do
    echo "== D64 $c"
    fa $c 4 32 4096 64 --dtype=f16 --repeat=10; fa $c 4 32 4096 64 --dtype=f16 --causal --repeat=10
  done
done
echo "== $(date -u +%T) done"
