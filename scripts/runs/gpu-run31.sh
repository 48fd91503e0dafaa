#!/usr/bin/env bash
# GPU test-machine side of run 31 (staged in the ninth session, when no device machine could be
# started): the memory-bound harness (scripts/gpu-bench.sh: both backends, fast and portable,
# Vulkan launch overhead with batched submissions, portable softmax at 32 warps against 16,
# PyTorch and Triton, ratios); the fast row kernels compiled without `contract`
# (.gpu-stage/pkgs/r31-nc, commit 66fe638) against with it (r31-rows, commit 82a122e) through
# CUDA; the op tests through both backends (r31-optests); then the dot work with its anchors:
# ragged shapes checked, and the timed kernels through CUDA with run 28's packages
# (.gpu-stage/pkgs/r28: the compiler before the ninth session) and the ninth session's (r31: the
# loads' and copies' "all runs whole" condition from the offsets' linear forms, fast-mode PTX with
# `contract`) in the same call, through Vulkan with r31; longest last (the call may run out of
# device time). No ncu profiles this time. Here: bash scripts/stage-gpu-bench.sh; the r31* folders
# are kept on the build machine (r31 made as scripts/runs/gpu-final-run28.sh's header says for r28;
# r31-optests by tessera-op-tests --write-packages; r31-nc and r31-rows the fast softmax and
# layernorm packages of tessera-bench --compile-only --write-packages). Carry .gpu .gpu-bench
# .gpu-stage/bin .gpu-stage/lib and .gpu-stage/pkgs/{r28,r31,r31-nc,r31-rows,r31-optests}.
TESSERA_NCU=0 bash scripts/gpu-bench.sh
source scripts/gpu-setup.sh gpu-run31-dot.log; S=.gpu-stage; B=.gpu-bench
for p in r31-nc r31-rows r31-nc r31-rows; do
  echo "== cuda, fast row kernels, $p"
  TESSERA_BACKEND=cuda $B/bin/tessera-bench-aot --packages=$S/pkgs/$p --mode=fast --filter=softmax 2>&1 | grep -E '^softmax'
  TESSERA_BACKEND=cuda $B/bin/tessera-bench-aot --packages=$S/pkgs/$p --mode=fast --filter=layernorm 2>&1 | grep -E '^layernorm'
done
for be in cuda vulkan; do
  echo "== op tests, $be"
  TESSERA_BACKEND=$be timeout 120 $S/bin/tessera-op-tests-aot --packages=$S/pkgs/r31-optests 2>&1 | tail -3
done
python3 bench/dot_anchors.py
m() { local be=$1 p=$2; shift 2; TESSERA_BACKEND=$be timeout 60 $S/bin/05_matmul_aot "$@" --package-dir=$S/pkgs/$p 2>&1 | grep -v "matrix units"; }
fa() { local be=$1 p=$2; shift 2; TESSERA_BACKEND=$be timeout 90 $S/bin/06_flash_attention_aot "$@" --package-dir=$S/pkgs/$p 2>&1 | grep -v "matrix units"; }
for be in cuda vulkan; do
  echo "== $be: ragged shapes (r31)"
  m $be r31 333 517 200 --dtype=f16 --act=gelu; m $be r31 333 517 200 --dtype=f16 --act=none --b-transposed
  m $be r31 1000 1000 1000 --dtype=bf16 --act=none
  fa $be r31 2 1 333 128 --dtype=f16 --blocks=64x32 --causal; fa $be r31 1 2 100 64 --dtype=f16 --blocks=64x64
  [ $be = vulkan ] && break
  for p in r28 r31; do
    echo "== $be, packages $p"
    m $be $p 4096 4096 4096 --dtype=f16 --act=none --repeat=20
    fa $be $p 4 32 4096 128 --dtype=f16 --blocks=64x32 --repeat=5; fa $be $p 4 32 4096 128 --dtype=f16 --blocks=64x32 --causal --repeat=5
  done
  for p in r28 r31; do
    echo "== $be, packages $p"
    m $be $p 8192 8192 8192 --dtype=f16 --act=none --repeat=5; m $be $p 4096 4096 4096 --dtype=bf16 --act=none --repeat=10
    m $be $p 4096 4096 4096 --dtype=f32 --act=none --repeat=10 --config=128x128x16/8
  done
done
echo "== vulkan, packages r31"
m vulkan r31 4096 4096 4096 --dtype=f16 --act=none --repeat=20; m vulkan r31 4096 4096 4096 --dtype=f32 --act=none --repeat=10 --config=128x128x16/8
fa vulkan r31 4 32 4096 128 --dtype=f16 --blocks=64x32 --repeat=5
echo "== $(date -u +%T) done"
