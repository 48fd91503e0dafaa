#!/usr/bin/env bash
# GPU test-machine side of run 48 (fourteenth session): launch overhead through Vulkan with
# push descriptors (VK_KHR_push_descriptor: a launch writes its buffers into the command buffer)
# against a descriptor set allocated and written per launch (TESSERA_VULKAN_PUSH_DESCRIPTORS=0),
# in turns, each against the raw vkCmdDispatch loop of the same process; CUDA for reference.
# Here: tessera-bench --compile-only --subgroups=32 --filter=add --add-sizes=2^20
# --write-packages=.gpu-stage/bpkgs. Carry .gpu .gpu-stage/bin .gpu-stage/lib .gpu-stage/bpkgs.
source scripts/gpu-setup.sh gpu-run48.log; S=.gpu-stage
b() { $S/bin/tessera-bench-aot --packages=$S/bpkgs --add-sizes=2^20 --filter=add --mode=fast 2>&1 | grep -E "^add|launch overhead|raw driver|FAIL|rror"; }
echo "== cuda"; TESSERA_BACKEND=cuda b
for round in 1 2 3; do
  for v in 1 0; do
    echo "== vulkan push descriptors=$v"; TESSERA_BACKEND=vulkan TESSERA_VULKAN_PUSH_DESCRIPTORS=$v b
  done
done
echo "== $(date -u +%T) done"
