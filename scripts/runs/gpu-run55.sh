#!/usr/bin/env bash
# GPU test-machine side of run 55 (seventeenth session), after run 54 (the occupancy retry changed
# nothing: CU_JIT_MAX_REGISTERS does not bind an entry with .maxntid; it now adds a .maxnreg
# directive). Whole-tile reductions now finish in one subgroup (each lane reads its own slots from
# shared memory, XOR shuffles combine the lanes) instead of every thread reading every slot:
# ptxas 13 on the build machine gives fast softmax 4096 x 16384 on 16 warps 55 registers (71
# before), portable layernorm 4096 x 8192 40 (48), portable softmax 16384 plain 64 (78). Two
# rounds (Vulkan in the first only) alternating the session's start packages (.gpu-bench/old) and this session's
# (.gpu-bench/pkgs), CUDA then Vulkan, fast and portable where the code changed; the old fast
# softmax 16384 also with TESSERA_OCCUPANCY_RETRY=0 (the retry's own effect, now on 71
# registers). Portable softmax also from .gpu-bench/exp: exp expanded with one rounded product x log2 e and
# a polynomial of degree 9 instead of 11 (24 f64 operations an element instead of 30; not
# committed when this was staged). Then the full benchmark (scripts/gpu-bench.sh, without ncu: it checks every size in
# both modes through both backends, ragged layernorm 4096 x 1000 included, and times the anchors).
# Everything goes into $OUT/run55.tgz.
# Here: tessera-bench --compile-only --subgroups=32 --mode=portable --filter=softmax
# --write-packages=.gpu-bench/exp with that exp; the old packages from the previous commit's compiler (tessera-bench --compile-only
# --subgroups=32 --write-packages=.gpu-bench/old, plus --mode=fast --filter=4096x16384 --warps=32),
# then bash scripts/stage-gpu-bench.sh (which empties .gpu-bench: old packages go in after it),
# plus the --warps=32 and --warps=8 extras of gpu-run54.sh. Carry .gpu and .gpu-bench.
final=${OUT:-gpu-out}; export OUT=$(mktemp -d)
source scripts/gpu-setup.sh gpu-run55.log; B=.gpu-bench
configs=("softmax f32 4096x16384:16:fast" "softmax f32 4096x16384:16:portable" "layernorm f16 4096x8192:16:portable"
  "layernorm f16 4096x8192:16:fast" "softmax f32 4096x1024:4:portable" "layernorm f16 4096x4096:8:portable")
for round in 1 2; do
  backends="cuda vulkan"; [ $round = 2 ] && backends=cuda   # (Vulkan once: the device time is short)
  for backend in $backends; do
    for c in "${configs[@]}"; do
      IFS=: read work warps mode <<< "$c"
      case "$mode:$work" in portable:softmax*) dirs="old pkgs exp" ;; *) dirs="old pkgs" ;; esac
      for dir in $dirs; do
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
# Where portable softmax 4096 x 16384's time goes (CUDA, this session's packages): the pipes'
# utilization (the f64 exponentials and correctly rounded divisions) and the warps' stalls.
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
if [ -n "$ncu" ]; then
  echo "== $(date -u +%T) ncu: portable softmax f32 4096x16384 (cuda)"
  TESSERA_BACKEND=cuda timeout 90 "$ncu" --launch-skip 3 --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis \
    --section InstructionStats --section WarpStateStats --section Occupancy --metrics \
    sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active \
    $B/bin/tessera-bench-aot --packages=$B/pkgs --filter="softmax f32 4096x16384" --mode=portable --warps=16 --rotate-mib=64 \
    > "$OUT/ncu-portable-softmax.txt" 2>&1 || echo "ncu failed (see the file)"
  grep -E "Duration|Memory Throughput|Pipe|pipe|Issue Slot|Achieved Occupancy|Registers Per|Stall|Executed Ipc" "$OUT/ncu-portable-softmax.txt" | head -40
fi
echo "== $(date -u +%T) the full benchmark"
TESSERA_NCU=0 bash scripts/gpu-bench.sh || status=1
echo "== $(date -u +%T) done, status $status"
tar czf "$final/run55.tgz" -C "$OUT" .
