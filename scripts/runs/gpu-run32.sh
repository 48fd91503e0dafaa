#!/usr/bin/env bash
# GPU test-machine side of run 32 (tenth session): run 31's questions (staged in the ninth
# session, no device machine started) and the wgmma matmul through bulk tensor copies (TMA).
# Most needed first (the call may run out of device time):
# 1. The matmul's tensor-copy form (.gpu-stage/pkgs/r32: packages of this session's compiler,
#    each with the sm_90a artifact and its tensor-copy form) checked against float64 on shapes
#    whose maps can be built (1000^3: boxes past every edge; 333 x 512 x 200) and on one whose
#    can't (N = 517: rows of 1034 bytes, so the other artifact runs), then timed with
#    TESSERA_TENSOR_COPIES=0 (each thread's cp.async, the other artifact) and without (the
#    tensor-copy form) in turn; attention the same way (its keys and values through maps of
#    rank 3: slices of the heads' stack).
# 2. The op tests through both backends (.gpu-stage/pkgs/r31-optests: fast-mode PTX contracts a*b+c).
# 3. The fast row kernels through CUDA without `contract` (r31-nc) and with it (r31-rows).
# 4. The memory-bound harness (scripts/gpu-bench.sh, no ncu): both backends, fast and portable,
#    Vulkan launch overhead with batched submissions, PyTorch and Triton, ratios.
# (Run 32 used packages of commit 7f719ec's compiler, which also made the matmul's tensor-copy
# form; since then only the pass option tensor-copies-a does, docs/bench.md.)
# Here: bash scripts/stage-gpu-bench.sh; r32 from 05_matmul 16 16 16 --dtype=f16|bf16
# [--act=gelu] [--b-transposed] --config=128x256x64/8 --write-package --ptx-chips=sm_90,sm_90a.
# Carry .gpu .gpu-bench .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs (r31-nc, r31-rows,
# r31-optests, r32). r32 also from 06_flash_attention 1 1 16 128 --blocks=64x32 [--causal] and
# 1 2 16 64 --blocks=64x64 --write-package.
source scripts/gpu-setup.sh gpu-run32-dot.log; S=.gpu-stage; B=.gpu-bench
m() { local p=$1; shift; TESSERA_BACKEND=cuda TESSERA_TENSOR_COPIES=${TESSERA_TENSOR_COPIES:-1} timeout 60 $S/bin/05_matmul_aot "$@" --package-dir=$S/pkgs/$p 2>&1 | grep -v "matrix units"; }
fa() { local p=$1; shift; TESSERA_BACKEND=cuda TESSERA_TENSOR_COPIES=${TESSERA_TENSOR_COPIES:-1} timeout 90 $S/bin/06_flash_attention_aot "$@" --package-dir=$S/pkgs/$p 2>&1 | grep -v "matrix units"; }
echo "== tensor copies: checked"
m r32 1000 1000 1000 --dtype=f16 --act=none; m r32 1000 1000 1000 --dtype=f16 --act=gelu
m r32 333 512 200 --dtype=f16 --act=none; m r32 1000 1000 1000 --dtype=bf16 --act=none
m r32 1000 1000 1000 --dtype=f16 --act=none --b-transposed; m r32 333 517 200 --dtype=f16 --act=gelu
echo "== attention, tensor copies: checked"
fa r32 2 1 333 128 --dtype=f16 --blocks=64x32 --causal; fa r32 1 2 100 64 --dtype=f16 --blocks=64x64
timed() {
  for t in 0 1; do
    echo "== TESSERA_TENSOR_COPIES=$t"
    TESSERA_TENSOR_COPIES=$t m r32 4096 4096 4096 --dtype=f16 --act=none --repeat=20
    TESSERA_TENSOR_COPIES=$t fa r32 4 32 4096 128 --dtype=f16 --blocks=64x32 --repeat=5
    TESSERA_TENSOR_COPIES=$t fa r32 4 32 4096 128 --dtype=f16 --blocks=64x32 --causal --repeat=5
  done
}
timed
python3 bench/dot_anchors.py
echo "== op tests, cuda"
TESSERA_BACKEND=cuda timeout 120 $S/bin/tessera-op-tests-aot --packages=$S/pkgs/r31-optests 2>&1 | tail -3
for t in 0 1; do
  echo "== TESSERA_TENSOR_COPIES=$t"
  TESSERA_TENSOR_COPIES=$t m r32 8192 8192 8192 --dtype=f16 --act=none --repeat=5
  TESSERA_TENSOR_COPIES=$t m r32 4096 4096 4096 --dtype=bf16 --act=none --repeat=10
  TESSERA_TENSOR_COPIES=$t m r32 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --b-transposed
  TESSERA_TENSOR_COPIES=$t m r32 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=128x128x64/8
  TESSERA_TENSOR_COPIES=$t m r32 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=256x128x64/8
done
timed
echo "== op tests, vulkan"
TESSERA_BACKEND=vulkan timeout 120 $S/bin/tessera-op-tests-aot --packages=$S/pkgs/r31-optests 2>&1 | tail -3
for p in r31-nc r31-rows r31-nc r31-rows; do
  echo "== cuda, fast row kernels, $p"
  TESSERA_BACKEND=cuda $B/bin/tessera-bench-aot --packages=$S/pkgs/$p --mode=fast --filter=softmax 2>&1 | grep -E '^softmax'
  TESSERA_BACKEND=cuda $B/bin/tessera-bench-aot --packages=$S/pkgs/$p --mode=fast --filter=layernorm 2>&1 | grep -E '^layernorm'
done
echo "== $(date -u +%T) dot, op tests and row kernels done"
TESSERA_NCU=0 bash scripts/gpu-bench.sh
