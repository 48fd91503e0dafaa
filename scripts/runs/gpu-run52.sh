#!/usr/bin/env bash
# GPU test-machine side of run 52 (fifteenth session): run 51 again where it was thin (its log
# did not come back; only its JSON files). Vulkan layernorm with and without the specialized
# variant, three rounds alternating (run 51: 4096 +10%, 8192 -16% in its one round); CUDA
# layernorm 4096 x 8192 on 8 warps against the default 16, both with the variant; then the
# benchmark's full run (scripts/gpu-bench.sh: both backends and modes, the anchors, the ratio
# table, ncu). Everything goes into $OUT/run52.tgz (one file).
# Here: bash scripts/stage-gpu-bench.sh, plus tessera-bench --compile-only --subgroups=32
# --filter="layernorm f16 4096x8192" --warps=8 --mode=fast --write-packages=.gpu-bench/pkgs.
# Carry .gpu and .gpu-bench.
final=${OUT:-gpu-out}; export OUT=$(mktemp -d)
source scripts/gpu-setup.sh gpu-run52.log; B=.gpu-bench
for round in 1 2 3; do
  for spec in 1 0; do
    echo "== $(date -u +%T) round $round, TESSERA_SPECIALIZE=$spec, vulkan"
    TESSERA_SPECIALIZE=$spec TESSERA_BACKEND=vulkan $B/bin/tessera-bench-aot --packages=$B/pkgs --mode=fast \
      --filter=layernorm | grep -E "^layernorm|machine code"
  done
done
for warps in 8 16; do
  echo "== $(date -u +%T) cuda layernorm 4096x8192 on $warps warps"
  TESSERA_BACKEND=cuda $B/bin/tessera-bench-aot --packages=$B/pkgs --mode=fast --filter="layernorm f16 4096x8192" \
    --warps=$warps | grep -E "^layernorm|machine code"
done
echo "== $(date -u +%T) the full benchmark"
TESSERA_NCU=1 bash scripts/gpu-bench.sh || status=1
echo "== $(date -u +%T) done"
tar czf "$final/run52.tgz" -C "$OUT" .
