#!/usr/bin/env bash
# GPU test-machine side of run 41 (thirteenth session). First attention's causal form, three ways
# (all with the producer warpgroup, now the default): r40-producer (row blocks in launch order,
# keys masked by two compares), r41-rev (row blocks last first), r41 (last first, one compare a
# score: keyCols <= min(rows, seq - 1)); non-causal too (r41 against r40-producer: the same code).
# Then the session's code in full: scripts/gpu-bench.sh (memory-bound, both backends and modes,
# PyTorch and Triton) and the dot work's table (.gpu-stage/pkgs/r41-all: the examples' default
# blocks through CUDA and Vulkan, f16, bf16, f32; attention 128 x 128 w8 for CUDA, 64 x 32 for
# Vulkan), with the anchors in the same call.
# Here: bash scripts/stage-gpu-bench.sh; 06_flash_attention 1 1 16 128 --blocks=128x128 --warps=8
# [--causal] --write-package=.gpu-stage/pkgs/r41 (r41-rev: before the mask's change), r41-all as
# gpu-final-run28.sh's header says plus 128x128w8. Carry .gpu .gpu-bench .gpu-stage/bin
# .gpu-stage/lib .gpu-stage/pkgs.
source scripts/gpu-setup.sh gpu-run41.log; S=.gpu-stage
fa() { local p=$1; shift; TESSERA_BACKEND=cuda timeout 60 $S/bin/06_flash_attention_aot "$@" --package-dir=$S/pkgs/$p 2>&1 | grep -v "matrix units"; }
echo "== checked"
for p in r41-rev r41; do fa $p 2 1 333 128 --dtype=f16 --blocks=128x128 --warps=8 --causal; fa $p 1 3 1000 128 --dtype=f16 --blocks=128x128 --warps=8 --causal; done
echo "== $(date -u +%T) timed"
for round in 1 2; do
  for p in r40-producer r41-rev r41; do
    echo "== attention 128x128w8 $p"
    fa $p 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --causal --repeat=10
    [ $p = r41-rev ] || fa $p 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --repeat=10
  done
done
echo "== $(date -u +%T) memory-bound"
bash scripts/gpu-bench.sh
source scripts/gpu-setup.sh gpu-run41-dot.log; P=$S/pkgs/r41-all
python3 bench/dot_anchors.py
m() { local be=$1; shift; TESSERA_BACKEND=$be timeout 60 $S/bin/05_matmul_aot "$@" --package-dir=$P 2>&1 | grep -v "matrix units"; }
fb() { local be=$1; shift; TESSERA_BACKEND=$be timeout 90 $S/bin/06_flash_attention_aot "$@" --package-dir=$P 2>&1 | grep -v "matrix units"; }
for be in cuda vulkan; do
  echo "== $be"
  m $be 333 517 200 --dtype=f16 --act=gelu; m $be 333 517 200 --dtype=f16 --act=none --b-transposed; m $be 1000 1000 1000 --dtype=bf16 --act=none
  fb $be 2 1 333 128 --dtype=f16 --causal; fb $be 1 2 100 64 --dtype=f16
  m $be 4096 4096 4096 --dtype=f16 --act=none --repeat=20; m $be 8192 8192 8192 --dtype=f16 --act=none --repeat=5
  m $be 4096 4096 4096 --dtype=bf16 --act=none --repeat=10; m $be 8192 8192 8192 --dtype=bf16 --act=none --repeat=5
  m $be 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --b-transposed
  m $be 4096 4096 4096 --dtype=f32 --act=none --repeat=10 --config=128x128x16/8
  fb $be 4 32 4096 128 --dtype=f16 --repeat=5; fb $be 4 32 4096 128 --dtype=f16 --causal --repeat=5
done
echo "== $(date -u +%T) done"
