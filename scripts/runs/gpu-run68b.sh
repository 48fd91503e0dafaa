#!/usr/bin/env bash
# Run 68b (twenty-second session), GPU test-machine side: what run 67's device time left allowed
# of run 68. The memory-bound harness in fast mode through Vulkan and CUDA with this build (run
# 67 saw the Vulkan layernorm 4096 x 8192 at 2585 GB/s), PyTorch and Triton in the same call,
# the ratios; then the Vulkan matmul at 128 x 128 x 32 / 8 (run 67: 51 TFLOP/s with this build,
# 88 in run 62), old against new, and new's variant against its generic code (TESSERA_SPECIALIZE)
# at the blocks run 67 timed.
# Here first: scripts/runs/stage-run68.sh (.gpu-bench) after scripts/runs/stage-run67.sh (.gpu-stage).
# "barrier": 05_matmul 16 16 16 --dtype=f16 --act=none --config=128x128x32/8 [--stages=2]
# --write-package=.gpu-stage/pkgs/barrier/mm/ with TESSERA_STAGING_BARRIER=1 (twenty-second session).
# Carry .gpu .gpu-bench .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs/{old,new,pack,barrier}/mm.
source scripts/gpu-setup.sh gpu-run68b.log; B=.gpu-bench; S=.gpu-stage
for be in vulkan cuda; do
  echo "== $(date -u +%T) tessera-bench-aot, fast, TESSERA_BACKEND=$be"
  TESSERA_BACKEND=$be timeout 120 $B/bin/tessera-bench-aot --packages=$B/pkgs --mode=fast --json="$out/bench-$be.json"
done
echo "== $(date -u +%T) anchors"
PYTHONUNBUFFERED=1 python3 bench/anchors.py "$out/anchors.json"
echo "== ratios"
python3 bench/ratios.py "$out/anchors.json" "$out/bench-cuda.json" "$out/bench-vulkan.json" --markdown "$out/ratios.md"
m() { local d=$1; shift; TESSERA_BACKEND=vulkan timeout 60 $S/bin/05_matmul_aot "$@" --package-dir=$S/pkgs/$d/mm 2>&1 | grep -v "matrix units"; }
echo "== $(date -u +%T) matmul f16 4096^3 128x128x32/8 through Vulkan, old / new"
for d in old new; do echo "-- $d"; m $d 4096 4096 4096 --dtype=f16 --act=none --config=128x128x32/8 --repeat=20; done
# The variant (branch-free loads) against the generic code (loads behind one branch) of the same
# package, TESSERA_SPECIALIZE=0 keeping launches off the variant: run 67 saw the default blocks
# gain and 128 x 128 x 32 / 8 and the step-ahead loops lose.
echo "== $(date -u +%T) new, the variant (1) against the generic code (0), in turns"
for c in 128x256x32/16 256x128x32/8 128x128x32/8 "256x128x32/8 --stages=2" "128x128x32/8 --stages=2"; do
  for v in 1 0; do
    echo "-- new $c, TESSERA_SPECIALIZE=$v"; export TESSERA_SPECIALIZE=$v
    m new 4096 4096 4096 --dtype=f16 --act=none --config=$c --repeat=20
  done
done
unset TESSERA_SPECIALIZE
# Run 67's 128 x 128 x 32 / 8 stages its operands in two halves with one barrier an iteration
# (its loads then meet their stores with no barrier between); "barrier" keeps the barrier before
# the writes too (TESSERA_STAGING_BARRIER=1 when compiling), as the larger blocks have it.
echo "== $(date -u +%T) 128x128x32/8, halves with a barrier before the writes, against without"
for round in 1 2; do
  for d in new barrier; do echo "-- $d s1"; m $d 4096 4096 4096 --dtype=f16 --act=none --config=128x128x32/8 --repeat=20; done
  for d in pack barrier; do echo "-- $d s2"; m $d 4096 4096 4096 --dtype=f16 --act=none --config=128x128x32/8 --stages=2 --repeat=20; done
done
echo "== $(date -u +%T) done"
