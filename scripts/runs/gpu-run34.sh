#!/usr/bin/env bash
# GPU test-machine side of run 34 (eleventh session). Most needed first (the call may run out):
# 1. Tensor-copy forms without a barrier of the program in the loop (.gpu-stage/pkgs/r34, this
#    session's compiler; the matmul's form made with TESSERA_TENSOR_COPIES_A=1): each stage has
#    a second mbarrier the readers release, and the boxes leave from the first subgroup's lanes.
#    Checked against float64 on ragged shapes, then timed: the matmul with
#    TESSERA_TENSOR_COPIES=0 (cp.async, the plain artifact) and 1 in turn; attention r34 against
#    r32 (run 32's form: one thread's boxes behind a barrier of the program each iteration).
# 2. The anchors (cuBLAS through PyTorch, SDPA), then the other matmul shapes both ways.
# 2b. Layernorm with its weights' and biases' loads hoisted above the reductions (tile-hoist-loads;
#    .gpu-stage/pkgs/r34-hoist from tessera-bench --compile-only --write-packages --filter=layernorm)
#    against the staged harness packages (without).
# 3. The op tests through both backends (.gpu-stage/pkgs/r33-optests; run 32 used a stale binary).
# 4. The memory-bound harness with PyTorch and Triton (scripts/gpu-bench.sh, no ncu).
# Here: bash scripts/stage-gpu-bench.sh; copy build/bin/{tessera-op-tests-aot,05_matmul_aot,
# 06_flash_attention_aot} and build/lib/libtessera_runtime.so into .gpu-stage/bin and lib;
# r34: TESSERA_TENSOR_COPIES_A=1 05_matmul 16 16 16 --dtype=f16|bf16 [--act=gelu] [--b-transposed]
# --config=128x256x64/8 (and 128x128x64/8, 256x128x64/8) --write-package=DIR
# --ptx-chips=sm_90,sm_90a; 06_flash_attention 1 1 16 128 --blocks=64x32 [--causal], 1 2 16 64
# --blocks=64x64, and 1 1 16 128 --blocks=128x64|128x32 --warps=8 and 64x64 [--causal], the same way. Carry .gpu .gpu-bench .gpu-stage/bin .gpu-stage/lib
# .gpu-stage/pkgs (r32, r33-optests, r34).
source scripts/gpu-setup.sh gpu-run34.log; S=.gpu-stage
m() { local p=$1; shift; TESSERA_BACKEND=cuda TESSERA_TENSOR_COPIES=${TESSERA_TENSOR_COPIES:-1} timeout 60 $S/bin/05_matmul_aot "$@" --package-dir=$S/pkgs/$p 2>&1 | grep -v "matrix units"; }
fa() { local p=$1; shift; TESSERA_BACKEND=cuda TESSERA_TENSOR_COPIES=${TESSERA_TENSOR_COPIES:-1} timeout 90 $S/bin/06_flash_attention_aot "$@" --package-dir=$S/pkgs/$p 2>&1 | grep -v "matrix units"; }
echo "== tensor copies released by barriers: checked"
m r34 1000 1000 1000 --dtype=f16 --act=none; m r34 1000 1000 1000 --dtype=f16 --act=gelu
m r34 333 512 200 --dtype=f16 --act=none; m r34 1000 1000 1000 --dtype=bf16 --act=none
m r34 1000 1000 1000 --dtype=f16 --act=none --b-transposed; m r34 333 517 200 --dtype=f16 --act=gelu
fa r34 2 1 333 128 --dtype=f16 --blocks=64x32 --causal; fa r34 1 2 100 64 --dtype=f16 --blocks=64x64
fa r34 2 3 1000 128 --dtype=f16 --blocks=64x32
fa r34 2 1 333 128 --dtype=f16 --blocks=128x64 --warps=8 --causal; fa r34 2 3 1000 128 --dtype=f16 --blocks=128x64 --warps=8
fa r34 2 1 333 128 --dtype=f16 --blocks=128x32 --warps=8 --causal; fa r34 2 1 333 128 --dtype=f16 --blocks=128x128 --warps=8 --causal; fa r34 1 2 1000 128 --dtype=f16 --blocks=128x128 --warps=8
fa r34 2 1 333 128 --dtype=f16 --blocks=64x64
echo "== $(date -u +%T) timed"
for round in 1 2; do
  for t in 0 1; do
    echo "== matmul TESSERA_TENSOR_COPIES=$t"
    TESSERA_TENSOR_COPIES=$t m r34 4096 4096 4096 --dtype=f16 --act=none --repeat=20
  done
  for p in r32 r34; do
    echo "== attention $p"
    fa $p 4 32 4096 128 --dtype=f16 --blocks=64x32 --repeat=5
    fa $p 4 32 4096 128 --dtype=f16 --blocks=64x32 --causal --repeat=5
  done
done
for b in "128x64 --warps=8" "128x128 --warps=8" "128x32 --warps=8" "64x64"; do
  echo "== attention r34 $b"
  fa r34 4 32 4096 128 --dtype=f16 --blocks=$b --repeat=5
  fa r34 4 32 4096 128 --dtype=f16 --blocks=$b --causal --repeat=5
done
python3 bench/dot_anchors.py
for t in 0 1; do
  echo "== matmul TESSERA_TENSOR_COPIES=$t"
  TESSERA_TENSOR_COPIES=$t m r34 8192 8192 8192 --dtype=f16 --act=none --repeat=5
  TESSERA_TENSOR_COPIES=$t m r34 4096 4096 4096 --dtype=bf16 --act=none --repeat=10
  TESSERA_TENSOR_COPIES=$t m r34 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --b-transposed
  TESSERA_TENSOR_COPIES=$t m r34 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=128x128x64/8
  TESSERA_TENSOR_COPIES=$t m r34 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=256x128x64/8
done
for p in .gpu-bench/pkgs $S/pkgs/r34-hoist .gpu-bench/pkgs $S/pkgs/r34-hoist; do
  echo "== cuda, fast layernorm, $p"
  TESSERA_BACKEND=cuda .gpu-bench/bin/tessera-bench-aot --packages=$p --mode=fast --filter=layernorm 2>&1 | grep -E '^layernorm'
done
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
for t in 1 0; do
  echo "== $(date -u +%T) ncu: matmul 4096^3 f16, TESSERA_TENSOR_COPIES=$t"
  [ -n "$ncu" ] && TESSERA_BACKEND=cuda TESSERA_TENSOR_COPIES=$t timeout 120 "$ncu" --clock-control none -k regex:matmul -s 2 -c 1 \
    --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis \
    --metrics sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_gmma.sum \
    $S/bin/05_matmul_aot 4096 4096 4096 --dtype=f16 --act=none --repeat=3 --package-dir=$S/pkgs/r34 > $out/ncu-matmul-t$t.txt 2>&1
  grep -E "Duration|Throughput|Stall|Cycles Per Issued|gmma|Eligible|Issued Warp" $out/ncu-matmul-t$t.txt | head -30
done
for be in cuda vulkan; do
  echo "== $(date -u +%T) op tests, $be"
  TESSERA_BACKEND=$be timeout 150 $S/bin/tessera-op-tests-aot --packages=$S/pkgs/r33-optests 2>&1 | tail -3
done
echo "== $(date -u +%T) dot and op tests done"
TESSERA_NCU=0 bash scripts/gpu-bench.sh
