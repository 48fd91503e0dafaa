#!/usr/bin/env bash
# Run 65 (twentieth session), GPU test-machine side; here first: bash scripts/stage-gpu-bench.sh,
# cp build/bin/tessera build/bin/05_matmul_aot .gpu-bench/bin/, and the example's f16 packages
# (both kernels, masked and "matmul_whole") for the default blocks of each backend:
#   build/bin/05_matmul 16 16 16 --dtype=f16 --act=none --config=C --write-package=.gpu-bench/pkgs-mm/
#   with C = 128x256x64/8 (CUDA, sm_90a) and 128x256x32/16 (Vulkan, cooperative matrices).
# Carry .gpu .gpu-bench. (The unmasked kernel and --masked were taken out after this run, which
# found CUDA 12% slower without masks: commit dfa2751 has them.)
# 1. `tessera devices --probe` with the cooperative-matrix shapes listed and VK_KHR_shader_bfloat16's
#    features named: does the NVIDIA driver offer bf16 cooperative matrices?
# 2. The example's matmul at 4096^3 without masks (the default where the blocks divide the sizes)
#    and with them (--masked), through both backends, two rounds alternating.
# 3. The full harness with the anchors (scripts/gpu-bench.sh): the Vulkan layernorm with
#    read-only buffers NonWritable against Triton in the same call.
set -u
(
  source scripts/gpu-setup.sh devices.log
  .gpu-bench/bin/tessera devices --probe
  .gpu-bench/bin/tessera devices --json > "$out/devices.json"
  for round in 1 2; do
    for backend in cuda vulkan; do
      for mask in "" --masked; do
        echo "== matmul 4096^3 f16, $backend ${mask:-unmasked}, round $round"
        TESSERA_BACKEND=$backend timeout 120 .gpu-bench/bin/05_matmul_aot 4096 4096 4096 --dtype=f16 --act=none \
          --repeat=20 --package-dir=.gpu-bench/pkgs-mm $mask 2>&1 | grep -v "matrix units"
      done
    done
  done
)
bash scripts/gpu-bench.sh
