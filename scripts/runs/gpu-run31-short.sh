#!/usr/bin/env bash
# Run 31, short form (the session had about 200 s of device time left): what CI cannot check
# first, then the before/after timings. Op tests through CUDA (fast-mode PTX now contracts a*b+c),
# the fast row kernels without `contract` (.gpu-stage/pkgs/r31-nc) and with it (r31-rows)
# through CUDA, the wgmma matmul and attention with run 28's packages (.gpu-stage/pkgs/r28) and
# this session's (r31), then the whole harness through Vulkan (launch overhead with batches,
# portable mode with the new software denormals). Staged and carried as scripts/runs/gpu-run31.sh says.
source scripts/gpu-setup.sh gpu-run31-short.log; S=.gpu-stage; B=.gpu-bench
echo "== op tests, cuda"
TESSERA_BACKEND=cuda timeout 60 $S/bin/tessera-op-tests-aot --packages=$S/pkgs/r31-optests 2>&1 | tail -2
for p in r31-nc r31-rows r31-nc r31-rows; do
  echo "== cuda, fast row kernels, $p"
  TESSERA_BACKEND=cuda $B/bin/tessera-bench-aot --packages=$S/pkgs/$p --mode=fast --filter=softmax 2>&1 | grep -E '^softmax'
  TESSERA_BACKEND=cuda $B/bin/tessera-bench-aot --packages=$S/pkgs/$p --mode=fast --filter=layernorm 2>&1 | grep -E '^layernorm'
done
m() { local be=$1 p=$2; shift 2; TESSERA_BACKEND=$be timeout 60 $S/bin/05_matmul_aot "$@" --package-dir=$S/pkgs/$p 2>&1 | grep -v "matrix units"; }
fa() { local be=$1 p=$2; shift 2; TESSERA_BACKEND=$be timeout 90 $S/bin/06_flash_attention_aot "$@" --package-dir=$S/pkgs/$p 2>&1 | grep -v "matrix units"; }
m cuda r31 333 517 200 --dtype=f16 --act=gelu; fa cuda r31 2 1 333 128 --dtype=f16 --blocks=64x32 --causal
for p in r28 r31 r28 r31; do
  echo "== cuda, packages $p"
  m cuda $p 4096 4096 4096 --dtype=f16 --act=none --repeat=20
  fa cuda $p 4 32 4096 128 --dtype=f16 --blocks=64x32 --repeat=3
done
echo "== tessera-bench-aot, vulkan"
TESSERA_BACKEND=vulkan $B/bin/tessera-bench-aot --packages=$B/pkgs --json="$out/bench-vulkan.json"
echo "== $(date -u +%T) done"
