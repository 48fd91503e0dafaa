#!/usr/bin/env bash
# GPU test-machine side of run 54 (sixteenth session), after run 53: the CUDA driver's occupancy
# retry (runtime/drivers/cuda/CudaKernel.cpp: code a few registers past a step is JIT-compiled
# again under it where nothing spills and one more program fits; TESSERA_OCCUPANCY_RETRY=0 turns
# it off). Two rounds alternating, CUDA, retry on and off: softmax 4096 x 16384 fast and
# portable on 16 warps (71 and 66 registers in run 53, one program a multiprocessor); layernorm
# 4096 x 8192 fast on 16 warps (no step within reach: the retry must change nothing). Then the
# anchors (bench/anchors.py) for ratios in the same call. Everything goes into $OUT/run54.tgz.
# (Cut to this after a first call was taken back mid-run: the device time left was short.)
# Here: bash scripts/stage-gpu-bench.sh, plus tessera-bench --compile-only --subgroups=32
# --mode=fast --write-packages=.gpu-bench/pkgs with --filter=4096x16384 --warps=32 and with
# --filter=4096x8192 --warps=8. Carry .gpu and .gpu-bench.
final=${OUT:-gpu-out}; export OUT=$(mktemp -d)
source scripts/gpu-setup.sh gpu-run54.log; B=.gpu-bench
for round in 1 2; do
  for c in "softmax f32 4096x16384:16:fast" "softmax f32 4096x16384:16:portable" "layernorm f16 4096x8192:16:fast"; do
    IFS=: read work warps mode <<< "$c"
    for retry in 1 0; do
      echo "== $(date -u +%T) round $round: cuda $work, $warps warps, $mode, TESSERA_OCCUPANCY_RETRY=$retry"
      TESSERA_OCCUPANCY_RETRY=$retry TESSERA_BACKEND=cuda $B/bin/tessera-bench-aot --packages=$B/pkgs --mode=$mode \
        --filter="$work" --warps=$warps | grep -E "^(softmax|layernorm)|machine code"
    done
  done
done
tar czf "$final/run54-rounds.tgz" -C "$OUT" .   # kept if the call ends early
echo "== $(date -u +%T) anchors: PyTorch and Triton on the same GPU"
PYTHONUNBUFFERED=1 python3 bench/anchors.py "$OUT/anchors.json" || status=1
echo "== $(date -u +%T) done, status $status"
tar czf "$final/run54.tgz" -C "$OUT" .
