#!/usr/bin/env bash
# GPU test-machine side of run 53 (sixteenth session): the variant's predicated loads and stores
# (@p ld.global.v4.b32 / st.global.v4.b32, no branches: ptxas 13 on the build machine gives
# layernorm 4096 on 8 warps 40 registers, 8192 on 8 warps 63 and on 16 warps 40, against 50, 85
# and 58 before; softmax 4096 x 16384 on 16 warps 71 against 64). Two rounds alternating CUDA
# layernorm and softmax from the fifteenth session's packages (.gpu-bench/old), this session's
# (.gpu-bench/pkgs), and this session's with .minnctapersm = 1024 / threads (.gpu-bench/occ:
# softmax 64 registers, layernorm 4096 48, 8192 on 16 warps 56), with layernorm 8192 also on 8
# warps, and Vulkan's 8192 on 8 and 16 warps (its SPIR-V is unchanged); the examples on rows
# that end inside a program's runs (layernorm 4000, 8000; softmax 3008, 1008 columns: multiples
# of 16 short of the block, .gpu-bench/ex) through both backends; then the full benchmark
# (scripts/gpu-bench.sh, without ncu) and Triton's layernorm registers. Everything goes into
# $OUT/run53.tgz (one file).
# Here: bash scripts/stage-gpu-bench.sh; the old packages copied to .gpu-bench/old; tessera-bench
# --compile-only --subgroups=32 --filter=4096x8192 --mode=fast --warps=8 --write-packages=
# .gpu-bench/pkgs; 03_layernorm and 02_fused_softmax --write-package=.gpu-bench/ex for those
# columns, their -aot binaries in .gpu-bench/bin. Carry .gpu and .gpu-bench.
final=${OUT:-gpu-out}; export OUT=$(mktemp -d)
source scripts/gpu-setup.sh gpu-run53.log; B=.gpu-bench
configs="old:layernorm:8192:16 pkgs:layernorm:8192:16 occ:layernorm:8192:16 pkgs:layernorm:8192:8
  old:layernorm:4096:8 pkgs:layernorm:4096:8 occ:layernorm:4096:8 old:softmax:16384:16 pkgs:softmax:16384:16
  occ:softmax:16384:16"
for round in 1 2; do
  for c in $configs; do
    IFS=: read dir kernel cols warps <<< "$c"
    work="$kernel f16 4096x$cols"; [ $kernel = softmax ] && work="softmax f32 4096x$cols"
    echo "== $(date -u +%T) round $round: cuda $work, $warps warps, packages $dir"
    TESSERA_BACKEND=cuda $B/bin/tessera-bench-aot --packages=$B/$dir --mode=fast --filter="$work" \
      --warps=$warps | grep -E "^$kernel|machine code"
  done
  for warps in 8 16; do
    echo "== $(date -u +%T) round $round: vulkan layernorm 4096x8192, $warps warps"
    TESSERA_BACKEND=vulkan $B/bin/tessera-bench-aot --packages=$B/pkgs --mode=fast --filter="layernorm f16 4096x8192" \
      --warps=$warps | grep -E "^layernorm|machine code"
  done
done
echo "== $(date -u +%T) rows that end inside a program's runs (.gpu-bench/ex)"
for backend in cuda vulkan; do
  for cols in 4000 8000; do TESSERA_BACKEND=$backend $B/bin/03_layernorm_aot 1000 $cols --package-dir=$B/ex || status=1; done
  for cols in 3008 1008; do TESSERA_BACKEND=$backend $B/bin/02_fused_softmax_aot 1000 $cols --package-dir=$B/ex || status=1; done
done
echo "== $(date -u +%T) the full benchmark"
TESSERA_NCU=0 bash scripts/gpu-bench.sh || status=1
echo "== $(date -u +%T) Triton layernorm's registers (anchors.py's kernel)"
PYTHONUNBUFFERED=1 python3 - <<'PY'
import sys, os; sys.path.insert(0, "bench")
import anchors, torch
for cols in (4096, 8192):
    x = torch.randn(4096, cols, device="cuda", dtype=torch.float16); y = torch.empty_like(x)
    w = torch.rand(cols, device="cuda", dtype=torch.float16); b = torch.rand(cols, device="cuda", dtype=torch.float16)
    ck = anchors.layernorm_kernel[(4096,)](x, y, w, b, x.stride(0), cols, 1e-5, BLOCK=cols, num_warps=8)
    print(f"triton layernorm {cols}: {ck.n_regs} registers, {ck.n_spills} spills")
PY
echo "== $(date -u +%T) done, status $status"
tar czf "$final/run53.tgz" -C "$OUT" .
