#!/usr/bin/env bash
# GPU test-machine side of run 58 (eighteenth session): Vulkan's large buffers. Run 57 found the
# slow spells per allocation, not per clock: the SM and memory clocks stayed at 1980 / 2619 MHz
# (P0) through slow and fast processes alike. Here each process allocates the vector add's 1 GiB
# buffers four times in turn (--add-sizes=2^28 x 4, one set each), under each of the runtime's
# placements (TESSERA_VULKAN_ALLOCATION=dedicated|plain|stagger, runtime/drivers/vulkan/
# VulkanBuffer.cpp), two processes each, then softmax 4096 x 16384 once a placement. Then the
# software f32 denormals (what the NVIDIA Vulkan driver runs portable kernels with): run 56's
# packages (.gpu-bench/pkgs, every operation in f64) against this build's (.gpu-bench/pnew, each
# operation native with an f64 branch only where a flushing driver may be wrong), two rounds,
# both modes for the new ones (portable / fast in one process).
# Here: the staging of run 57 with this build's runtime and harness (.gpu-bench/lib,
# .gpu-bench/bin/tessera-bench-aot-warm), and build/bin/tessera-bench --compile-only
# --write-packages=.gpu-bench/pnew --subgroups=32. Carry .gpu and .gpu-bench. Everything in
# $OUT/run58.tgz.
final=${OUT:-gpu-out}; export OUT=$(mktemp -d)
source scripts/gpu-setup.sh gpu-run58.log; B=.gpu-bench
for round in 1 2; do
  for p in dedicated plain stagger; do
    echo "== $(date -u +%T) round $round: vulkan add 2^28 x 4, placement $p"
    TESSERA_VULKAN_ALLOCATION=$p TESSERA_BACKEND=vulkan $B/bin/tessera-bench-aot-warm --packages=$B/pkgs --mode=fast \
      --filter=add --add-sizes=2^28,2^28,2^28,2^28 --rotate-mib=1 | grep -E "^add"
  done
  tar czf "$final/run58.tgz" -C "$OUT" .
done
for p in dedicated plain stagger; do
  for i in 1; do
    echo "== $(date -u +%T) vulkan softmax 4096 x 16384, placement $p, process $i"
    TESSERA_VULKAN_ALLOCATION=$p TESSERA_BACKEND=vulkan $B/bin/tessera-bench-aot-warm --packages=$B/pkgs --mode=fast \
      --filter="softmax f32 4096x16384" | grep -E "^softmax"
  done
done
tar czf "$final/run58.tgz" -C "$OUT" .
for round in 1 2; do
  echo "== $(date -u +%T) round $round: vulkan portable, run 56's software denormals"
  TESSERA_BACKEND=vulkan $B/bin/tessera-bench-aot-warm --packages=$B/pkgs --mode=portable --filter=4096x | grep -E "^(softmax|layernorm)"
  echo "== $(date -u +%T) round $round: vulkan both modes, this build's software denormals"
  TESSERA_BACKEND=vulkan $B/bin/tessera-bench-aot-warm --packages=$B/pnew --filter=4096x --json=$OUT/soft-new-r$round.json | grep -E "^(softmax|layernorm|    machine)"
  tar czf "$final/run58.tgz" -C "$OUT" .
done
echo "== $(date -u +%T) done"
tar czf "$final/run58.tgz" -C "$OUT" .
