#!/usr/bin/env bash
# GPU test-machine side of run 47 (fourteenth session): attention 4 x 32 x 4096 x 128 f16 in turns,
# three rounds: the thirteenth session's default (r45-old), the late waits (r45, the default now),
# the rotated loop (--overlap=1), and both without the producer warpgroup (r47-np:
# TESSERA_PRODUCER_WARP=0 when written); SDPA in the same call.
# Carry .gpu .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs (run 45's packages and r47-np).
source scripts/gpu-setup.sh gpu-run47.log; S=.gpu-stage
fa() { local p=$1; shift; TESSERA_BACKEND=cuda timeout 60 $S/bin/06_flash_attention_aot "$@" --package-dir=$S/pkgs/$p 2>&1 | grep -v "matrix units\|bulk tensor"; }
fa r47-np 1 3 1000 128 --dtype=f16 --blocks=128x128 --warps=8 --overlap=1
python3 bench/dot_anchors.py 2>&1 | grep -i sdpa
for round in 1 2 3; do
  for c in "r45-old --overlap=0" "r45 --overlap=0" "r45 --overlap=1" "r47-np --overlap=0" "r47-np --overlap=1"; do
    echo "== $c"; fa $c 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --repeat=10 | grep timed
  done
done
echo "== $(date -u +%T) done"
