#!/usr/bin/env bash
# GPU test-machine side of a benchmark run (after scripts/stage-gpu-bench.sh here; carry .gpu and
# .gpu-bench): brings up the NVIDIA Vulkan driver, then in one run measures our kernels through
# CUDA and through Vulkan (tessera-bench-aot) and the same work through PyTorch and Triton
# (bench/anchors.py), and prints one table of ratios (bench/ratios.py). Files go to $OUT (or
# ./gpu-out): bench-cuda.json, bench-vulkan.json, anchors.json, ratios.md and the log.
set -u
B=.gpu-bench
source "$(dirname "$0")/gpu-setup.sh" gpu-bench.log
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>/dev/null
for backend in cuda vulkan; do
  echo "== tessera-bench-aot, TESSERA_BACKEND=$backend"
  # SM and memory clocks and the power state every 100 ms while the backend runs (Vulkan's
  # bandwidth is far below CUDA's on the same buffers: are the clocks the same?).
  nvidia-smi --query-gpu=timestamp,pstate,clocks.sm,clocks.mem,utilization.gpu --format=csv,noheader \
    -lms 100 > "$out/clocks-$backend.csv" 2>/dev/null &
  sampler=$!
  TESSERA_BACKEND=$backend $B/bin/tessera-bench-aot --packages=$B/pkgs --json="$out/bench-$backend.json" "$@" || status=1
  kill $sampler 2>/dev/null; wait $sampler 2>/dev/null
  echo "clocks while $backend ran (pstate, SM MHz, memory MHz: count of samples):"
  cut -d, -f2-4 "$out/clocks-$backend.csv" | sort | uniq -c | sort -rn | head -5
done
for backend in cuda vulkan; do
  echo "== portable softmax 4096x16384 at 32 warps against the default 16 (compile time), $backend"
  for warps in 16 32; do
    TESSERA_BACKEND=$backend $B/bin/tessera-bench-aot --packages=$B/pkgs --filter=4096x16384 --mode=portable \
      --warps=$warps | grep -E '^softmax' || status=1
  done
done
echo "== portable kernels through Vulkan on their plain SPIR-V (--hard-denormals: the driver's own f32"
echo "   denormal handling, not the software denormals a flushing driver gets): what those cost"
TESSERA_BACKEND=vulkan $B/bin/tessera-bench-aot --packages=$B/pkgs --mode=portable --hard-denormals \
  | grep -E '^(add|softmax|layernorm)|machine code' || status=1
echo "== anchors: PyTorch and Triton on the same GPU"
PYTHONUNBUFFERED=1 python3 bench/anchors.py "$out/anchors.json" || status=1
echo "== ratios"
python3 bench/ratios.py "$out/anchors.json" "$out/bench-cuda.json" "$out/bench-vulkan.json" --markdown "$out/ratios.md"
# A profile of the kernels furthest from their targets (Nsight Compute, where the machine has it).
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
if [ -n "$ncu" ] && [ "${TESSERA_NCU:-1}" != 0 ]; then  # TESSERA_NCU=0 skips the profiles
  for work in "softmax f32 4096x1024" "layernorm f16 4096x8192"; do
    echo "== ncu: $work (cuda, fast)"
    TESSERA_BACKEND=cuda "$ncu" --launch-skip 3 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
      --section Occupancy --section LaunchStats --section WarpStateStats \
      $B/bin/tessera-bench-aot --packages=$B/pkgs --filter="$work" --mode=fast --rotate-mib=64 \
      > "$out/ncu-${work// /_}.txt" 2>&1 || echo "ncu failed (see the file)"
    grep -E "Duration|Memory Throughput|DRAM Throughput|Achieved Occupancy|Registers Per|Block Size|Stall|Compute \(SM\)" \
      "$out/ncu-${work// /_}.txt" | head -20
  done
else
  echo "== ncu: not found on this machine, or skipped (TESSERA_NCU=0)"
fi
echo "== compile times on the build machine (trace to artifact)"
grep '^compile' $B/compile.log
echo "== exit status $status"
exit $status
