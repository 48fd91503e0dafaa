#!/usr/bin/env bash
# Run 79 (twenty-fourth session), GPU test-machine side: the examples' own specializedArgs
# packages against run 78's push-constant ones ("plain"), in turns (one round: the device time left); then the memory-bound
# benchmark kernels (fast mode, through Vulkan) with every i32 scalar a specialization constant
# against without. Here first: scripts/runs/stage-run78.sh and scripts/runs/stage-run79.sh. Carry .gpu and
# .gpu-stage/bin.
source scripts/gpu-setup.sh gpu-run79.log; W=.gpu-stage/bin/w79; P=.gpu-stage/bin/w78/plain
m() { local d=$1; shift; TESSERA_BACKEND=vulkan timeout 90 $W/bin/05_matmul_aot "$@" --package-dir=$d 2>&1 | grep -E "timed|error"; }
a() { local d=$1; shift; TESSERA_BACKEND=vulkan timeout 120 $W/bin/06_flash_attention_aot "$@" --package-dir=$d 2>&1 | grep -E "timed|error"; }
for round in 1; do
  for d in $P $W/own; do
    echo "== $(date -u +%T) round $round, ${d#.gpu-stage/bin/}"
    for c in 128x256x32/16 128x128x32/8; do echo "-- matmul $c"; m $d 4096 4096 4096 --dtype=f16 --act=none --config=$c --repeat=20; done
    echo "-- attention"; a $d 4 32 4096 128 --dtype=f16 --blocks=64x32 --repeat=10
  done
done
for round in 1; do
  for v in plain spec; do
    echo "== $(date -u +%T) round $round, bench $v"
    TESSERA_BACKEND=vulkan timeout 150 $W/bin/tessera-bench-aot --packages=$W/bench-$v --mode=fast 2>&1 | grep -vE "^(device|seed|matrix)"
  done
done
echo "== $(date -u +%T) done"
