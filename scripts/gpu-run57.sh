#!/usr/bin/env bash
# GPU test-machine side of run 57 (seventeenth session): Vulkan's slow spells against the
# harness's warm-up. Run 56's clock sampler saw the SM at 345 MHz in a third of its samples while
# Vulkan ran (never while CUDA ran); the harness timed after 5 launches, right after the host's
# reference check, during which the GPU idles. The harness now warms up for about 0.1 s of device
# time first (bench/BenchRun.cpp). Two rounds alternating the previous harness
# (.gpu-bench/bin/tessera-bench-aot) and this one (tessera-bench-aot-warm), Vulkan, fast softmax
# 4096 x 16384 and layernorm 4096 x 8192, the SM clock sampled every 100 ms during each.
# Everything goes into $OUT/run57.tgz. Here: run 56's staging plus
# cp build/bin/tessera-bench-aot .gpu-bench/bin/tessera-bench-aot-warm. Carry .gpu and .gpu-bench.
final=${OUT:-gpu-out}; export OUT=$(mktemp -d)
source scripts/gpu-setup.sh gpu-run57.log; B=.gpu-bench
for round in 1 2; do
  for work in "softmax f32 4096x16384" "layernorm f16 4096x8192"; do
    for bin in tessera-bench-aot tessera-bench-aot-warm; do
      echo "== $(date -u +%T) round $round: vulkan $work, $bin"
      nvidia-smi --query-gpu=clocks.sm --format=csv,noheader -lms 100 > "$OUT/clk.csv" 2>/dev/null &
      sampler=$!
      TESSERA_BACKEND=vulkan $B/bin/$bin --packages=$B/pkgs --mode=fast --filter="$work" | grep -E "^(softmax|layernorm)"
      kill $sampler 2>/dev/null; wait $sampler 2>/dev/null
      echo "   SM clock samples: $(sort "$OUT/clk.csv" | uniq -c | sort -rn | head -4 | tr -s ' ' | tr '\n' ';')"
    done
  done
done
echo "== $(date -u +%T) done"
tar czf "$final/run57.tgz" -C "$OUT" .
