#!/usr/bin/env bash
# GPU test-machine side of run 56 (seventeenth session), after run 55: the portable exp and exp2
# as committed (one rounded product x log2 e, a polynomial of degree 9, 2^k from the bits of the
# rounding sum instead of a float-to-integer conversion, the clamp in f32: 24 f64 operations and
# 2 conversions an element where run 55's packages had 30 and 3). Two rounds alternating, CUDA,
# portable softmax at 1024, 4096 and 16384 columns: run 55's packages without the new exp
# (.gpu-bench/old), run 55's first exp (.gpu-bench/exp: the conversion and the f64 clamp still
# in) and this commit's (.gpu-bench/pkgs). Then the full benchmark (scripts/gpu-bench.sh without
# ncu) for the table. Everything goes into $OUT/run56.tgz.
# Here: run 55's .gpu-bench/pkgs and .gpu-bench/exp kept aside, bash scripts/stage-gpu-bench.sh,
# then those copied back as .gpu-bench/old and .gpu-bench/exp. Carry .gpu and .gpu-bench.
final=${OUT:-gpu-out}; export OUT=$(mktemp -d)
source scripts/gpu-setup.sh gpu-run56.log; B=.gpu-bench
configs=("softmax f32 4096x1024:4" "softmax f32 4096x4096:8" "softmax f32 4096x16384:16")
for round in 1 2; do
  for c in "${configs[@]}"; do
    IFS=: read work warps <<< "$c"
    for dir in old exp pkgs; do
      echo "== $(date -u +%T) round $round: cuda $work, $warps warps, portable, packages $dir"
      TESSERA_BACKEND=cuda $B/bin/tessera-bench-aot --packages=$B/$dir --mode=portable --filter="$work" \
        --warps=$warps | grep -E "^softmax"
    done
  done
done
tar czf "$final/run56-rounds.tgz" -C "$OUT" .   # kept if the call ends early
echo "== $(date -u +%T) the full benchmark"
TESSERA_NCU=0 bash scripts/gpu-bench.sh || status=1
echo "== $(date -u +%T) done, status $status"
tar czf "$final/run56.tgz" -C "$OUT" .
