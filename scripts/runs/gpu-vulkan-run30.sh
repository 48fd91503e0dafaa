#!/usr/bin/env bash
# GPU test-machine side of run 30: is Vulkan's slow state (add f32 at 2^28 at 1.7 TB/s instead of
# 3 TB/s, row kernels 2-4x slower; run 29) a property of the process order, of the runtime's
# pipeline cache, or of CUDA having run? The same Vulkan add in successive processes, with the
# cache and with a fresh cache folder each, then after a CUDA process. Packages: as run 29's.
# Carry .gpu .gpu-bench.
source scripts/gpu-setup.sh gpu-vulkan-run30.log; B=.gpu-bench
b() { $B/bin/tessera-bench-aot --packages=$B/pkgs --mode=fast "$@" 2>&1 | grep -E "^(add|softmax|layernorm)|device copy"; }
for i in 1 2 3; do echo "== vulkan add, process $i, shared cache"; TESSERA_BACKEND=vulkan b --filter="add f32 n=2^28"; done
for i in 1 2; do d=$(mktemp -d); echo "== vulkan add, fresh cache $d"; TESSERA_CACHE_DIR=$d TESSERA_BACKEND=vulkan b --filter="add f32 n=2^28"; done
echo "== vulkan softmax 16384 w16, fresh cache"; TESSERA_CACHE_DIR=$(mktemp -d) TESSERA_BACKEND=vulkan b --filter="softmax f32 4096x16384"
echo "== cuda add"; TESSERA_BACKEND=cuda b --filter="add f32 n=2^28"
echo "== vulkan add after cuda, fresh cache"; TESSERA_CACHE_DIR=$(mktemp -d) TESSERA_BACKEND=vulkan b --filter="add f32 n=2^28"
nvidia-smi --query-gpu=pstate,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
echo "== $(date -u +%T) done"
