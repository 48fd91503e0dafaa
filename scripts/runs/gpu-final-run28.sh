#!/usr/bin/env bash
# GPU test-machine side of run 28: the session's final code in one call. First the memory-bound
# harness (scripts/gpu-bench.sh: both backends, fast and portable, PyTorch and Triton, ratios),
# then the dot work with its anchors (bench/dot_anchors.py): the examples' defaults through CUDA
# (wgmma) and Vulkan (cooperative matrices), f16 and bf16, checked on ragged shapes, then timed.
# Here: bash scripts/stage-gpu-bench.sh; .gpu-stage/pkgs/r28 from 05_matmul 16 16 16
# --dtype=f16|bf16 [--act=gelu] [--b-transposed] --config=128x256x64/8 | 128x256x32/16, the bf16
# default of the build machine (64x64x32/4: Vulkan's bf16 block, the FMA path), f32 128x128x16/8,
# and 06_flash_attention 1 1 16 128 --blocks=64x32 [--causal] / 1 1 16 64 --blocks=64x64, all
# --write-package. Carry .gpu .gpu-bench .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs/r28.
bash scripts/gpu-bench.sh
source scripts/gpu-setup.sh gpu-final-run28-dot.log; S=.gpu-stage; P=$S/pkgs/r28
python3 bench/dot_anchors.py
m() { local be=$1; shift; TESSERA_BACKEND=$be timeout 60 $S/bin/05_matmul_aot "$@" --package-dir=$P 2>&1 | grep -v "matrix units"; }
fa() { local be=$1; shift; TESSERA_BACKEND=$be timeout 90 $S/bin/06_flash_attention_aot "$@" --package-dir=$P 2>&1 | grep -v "matrix units"; }
for be in cuda vulkan; do
  echo "== $be"
  m $be 333 517 200 --dtype=f16 --act=gelu; m $be 333 517 200 --dtype=f16 --act=none --b-transposed; m $be 1000 1000 1000 --dtype=bf16 --act=none
  fa $be 2 1 333 128 --dtype=f16 --blocks=64x32 --causal; fa $be 1 2 100 64 --dtype=f16 --blocks=64x64
  m $be 4096 4096 4096 --dtype=f16 --act=none --repeat=20; m $be 8192 8192 8192 --dtype=f16 --act=none --repeat=5
  m $be 4096 4096 4096 --dtype=bf16 --act=none --repeat=10; m $be 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --b-transposed
  m $be 4096 4096 4096 --dtype=f32 --act=none --repeat=10 --config=128x128x16/8
  fa $be 4 32 4096 128 --dtype=f16 --blocks=64x32 --repeat=5; fa $be 4 32 4096 128 --dtype=f16 --blocks=64x32 --causal --repeat=5
done
echo "== $(date -u +%T) done"
