#!/usr/bin/env bash
# GPU test-machine side of run 51 (fifteenth session): argument specialization. The benchmark
# packages now hold, beside each kernel's plain code, a variant for n a multiple of 16 (layernorm,
# softmax, add); TESSERA_SPECIALIZE=0 keeps launches on the plain code. Both ways through CUDA and
# Vulkan (fast mode, two rounds, alternating), then the anchors (PyTorch, Triton) and the ratio
# tables of each way, then Nsight Compute on layernorm 4096 x 4096 with the variant.
# Here: bash scripts/stage-gpu-bench.sh. Carry .gpu and .gpu-bench.
source scripts/gpu-setup.sh gpu-run51.log; B=.gpu-bench
for round in 1 2; do
  for spec in 1 0; do
    for backend in cuda vulkan; do
      echo "== $(date -u +%T) round $round, TESSERA_SPECIALIZE=$spec, $backend"
      TESSERA_SPECIALIZE=$spec TESSERA_BACKEND=$backend $B/bin/tessera-bench-aot --packages=$B/pkgs --mode=fast \
        --json="$out/bench-$backend-s$spec-r$round.json" | grep -E "^(add|softmax|layernorm)|machine code" || status=1
    done
  done
done
echo "== $(date -u +%T) anchors: PyTorch and Triton on the same GPU"
PYTHONUNBUFFERED=1 python3 bench/anchors.py "$out/anchors.json" || status=1
for spec in 1 0; do
  echo "== ratios, TESSERA_SPECIALIZE=$spec (round 1)"
  python3 bench/ratios.py "$out/anchors.json" "$out/bench-cuda-s$spec-r1.json" "$out/bench-vulkan-s$spec-r1.json" \
    --markdown "$out/ratios-s$spec.md" | sed -n '/## Throughput/,/## Targets/p'
done
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
if [ -n "$ncu" ]; then
  for work in "layernorm f16 4096x4096" "layernorm f16 4096x8192"; do
    echo "== ncu: $work (cuda, fast, variant)"
    TESSERA_BACKEND=cuda "$ncu" --launch-skip 3 --launch-count 1 --section SpeedOfLight --section Occupancy \
      --section LaunchStats --section WarpStateStats --section InstructionStats \
      $B/bin/tessera-bench-aot --packages=$B/pkgs --filter="$work" --mode=fast --rotate-mib=64 \
      > "$out/ncu-${work// /_}.txt" 2>&1 || echo "ncu failed (see the file)"
    grep -E "Duration|DRAM Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Limit Registers|Executed Instructions  |Stall" \
      "$out/ncu-${work// /_}.txt" | head -16
  done
fi
echo "== compile times on the build machine (trace to artifact, one artifact)"
grep '^compile' $B/compile.log
echo "== $(date -u +%T) exit status $status"
exit $status
