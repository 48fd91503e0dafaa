#!/usr/bin/env bash
# GPU test-machine side of run 59 (eighteenth session): software f32 denormals (what the NVIDIA
# Vulkan driver runs portable kernels with), run 56's packages (.gpu-bench/pkgs: every f32
# operation in f64, results kept as f64) against this build's (.gpu-bench/pnew: each operation
# native, the elements of one tile operation tested together and redone in f64 behind one
# branch, results through OpPhi), two rounds; both modes for the new ones (portable / fast in
# one process). Here: build/bin/tessera-bench --compile-only --write-packages=.gpu-bench/pnew
# --subgroups=32 on top of run 58's staging. Carry .gpu and .gpu-bench. Everything in
# $OUT/run59.tgz ($OUT/$1.tgz and log gpu-$1.log with a run name as $1: gpu-run60.sh).
run=${1:-run59}
final=${OUT:-gpu-out}; export OUT=$(mktemp -d)
source scripts/gpu-setup.sh gpu-$run.log; B=.gpu-bench
for round in 1 2; do
  echo "== $(date -u +%T) round $round: vulkan both modes, this build's software denormals"
  TESSERA_BACKEND=vulkan $B/bin/tessera-bench-aot-warm --packages=$B/pnew --filter=4096x --json=$OUT/soft-new-r$round.json | grep -E "^(softmax|layernorm|    machine)"
  tar czf "$final/$run.tgz" -C "$OUT" .
  echo "== $(date -u +%T) round $round: vulkan portable, run 56's software denormals"
  TESSERA_BACKEND=vulkan $B/bin/tessera-bench-aot-warm --packages=$B/pkgs --mode=portable --filter=4096x | grep -E "^(softmax|layernorm)"
  tar czf "$final/$run.tgz" -C "$OUT" .
done
echo "== $(date -u +%T) done"
tar czf "$final/$run.tgz" -C "$OUT" .
