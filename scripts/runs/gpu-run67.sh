#!/usr/bin/env bash
# Run 67 (twenty-first session), GPU test-machine side: SPIR-V loads of runs proven whole without
# a branch (a masked-off run reads the buffer's first 16 bytes and its elements take `other`:
# SPIRVTargetInfo::loadRunIf), and SPIR-V variants that count a dot's operands (so the matmul's
# A and B loads are proven whole where M, N, K are multiples of 16). "new" packages are this
# commit's, "old" the same kernels from commit 2a8ff79's compiler, timed in turns through Vulkan.
# Here (build machine): bash scripts/runs/stage-run67.sh, which compiles for D = old (commit 2a8ff79's
# compiler) and new (this build's):
#   05_matmul 16 16 16 --dtype=f16 --act=none --config=C [--stages=2] --write-package=.gpu-stage/pkgs/D/mm/
#     (C = 128x256x32/16, 256x128x32/8, 128x128x32/8; --stages=2 at the last two)
#   05_matmul 16 16 16 --dtype=f32 --act=none --config=128x128x16/8 --write-package=.gpu-stage/pkgs/D/mm/
#   05_matmul 16 16 16 --dtype=bf16 --act=none --config=128x256x32/16 --write-package=.gpu-stage/pkgs/D/mm/
#   06_flash_attention 1 1 64 128 --dtype=f16 --blocks=64x32 --write-package=.gpu-stage/pkgs/D/att/
#   tessera-bench --compile-only --subgroups=32 --write-packages=.gpu-stage/pkgs/D/bench
# and puts this build's tessera, 05_matmul_aot, 06_flash_attention_aot, tessera-bench-aot in
# .gpu-stage/bin, its runtime in .gpu-stage/lib. "pack" (twenty-second session): the two --stages=2
# packages again with 16-bit pairs carried round the loop as words (PackHalfPairs.cpp), written by
# 05_matmul --stages=2 --write-package=.gpu-stage/pkgs/pack/mm/. Carry .gpu .gpu-stage.
source scripts/gpu-setup.sh gpu-run67.log; S=.gpu-stage
m() { local d=$1; shift; TESSERA_BACKEND=vulkan timeout 90 $S/bin/05_matmul_aot "$@" --package-dir=$S/pkgs/$d/mm 2>&1 | grep -v "matrix units"; }
fa() { local d=$1; shift; TESSERA_BACKEND=vulkan timeout 90 $S/bin/06_flash_attention_aot "$@" --package-dir=$S/pkgs/$d/att 2>&1 | grep -v "matrix units"; }
b() { local be=$1 d=$2; shift 2; TESSERA_BACKEND=$be timeout 120 $S/bin/tessera-bench-aot --packages=$S/pkgs/$d/bench "$@" 2>&1 | grep -E "^(add|softmax|layernorm)"; }
echo "== $(date -u +%T) checked (ragged and divisible), new and pack"
m new 333 517 200 --dtype=f16 --act=gelu; m new 1040 528 272 --dtype=f16 --act=gelu; fa new 1 2 1040 128 --dtype=f16 --causal
m pack 1040 528 272 --dtype=f16 --act=none --config=256x128x32/8 --stages=2; m pack 333 517 200 --dtype=f16 --act=none --config=128x128x32/8 --stages=2
echo "== $(date -u +%T) matmul f16 4096^3 through Vulkan at the default blocks, old / new"
for d in old new; do echo "-- $d 128x256x32/16"; m $d 4096 4096 4096 --dtype=f16 --act=none --config=128x256x32/16 --repeat=20; done
echo "== $(date -u +%T) loads a step ahead (--stages=2), old / new / pack"
for c in 256x128x32/8 128x128x32/8; do for d in old new pack; do
  echo "-- $d $c stages 2"; m $d 4096 4096 4096 --dtype=f16 --act=none --config=$c --stages=2 --repeat=20
done; done
echo "-- new 128x128x32/8 stages 1"; m new 4096 4096 4096 --dtype=f16 --act=none --config=128x128x32/8 --repeat=20
echo "== $(date -u +%T) short K (A's rows 512 B apart, not 8 KiB): does the loads' stride cost?"
for k in 256 512 4096; do echo "-- new 128x256x32/16 K=$k"; m new 4096 4096 $k --dtype=f16 --act=none --config=128x256x32/16 --repeat=20; done
echo "-- new 128x256x32/16 M=N=8192 K=256"; m new 8192 8192 256 --dtype=f16 --act=none --config=128x256x32/16 --repeat=20
echo "== $(date -u +%T) the driver's statistics, new and pack"
for f in $S/pkgs/new/mm/*.tspkg $S/pkgs/pack/mm/*.tspkg; do echo "-- $f"; TESSERA_BACKEND=vulkan $S/bin/tessera kernels $f 2>&1 | grep -E "Register Count|Local Memory"; done
echo "== $(date -u +%T) row kernels through Vulkan, old / new in turns"
for d in old new; do echo "-- $d"; b vulkan $d --mode=fast; done
echo "== $(date -u +%T) round 2, and 256x128x32/8, old / new"
for c in 128x256x32/16 256x128x32/8; do for d in old new; do
  echo "-- $d $c"; m $d 4096 4096 4096 --dtype=f16 --act=none --config=$c --repeat=20
done; done
echo "-- f32 128x128x16/8, old / new"
for d in old new; do echo "-- $d f32"; m $d 4096 4096 4096 --dtype=f32 --act=none --config=128x128x16/8 --repeat=10; done
echo "== $(date -u +%T) more checks, new"
m new 1000 1000 1000 --dtype=bf16 --act=none --config=128x256x32/16; fa new 2 1 333 128 --dtype=f16 --causal
echo "== $(date -u +%T) attention f16 B4 H32 L4096 D128 and bf16 matmul, old / new"
for d in old new; do echo "-- $d"; fa $d 4 32 4096 128 --dtype=f16 --repeat=5; m $d 4096 4096 4096 --dtype=bf16 --act=none --config=128x256x32/16 --repeat=20; done
echo "== $(date -u +%T) portable through Vulkan, old / new"
for d in old new; do echo "-- $d"; b vulkan $d --mode=portable; done
echo "== $(date -u +%T) anchors"
python3 bench/dot_anchors.py
echo "== $(date -u +%T) done"
