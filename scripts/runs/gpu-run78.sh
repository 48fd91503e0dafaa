#!/usr/bin/env bash
# Run 78 (twenty-fourth session), GPU test-machine side: 05_matmul's default blocks now that
# workgroup-scope matrices run (no --config), and whether the subgroup-path kernels gain from
# their sizes as specialization constants (packages compiled with TESSERA_SPECIALIZE_SIZES=1,
# "spec", against "plain"; in turns, twice). Here first: scripts/runs/stage-run70.sh and
# scripts/runs/stage-run78.sh. Carry .gpu and .gpu-stage/bin.
source scripts/gpu-setup.sh gpu-run78.log; W=.gpu-stage/bin/w78; V=.gpu-stage/bin/w70
m() { local d=$1; shift; TESSERA_BACKEND=vulkan timeout 90 $W/bin/05_matmul_aot "$@" --package-dir=$d 2>&1 | grep -v "^matrix units"; }
a() { local d=$1; shift; TESSERA_BACKEND=vulkan timeout 120 $W/bin/06_flash_attention_aot "$@" --package-dir=$d 2>&1 | grep -v "^matrix units"; }
echo "== $(date -u +%T) 05_matmul, default blocks"
for s in "4096 4096 4096 --dtype=f16" "8192 8192 8192 --dtype=f16" "4096 4096 4096 --dtype=bf16" "4000 4000 4000 --dtype=f16"; do
  echo "-- $s"; m $V/mm $s --act=none --repeat=20
done
for round in 1 2; do
  for v in plain spec; do
    echo "== $(date -u +%T) round $round, $v"
    for c in 128x256x32/16 128x128x32/8; do m $W/$v 4096 4096 4096 --dtype=f16 --act=none --config=$c --repeat=20; done
    m $W/$v 4096 4096 4096 --dtype=f32 --act=none --config=128x128x16/8 --repeat=10
    a $W/$v 4 32 4096 128 --dtype=f16 --blocks=64x32 --repeat=10
    a $W/$v 4 32 4096 128 --dtype=f16 --causal --blocks=64x32 --repeat=10
  done
done
echo "== $(date -u +%T) anchors"
PYTHONUNBUFFERED=1 timeout 150 python3 bench/dot_anchors.py
echo "== $(date -u +%T) done"
