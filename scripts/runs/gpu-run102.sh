#!/usr/bin/env bash
# Run 102 (thirtieth session), GPU test-machine side, after `bash scripts/stage-gpu-bench.sh` here
# (carry .gpu and .gpu-bench): what the software f32 denormals cost the portable benchmark kernels
# through NVIDIA's Vulkan driver. The fast kernels, then the portable ones as the runtime picks
# them (software denormals on this driver), then the same on their plain SPIR-V with the f32
# DenormPreserve mode dropped (tessera-bench --hard-denormals: the driver's own flushing).
source scripts/gpu-setup.sh gpu-run102.log; B=.gpu-bench
b() { TESSERA_BACKEND=vulkan timeout 120 $B/bin/tessera-bench-aot --packages=$B/pkgs --filter="$1" "${@:2}" | grep -E '^(softmax|layernorm)|machine code|failed|unsupported' | cut -c1-220; }
for f in "softmax f32 4096x1024" "softmax f32 4096x16384" "layernorm f16 4096x4096"; do
  echo "== $(date -u +%T) $f"
  b "$f" --mode=fast; b "$f" --mode=portable; b "$f" --mode=portable --hard-denormals
done
echo "== $(date -u +%T) done"
