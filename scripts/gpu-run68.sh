#!/usr/bin/env bash
# Run 68 (twenty-second session), GPU test-machine side: the targets tables of issues [4/6] and
# [5/6] from one call with this build. First the memory-bound harness (scripts/gpu-bench.sh, both
# backends and modes, PyTorch and Triton, ratios; no Nsight profiles), then the dot work with its
# anchors (bench/dot_anchors.py): the examples' default blocks through CUDA and Vulkan, checked on
# ragged shapes, then timed. Here first: bash scripts/stage-run68.sh (after stage-run67.sh).
# Carry .gpu .gpu-bench .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs/full (the whole .gpu-stage with
# run 67's package sets exceeds the 64 MiB a call carries).
TESSERA_NCU=0 bash scripts/gpu-bench.sh
source scripts/gpu-setup.sh gpu-run68-dot.log; S=.gpu-stage; P=$S/pkgs/full
python3 bench/dot_anchors.py
m() { local be=$1; shift; TESSERA_BACKEND=$be timeout 90 $S/bin/05_matmul_aot "$@" --package-dir=$P 2>&1 | grep -v "matrix units"; }
fa() { local be=$1; shift; TESSERA_BACKEND=$be timeout 90 $S/bin/06_flash_attention_aot "$@" --package-dir=$P 2>&1 | grep -v "matrix units"; }
for be in cuda vulkan; do
  echo "== $(date -u +%T) $be"
  m $be 333 517 200 --dtype=f16 --act=gelu; m $be 333 517 200 --dtype=f16 --act=none --b-transposed; m $be 1000 1000 1000 --dtype=bf16 --act=none
  fa $be 2 1 333 128 --dtype=f16 --causal; fa $be 1 2 100 64 --dtype=f16
  m $be 4096 4096 4096 --dtype=f16 --act=none --repeat=20; m $be 8192 8192 8192 --dtype=f16 --act=none --repeat=5
  m $be 4096 4096 4096 --dtype=bf16 --act=none --repeat=20; m $be 8192 8192 8192 --dtype=bf16 --act=none --repeat=5
  m $be 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --b-transposed
  m $be 4096 4096 4096 --dtype=f32 --act=none --repeat=10 --config=128x128x16/8
  fa $be 4 32 4096 128 --dtype=f16 --repeat=5; fa $be 4 32 4096 128 --dtype=f16 --causal --repeat=5
done
echo "== $(date -u +%T) done"
