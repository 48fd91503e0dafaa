#!/usr/bin/env bash
# GPU test-machine side of run 57 (seventeenth session): Vulkan's slow spells against the
# harness's warm-up. Run 56's clock sampler saw the SM at 345 MHz in a third of its samples while
# Vulkan ran (never while CUDA ran); the harness timed after 5 launches, right after the host's
# reference check, during which the GPU idles. The harness now warms up for about 0.1 s of device
# time first (bench/BenchRun.cpp). Two rounds alternating the previous harness
# (.gpu-bench/bin/tessera-bench-aot) and this one (tessera-bench-aot-warm), Vulkan, fast softmax
# 4096 x 16384, layernorm 4096 x 8192 and add at 2^28 (1 GiB buffers), the SM and memory clocks,
# P-state and power sampled every 100 ms during each; then the same through CUDA once, sampled too.
# Everything goes into $OUT/run57.tgz. Here: run 56's staging plus
# cp build/bin/tessera-bench-aot .gpu-bench/bin/tessera-bench-aot-warm. Carry .gpu and .gpu-bench.
final=${OUT:-gpu-out}; export OUT=$(mktemp -d)
source scripts/gpu-setup.sh gpu-run57.log; B=.gpu-bench
# The Vulkan pipeline caches come back too (the driver's compiled code, to look for its machine code).
export TESSERA_CACHE_DIR=$OUT/tcache
for round in 1 2; do
  for work in "softmax f32 4096x16384" "layernorm f16 4096x8192" "add f32 n=2^28"; do
    for bin in tessera-bench-aot tessera-bench-aot-warm; do
      echo "== $(date -u +%T) round $round: vulkan $work, $bin"
      nvidia-smi --query-gpu=clocks.sm,clocks.mem,pstate,power.draw --format=csv,noheader -lms 100 > "$OUT/clk.csv" 2>/dev/null &
      sampler=$!
      TESSERA_BACKEND=vulkan $B/bin/$bin --packages=$B/pkgs --mode=fast --filter="$work" | grep -E "^(softmax|layernorm|add)"
      kill $sampler 2>/dev/null; wait $sampler 2>/dev/null
      echo "   clock samples (SM, memory, P-state, power): $(cut -d, -f1-3 "$OUT/clk.csv" | sort | uniq -c | sort -rn | head -4 | tr -s ' ' | tr '\n' ';')"
      cp "$OUT/clk.csv" "$OUT/clk-r$round-${work%% *}-$bin.csv"
    done
  done
  tar czf "$final/run57.tgz" -C "$OUT" .
done
for work in "softmax f32 4096x16384" "add f32 n=2^28"; do
  echo "== $(date -u +%T) cuda $work, tessera-bench-aot-warm"
  nvidia-smi --query-gpu=clocks.sm,clocks.mem,pstate,power.draw --format=csv,noheader -lms 100 > "$OUT/clk.csv" 2>/dev/null &
  sampler=$!
  TESSERA_BACKEND=cuda $B/bin/tessera-bench-aot-warm --packages=$B/pkgs --mode=fast --filter="$work" | grep -E "^(softmax|add)"
  kill $sampler 2>/dev/null; wait $sampler 2>/dev/null
  echo "   clock samples (SM, memory, P-state, power): $(cut -d, -f1-3 "$OUT/clk.csv" | sort | uniq -c | sort -rn | head -4 | tr -s ' ' | tr '\n' ';')"
done
echo "== $(date -u +%T) vulkan and cuda, both modes, 4096 x 4096 (for the pipeline cache)"
for be in vulkan cuda; do
  TESSERA_BACKEND=$be $B/bin/tessera-bench-aot-warm --packages=$B/pkgs --filter=4096x4096 | grep -E "^(softmax|layernorm)"
done
cp -r ~/.cache/nvidia "$OUT/nvcache" 2>/dev/null; ls -laR "$OUT/tcache" "$OUT/nvcache" 2>/dev/null | head -30
echo "== $(date -u +%T) done"
tar czf "$final/run57.tgz" -C "$OUT" .
