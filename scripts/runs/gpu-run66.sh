#!/usr/bin/env bash
# Run 66 (twentieth session), GPU test-machine side: bf16 on Vulkan cooperative matrices
# (VK_KHR_shader_bfloat16; chips vulkan1.3+coopmat+bf16[+mma-lanes]). Here first: the build's
# tessera, 05_matmul_aot, 06_flash_attention_aot and runtime into .gpu-bench/bin and lib, and
#   05_matmul 16 16 16 --dtype=bf16 --act=A --config=128x256x32/16 [--b-transposed] --write-package=.gpu-bench/pkgs-mm/
#     (A = none, gelu; gelu also with --b-transposed)
#   06_flash_attention 1 1 64 128 --dtype=bf16 [--causal] --blocks=64x32 --write-package=.gpu-bench/pkgs-att/
#   06_flash_attention 1 1 64 64 --dtype=bf16 --blocks=64x64 --write-package=.gpu-bench/pkgs-att/
#   and f16 for comparison: 05_matmul ... --dtype=f16 --act=none, 06_flash_attention ... 128 --dtype=f16
# Carry .gpu .gpu-bench. The self-test (bf16 too) in `tessera devices --probe`, the examples'
# ragged checks against float64, then 4096^3 and attention timed, cuBLAS in the same call.
source scripts/gpu-setup.sh gpu-run66.log; B=.gpu-bench
$B/bin/tessera devices --probe | grep -E "matrix units|cooperative_matrix"
m() { TESSERA_BACKEND=vulkan timeout 120 $B/bin/05_matmul_aot "$@" --package-dir=$B/pkgs-mm 2>&1; }
fa() { TESSERA_BACKEND=vulkan timeout 120 $B/bin/06_flash_attention_aot "$@" --package-dir=$B/pkgs-att 2>&1; }
echo "== $(date -u +%T) checked (ragged)"
m 333 517 200 --dtype=bf16 --act=gelu; m 1000 1000 1000 --dtype=bf16 --act=none
m 333 517 200 --dtype=bf16 --act=gelu --b-transposed; m 1 1 1 --dtype=bf16 --act=none
fa 2 1 333 128 --dtype=bf16 --causal
echo "== $(date -u +%T) timed: matmul 4096^3 bf16, then the same code on f16"
m 4096 4096 4096 --dtype=bf16 --act=none --repeat=20 | grep -v "matrix units"
m 4096 4096 4096 --dtype=f16 --act=none --repeat=20 | grep -v "matrix units"
echo "== $(date -u +%T) anchors"
python3 bench/dot_anchors.py
echo "== $(date -u +%T) attention B4 H32 L4096 D128, bf16 then f16"
fa 4 32 4096 128 --dtype=bf16 --repeat=5 | grep -v "matrix units"
fa 4 32 4096 128 --dtype=f16 --repeat=5 | grep -v "matrix units"
fa 4 32 4096 128 --dtype=bf16 --causal --repeat=5 | grep -v "matrix units"
echo "== $(date -u +%T) more checks"
fa 1 3 1000 128 --dtype=bf16; fa 1 2 100 64 --dtype=bf16
# Then, on the same machine (the f16 matmul and the bf16 attention had slow spells above):
#   source scripts/gpu-setup.sh gpu-run66b.log; two rounds of 05_matmul_aot 4096^3 f16 and bf16
#   (--repeat=20) and 06_flash_attention_aot 4 32 4096 128 bf16 (--repeat=5), as above.
