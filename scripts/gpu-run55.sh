#!/usr/bin/env bash
# GPU test-machine side of run 55 (seventeenth session), after run 54 (the occupancy retry changed
# nothing: CU_JIT_MAX_REGISTERS does not bind an entry with .maxntid; it now adds a .maxnreg
# directive). Whole-tile reductions now finish in one subgroup (each lane reads its own slots from
# shared memory, XOR shuffles combine the lanes) instead of every thread reading every slot:
# ptxas 13 on the build machine gives fast softmax 4096 x 16384 on 16 warps 55 registers (71
# before), portable layernorm 4096 x 8192 40 (48), portable softmax 16384 plain 64 (78). Two
# rounds alternating the session's start packages (.gpu-bench/old) and this session's
# (.gpu-bench/pkgs), CUDA then Vulkan, fast and portable where the code changed; the old fast
# softmax 16384 also with TESSERA_OCCUPANCY_RETRY=0 (the retry's own effect, now on 71
# registers). Then the full benchmark (scripts/gpu-bench.sh, without ncu: it checks every size in
# both modes through both backends, ragged layernorm 4096 x 1000 included, and times the anchors).
# Everything goes into $OUT/run55.tgz.
# Here: the old packages from the previous commit's compiler (tessera-bench --compile-only
# --subgroups=32 --write-packages=.gpu-bench/old, plus --mode=fast --filter=4096x16384 --warps=32),
# then bash scripts/stage-gpu-bench.sh (which empties .gpu-bench: old packages go in after it),
# plus the --warps=32 and --warps=8 extras of gpu-run54.sh. Carry .gpu and .gpu-bench.
final=${OUT:-gpu-out}; export OUT=$(mktemp -d)
source scripts/gpu-setup.sh gpu-run55.log; B=.gpu-bench
configs=("softmax f32 4096x16384:16:fast" "softmax f32 4096x16384:16:portable" "layernorm f16 4096x8192:16:portable"
  "layernorm f16 4096x8192:16:fast" "softmax f32 4096x1024:4:portable" "layernorm f16 4096x4096:8:portable")
for round in 1 2; do
  for backend in cuda vulkan; do
    for c in "${configs[@]}"; do
      IFS=: read work warps mode <<< "$c"
      for dir in old pkgs; do
        echo "== $(date -u +%T) round $round: $backend $work, $warps warps, $mode, packages $dir"
        TESSERA_BACKEND=$backend $B/bin/tessera-bench-aot --packages=$B/$dir --mode=$mode --filter="$work" \
          --warps=$warps | grep -E "^(softmax|layernorm)|machine code"
      done
    done
  done
  echo "== $(date -u +%T) round $round: cuda softmax f32 4096x16384 fast, old packages, TESSERA_OCCUPANCY_RETRY=0"
  TESSERA_OCCUPANCY_RETRY=0 TESSERA_BACKEND=cuda $B/bin/tessera-bench-aot --packages=$B/old --mode=fast \
    --filter="softmax f32 4096x16384" --warps=16 | grep -E "^softmax|machine code"
done
tar czf "$final/run55-rounds.tgz" -C "$OUT" .   # kept if the call ends early
echo "== $(date -u +%T) the full benchmark"
TESSERA_NCU=0 bash scripts/gpu-bench.sh || status=1
echo "== $(date -u +%T) done, status $status"
tar czf "$final/run55.tgz" -C "$OUT" .
