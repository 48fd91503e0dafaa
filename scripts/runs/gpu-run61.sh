#!/usr/bin/env bash
# GPU test-machine side of run 61 (eighteenth session): does the staggered placement of Vulkan
# buffers' memory (TESSERA_VULKAN_ALLOCATION=stagger) land in the fast state more often than the
# default (dedicated)? Run 58 saw 6 of 8 allocations fast with it against 3 of 8. Three rounds,
# each a process per placement allocating the vector add's 1 GiB buffers four times in turn.
# Staging as for run 60. Carry .gpu and .gpu-bench. Everything in $OUT/run61.tgz.
final=${OUT:-gpu-out}; export OUT=$(mktemp -d)
source scripts/gpu-setup.sh gpu-run61.log; B=.gpu-bench
for round in 1 2; do
  for p in stagger dedicated; do
    echo "== $(date -u +%T) round $round: vulkan add 2^28 x 4, placement $p"
    TESSERA_VULKAN_ALLOCATION=$p TESSERA_BACKEND=vulkan $B/bin/tessera-bench-aot-warm --packages=$B/pkgs --mode=fast \
      --filter=add --add-sizes=2^28,2^28,2^28,2^28 --rotate-mib=1 | grep -E "^add"
  done
  tar czf "$final/run61.tgz" -C "$OUT" .
done
echo "== $(date -u +%T) done"
tar czf "$final/run61.tgz" -C "$OUT" .
