#!/usr/bin/env bash
# GPU test-machine side of run 33 (staged at the end of the tenth session for the next one).
# 1. The op tests through both backends with this runtime's own binary (.gpu-stage/pkgs/r33-optests,
#    from tessera-op-tests --write-packages): fast-mode PTX contracts a*b+c since the ninth session,
#    and run 32's attempt used a stale binary (docs/gpu-runs.md).
# 2. The memory-bound harness with PyTorch and Triton (scripts/gpu-bench.sh, no ncu): the ratio
#    table on this GPU.
# 3. The dot work at the examples' defaults with its anchors: attention with its keys and values
#    through bulk tensor copies (the default since run 32) and the matmul without them
#    (TESSERA_TENSOR_COPIES=0 on run 32's packages, whose matmul form the compiler no longer makes).
# Here: bash scripts/stage-gpu-bench.sh; recopy build/bin/tessera-op-tests-aot, 05_matmul_aot,
# 06_flash_attention_aot and build/lib/libtessera_runtime.so into .gpu-stage/bin and lib.
# Carry .gpu .gpu-bench .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs (r32, r33-optests).
source scripts/gpu-setup.sh gpu-run33.log; S=.gpu-stage
for be in cuda vulkan; do
  echo "== op tests, $be"
  TESSERA_BACKEND=$be timeout 150 $S/bin/tessera-op-tests-aot --packages=$S/pkgs/r33-optests 2>&1 | tail -3
done
m() { TESSERA_BACKEND=cuda TESSERA_TENSOR_COPIES=0 timeout 60 $S/bin/05_matmul_aot "$@" --package-dir=$S/pkgs/r32 2>&1 | grep -v "matrix units"; }
fa() { TESSERA_BACKEND=cuda timeout 90 $S/bin/06_flash_attention_aot "$@" --package-dir=$S/pkgs/r32 2>&1 | grep -v "matrix units"; }
python3 bench/dot_anchors.py
m 4096 4096 4096 --dtype=f16 --act=none --repeat=20; m 8192 8192 8192 --dtype=f16 --act=none --repeat=5
m 4096 4096 4096 --dtype=bf16 --act=none --repeat=10
fa 4 32 4096 128 --dtype=f16 --blocks=64x32 --repeat=5; fa 4 32 4096 128 --dtype=f16 --blocks=64x32 --causal --repeat=5
echo "== $(date -u +%T) op tests and dot done"
TESSERA_NCU=0 bash scripts/gpu-bench.sh
