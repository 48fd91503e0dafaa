#!/usr/bin/env bash
# GPU test-machine side of run 25: the memory-bound benchmark (scripts/gpu-bench.sh: both
# backends, PyTorch and Triton in the same call, the ratios table), then the row kernels at 4, 8,
# 16 and 32 warps (tessera-bench-aot --warps), fast softmax with div.rn (the division before
# this session) against div.full, and every op test through both backends (f32 `/` is now
# div.full.f32 in fast mode). Here: bash scripts/stage-gpu-bench.sh, then for W in 4 8 16 32:
# build/bin/tessera-bench --compile-only --write-packages=.gpu-bench/pkgs --subgroups=32
# --mode=fast --warps=$W --filter=4096x; .gpu-bench/pkgs-rn: the fast softmax packages compiled
# with div.rn (a temporary switch); .gpu-bench/conformance: tessera-op-tests --write-packages.
# Carry .gpu .gpu-bench.
B=.gpu-bench
bash scripts/gpu-bench.sh --mode=fast
source scripts/gpu-setup.sh gpu-bench-run25-sweep.log
for be in cuda vulkan; do
  for w in 4 8 16 32; do
    echo "== $be, row kernels at $w warps"
    TESSERA_BACKEND=$be $B/bin/tessera-bench-aot --packages=$B/pkgs --mode=fast --warps=$w --filter=4096x 2>&1 | grep -E "^(softmax|layernorm)"
  done
  echo "== $be, fast softmax with div.rn"
  TESSERA_BACKEND=$be $B/bin/tessera-bench-aot --packages=$B/pkgs-rn --mode=fast --filter=softmax 2>&1 | grep -E "^softmax"
done
for be in cuda vulkan; do
  echo "== $be, op tests"
  TESSERA_BACKEND=$be $B/bin/tessera-op-tests-aot --packages=$B/conformance 2>&1 | tail -4
done
echo "== $(date -u +%T) done"
