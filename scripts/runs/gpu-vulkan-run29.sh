#!/usr/bin/env bash
# GPU test-machine side of run 29: Vulkan's slow large buffers (add f32 at 2^28 runs at 0.39x
# Triton, 2^24 at 1.03x): the memory types the driver offers and the add kernel with each buffer
# in another memory type, without dedicated allocations, and with allocations rounded to 2 MiB
# (temporary switches TESSERA_X_MEMTYPE / TESSERA_X_NODEDICATED / TESSERA_X_ALIGN2M in
# VulkanBuffer.cpp, not committed); the add through CUDA with the bench's new grid (as few lines of
# programs as fit); the row kernels at 4, 8 and 16 warps through both backends on this GPU.
# Here: bash scripts/stage-gpu-bench.sh, then for W in 4 8 16: build/bin/tessera-bench
# --compile-only --write-packages=.gpu-bench/pkgs --subgroups=32 --mode=fast --warps=$W
# --filter=4096x. Carry .gpu .gpu-bench.
source scripts/gpu-setup.sh gpu-vulkan-run29.log; B=.gpu-bench
b() { $B/bin/tessera-bench-aot --packages=$B/pkgs --mode=fast "$@" 2>&1 | grep -E "^(add|softmax|layernorm)|memory type|chosen"; }
echo "== vulkan add, default"; TESSERA_X_LISTMEM=1 TESSERA_BACKEND=vulkan b --filter="add f32 n=2^28"
for t in 0 1 2 3 4 5 6 7 8 9 10; do echo "== vulkan add, memory type $t"; TESSERA_X_MEMTYPE=$t TESSERA_BACKEND=vulkan b --filter="add f32 n=2^28"; done
echo "== vulkan add, no dedicated"; TESSERA_X_NODEDICATED=1 TESSERA_BACKEND=vulkan b --filter="add f32 n=2^28"
echo "== vulkan add, 2 MiB"; TESSERA_X_ALIGN2M=1 TESSERA_BACKEND=vulkan b --filter="add f32 n=2^28"
echo "== vulkan add sweep"; TESSERA_BACKEND=vulkan b --filter=add --add-sizes=2^25,2^26,2^27,2^28 --rotate-mib=1
for i in 1 2; do echo "== cuda add (new grid)"; TESSERA_BACKEND=cuda b --filter="add f32 n=2^28"; done
for be in cuda vulkan; do for w in 4 8 16; do echo "== $be, row kernels at $w warps"; TESSERA_BACKEND=$be b --warps=$w --filter=4096x; done; done
echo "== $(date -u +%T) done"
