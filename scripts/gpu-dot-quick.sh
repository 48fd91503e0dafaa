#!/usr/bin/env bash
# GPU test-machine side of a short dot run (after scripts/stage-gpu.sh here; carry .gpu,
# .gpu-stage/bin, .gpu-stage/lib, .gpu-stage/pkgs/example, .gpu-stage/pkgs/example-sm90 and .gpu-stage/sass): the anchors (PyTorch matmul f16,
# bf16, f32 without tf32, SDPA), then the matmul and attention examples through CUDA on ragged
# shapes (checked against float64) and timed at the default and a few other block shapes, f32 on
# the FMA path, and through Vulkan the f32 and f16 matmul (cooperative matrices on NVIDIA) and
# attention, ragged and timed. On an
# sm_90 device the 16-bit matmuls run sm_90a code (the warpgroup units, wgmma), compared with the
# sm_90 code (mma.sync) of pkgs/example-sm90. About three minutes; scripts/gpu-dot.sh is the full
# sweep.
set -u
source "$(dirname "$0")/gpu-setup.sh" gpu-dot-quick.log; S=.gpu-stage
python3 bench/dot_anchors.py
m() { TESSERA_BACKEND=$1 timeout 40 $S/bin/05_matmul_aot "${@:2}" --package-dir=$S/pkgs/example 2>&1 | grep -v "matrix units"; }
fa() { TESSERA_BACKEND=$1 timeout 40 $S/bin/06_flash_attention_aot "${@:2}" --package-dir=$S/pkgs/example 2>&1 | grep -v "matrix units"; }
m cuda 200 130 300 --dtype=f16 --act=gelu; m cuda 1000 1000 1000 --dtype=bf16 --act=none
m cuda 130 70 333 --dtype=f32 --act=gelu --portable; m cuda 200 130 300 --dtype=f32 --act=none; m cuda 1000 1000 1000 --dtype=f32 --act=none --config=128x128x16/8
for run in "1 2 100 64 --dtype=f16" "2 1 333 128 --dtype=f16 --causal" "1 4 512 64 --dtype=bf16 --causal" "2 2 1000 128 --dtype=f16"; do
  fa cuda $run
done
fa cuda 4 32 4096 128 --dtype=f16 --repeat=5; fa cuda 4 32 4096 128 --dtype=f16 --causal --repeat=5
for c in "" --causal; do # mma.sync (sm_90 code only), the baseline
  TESSERA_BACKEND=cuda timeout 40 $S/bin/06_flash_attention_aot 4 32 4096 128 --dtype=f16 $c --repeat=5 --package-dir=$S/pkgs/example-sm90
done
# The warpgroup units (sm_90a code, on an sm_90 device): ragged shapes at each block shape first,
# then the timings, against mma.sync at the default shape (pkgs/example-sm90: sm_90 code only).
for c in 256x128x64/8 128x128x64/4; do
  m cuda 333 517 200 --dtype=f16 --act=gelu --config=$c; m cuda 1000 1000 1000 --dtype=bf16 --act=none --config=$c
done
m cuda 333 517 200 --dtype=f16 --act=gelu --b-transposed; m cuda 1000 1000 1000 --dtype=bf16 --act=none --b-transposed
m cuda 333 517 200 --dtype=f16 --act=gelu --b-transposed --config=128x128x32/8
m cuda 1000 1000 1000 --dtype=bf16 --act=none --b-transposed --config=128x128x32/8
for c in 128x128x32/8 128x256x64/8; do
  TESSERA_BACKEND=cuda timeout 40 $S/bin/05_matmul_aot 4096 4096 4096 --dtype=f16 --act=none --repeat=10 --config=$c --package-dir=$S/pkgs/example-sm90
done
m cuda 4096 4096 4096 --dtype=f16 --act=none --repeat=10; m cuda 4096 4096 4096 --dtype=bf16 --act=none --repeat=10
for c in 128x128x32/8 256x128x64/8 128x128x64/4; do m cuda 4096 4096 4096 --dtype=f16 --act=none --repeat=10 --config=$c; done
m cuda 4096 4096 4096 --dtype=f16 --act=none --repeat=10 --b-transposed
m cuda 8192 8192 8192 --dtype=f16 --act=none --repeat=5; m cuda 8192 8192 8192 --dtype=bf16 --act=none --repeat=5
for c in 64x64x32/4 128x128x16/8 128x128x32/8 128x64x32/4; do m cuda 4096 4096 4096 --dtype=f32 --act=none --repeat=10 --config=$c; done
echo "== the default sm_90 matmul: the code the device takes, and its warpgroup instructions (PTX, SASS)"
$S/bin/tessera kernels $S/pkgs/example/matmul_f16_none_fast_128x256x64w8.tspkg
strings -n 4 $S/pkgs/example/matmul_f16_none_fast_128x256x64w8.tspkg | grep -oE "mma\.sync[.a-z0-9]*|wgmma[.a-z0-9]*" | sort | uniq -c
if [ -d $S/sass ]; then cuobjdump --dump-sass $S/sass/*.cubin | grep -oE "(HGMMA|HMMA|WARPGROUP)[.A-Za-z0-9_]*" | sort | uniq -c; fi
m vulkan 200 130 300 --dtype=f32 --act=none; m vulkan 4096 4096 4096 --dtype=f32 --act=none --repeat=10; m vulkan 4096 4096 4096 --dtype=f32 --act=none --repeat=10 --config=128x128x16/8
m vulkan 333 517 200 --dtype=f16 --act=gelu; m vulkan 333 517 200 --dtype=f16 --act=none --b-transposed
m vulkan 4096 4096 4096 --dtype=f16 --act=none --repeat=10
fa vulkan 1 2 100 64 --dtype=f16; fa vulkan 2 1 333 128 --dtype=f16 --causal
fa vulkan 4 32 4096 128 --dtype=f16 --repeat=5; fa vulkan 4 32 4096 128 --dtype=f16 --causal --repeat=5
