#!/usr/bin/env bash
# GPU test-machine side (after scripts/stage-gpu.sh here and carrying .gpu and .gpu-stage):
# brings up the NVIDIA Vulkan driver, then runs `tessera devices`, the vector-add example
# through CUDA and through Vulkan at every conformance size, the conformance suite and the
# runtime tests. Logs go to $OUT (or ./gpu-out).
set -u
S=.gpu-stage
source "$(dirname "$0")/gpu-setup.sh" gpu-run.log
echo "== tessera devices"
$S/bin/tessera devices || status=1
$S/bin/tessera devices --json > "$out/devices.json" || status=1
for backend in cuda vulkan; do
  echo "== 01_vector_add, TESSERA_BACKEND=$backend"
  for n in 0 1 1023 1024 1025 16777219 268435456; do
    for b in 128 1024; do
      TESSERA_BACKEND=$backend $S/bin/01_vector_add_aot $n --block=$b --package-dir=$S/pkgs/example || status=1
    done
  done
done
for backend in cuda vulkan; do
  echo "== examples 02-04, TESSERA_BACKEND=$backend"
  for size in "1 1" "7 1000" "64 1024" "33 3001" "4 16384" "4096 1024"; do
    TESSERA_BACKEND=$backend $S/bin/02_fused_softmax_aot $size --package-dir=$S/pkgs/example || status=1
  done
  for size in "1 7" "16 1000" "64 4096" "5 3000"; do
    TESSERA_BACKEND=$backend $S/bin/03_layernorm_aot $size --package-dir=$S/pkgs/example || status=1
  done
  for size in "1 1" "100 300" "257 1000" "4096 4096"; do
    TESSERA_BACKEND=$backend $S/bin/04_fused_elementwise_aot $size --package-dir=$S/pkgs/example || status=1
  done
done
out="$out" bash "$(dirname "$0")/gpu-dot.sh" || status=1
echo "== tessera-op-tests-aot (every op x dtype, both backends)"
$S/bin/tessera-op-tests-aot --packages=$S/pkgs/conformance || status=1
echo "== tessera-conformance-suite-aot --quick (numerics: interpreter goldens from the build machine)"
$S/bin/tessera-conformance-suite-aot --quick --goldens=$S/goldens --json="$out/suite.json" --html="$out/suite.html" \
  > "$out/suite.log" 2>&1 || status=1
grep -v '^[0-9]*/[0-9]* (' "$out/suite.log"
echo "== the same with contraction left on in portable mode (TESSERA_FAULT=contraction): must FAIL on CUDA"
$S/bin/tessera-conformance-suite-aot --quick --mode=portable --filter=basic --goldens=$S/goldens-fault \
  > "$out/suite-fault.log" 2>&1 && { echo "the broken lowering went unnoticed"; status=1; }
grep -E "FAIL|ALL PASS|FAILED" "$out/suite-fault.log" | head -8
echo "== tessera-conformance-aot"
$S/bin/tessera-conformance-aot --packages=$S/pkgs/conformance || status=1
echo "== tessera-runtime-tests"
TESSERA_TEST_NO_LAVAPIPE=1 $S/bin/tessera-runtime-tests > "$out/runtime-tests.log" 2>&1 || status=1
grep -E -A6 "ERROR|FATAL" "$out/runtime-tests.log" | head -40
tail -4 "$out/runtime-tests.log"
echo "== exit status $status"
exit $status
