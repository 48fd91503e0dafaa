#!/usr/bin/env bash
# GPU test-machine side of the dot checks (after scripts/stage-gpu.sh here; carry .gpu and
# .gpu-stage, or, to stay under the 64 MiB a call may carry, only .gpu-stage/bin, .gpu-stage/lib,
# .gpu-stage/pkgs/example and .gpu-stage/pkgs/sweep, which are all this script reads): the anchors first (PyTorch's
# matmul and SDPA), then the matmul and attention examples through CUDA and through Vulkan on
# ragged and large shapes, each checked against float64 and the large ones timed; and which
# instructions the dot lowering uses. TESSERA_DOT_BACKENDS=cuda limits it to one backend,
# TESSERA_DOT_SWEEP=0 skips the block-shape sweep. scripts/gpu-run.sh calls it too.
set -u
S=.gpu-stage
if [ -z "${out:-}" ]; then source "$(dirname "$0")/gpu-setup.sh" gpu-dot.log; fi
status=0
echo "== tessera devices --probe (matrix units after the self-test, twice: the second reads its record)"
$S/bin/tessera devices --probe | grep -E "^device|backend|matrix units|denormals" || status=1
$S/bin/tessera devices --probe | grep -E "matrix units" || status=1
echo "== anchors: PyTorch (cuBLAS) matmul (f32 without tf32) and SDPA (flash), same GPU; first, so that a time limit never cuts them"
python3 bench/dot_anchors.py || status=1
for backend in ${TESSERA_DOT_BACKENDS:-cuda vulkan}; do
  echo "== 05_matmul and 06_flash_attention, TESSERA_BACKEND=$backend"
  for run in "200 130 300 --dtype=f16 --act=gelu" "65 17 33 --dtype=bf16 --act=relu --portable" \
             "1000 1000 1000 --dtype=bf16 --act=none" "4096 4096 4096 --dtype=f16 --act=none --repeat=10" \
             "4096 4096 4096 --dtype=bf16 --act=none --repeat=10" "8192 8192 8192 --dtype=f16 --act=none --repeat=5" \
             "130 70 333 --dtype=f32 --act=gelu --portable" "4096 4096 4096 --dtype=f32 --act=none --repeat=10"; do
    TESSERA_BACKEND=$backend $S/bin/05_matmul_aot $run --package-dir=$S/pkgs/example || status=1
  done
  # The sweep of block shapes (skip it with TESSERA_DOT_SWEEP=0).
  for config in $([ "${TESSERA_DOT_SWEEP:-1}" = 0 ] || echo 64x64x32/4 64x64x64/4 128x64x32/8 64x128x32/4 128x64x32/4 64x64x128/4 128x128x32/8 128x128x64/8 128x128x32/4 128x256x32/8 256x128x32/8 128x128x32/16 256x128x32/16 128x256x32/16 256x128x64/16); do
    TESSERA_BACKEND=$backend $S/bin/05_matmul_aot 4096 4096 4096 --dtype=f16 --act=none --repeat=10 --config=$config \
      --package-dir=$S/pkgs/sweep || status=1
  done
  # f32 on the FMA path (no tf32), in bigger blocks.
  for config in $([ "${TESSERA_DOT_SWEEP:-1}" = 0 ] || echo 128x128x16/8 128x128x32/8 128x64x16/4 128x64x32/4 64x128x32/4); do
    TESSERA_BACKEND=$backend $S/bin/05_matmul_aot 4096 4096 4096 --dtype=f32 --act=none --repeat=10 --config=$config \
      --package-dir=$S/pkgs/example || status=1
  done
  # Loads of the next k step issued before this step's dot (numStages = 2).
  for config in $([ "${TESSERA_DOT_SWEEP:-1}" = 0 ] || echo 64x64x32/4 128x64x32/4); do
    TESSERA_BACKEND=$backend $S/bin/05_matmul_aot 4096 4096 4096 --dtype=f16 --act=none --repeat=10 --config=$config \
      --stages=2 --package-dir=$S/pkgs/sweep || status=1
  done
  # The same through Vulkan with cooperative matrices turned off (the FMA path), for comparison.
  if [ "$backend" = vulkan ]; then
    for config in 64x64x32/4 $([ "${TESSERA_DOT_SWEEP:-1}" = 0 ] || echo 128x64x32/8 64x128x32/4 128x64x32/4); do
      TESSERA_COOPMAT=0 TESSERA_BACKEND=$backend $S/bin/05_matmul_aot 4096 4096 4096 --dtype=f16 --act=none --repeat=10 \
        --config=$config --package-dir=$S/pkgs/$([ $config = 64x64x32/4 ] && echo example || echo sweep) || status=1
    done
  fi
  for run in "1 2 100 64 --dtype=f16" "2 1 333 128 --dtype=f16 --causal" "1 4 512 64 --dtype=bf16 --causal" \
             "1 2 77 128 --dtype=bf16 --portable" "4 32 4096 128 --dtype=f16 --repeat=5" \
             "4 32 4096 128 --dtype=f16 --causal --repeat=5" "4 32 4096 128 --dtype=f16 --repeat=5 --stages=2"; do
    TESSERA_BACKEND=$backend $S/bin/06_flash_attention_aot $run --package-dir=$S/pkgs/example || status=1
  done
done
echo "== the matmul kernels' machine code as the drivers report it (tessera kernels: registers, spills)"
for backend in ${TESSERA_DOT_BACKENDS:-cuda vulkan}; do
  for coop in 1 $([ "$backend" = vulkan ] && echo 0); do
    echo "-- TESSERA_BACKEND=$backend TESSERA_COOPMAT=$coop"
    TESSERA_COOPMAT=$coop TESSERA_BACKEND=$backend $S/bin/tessera kernels \
      $S/pkgs/example/matmul_f16_none_fast_64x64x32w4.tspkg $S/pkgs/sweep/matmul_f16_none_fast_{128x64x32w4,64x64x128w4}.tspkg \
      || status=1
  done
done
echo "== instructions of the f16 matmul kernel's PTX (fma, mma, wgmma)"
for p in 64x64x32w4 128x256x64w8; do
  echo "-- $p (sm_90 and sm_90a code)"
  strings -n 4 $S/pkgs/example/matmul_f16_none_fast_$p.tspkg | grep -oE "fma\.rn\.f32|mma\.sync[.a-z0-9]*|wgmma[.a-z0-9]*" | sort | uniq -c
done
echo "== and of the f16 attention kernel (D 128, blocks 64 x 32)"
strings -n 4 $S/pkgs/example/attention_f16_d128_fast_64x32.tspkg | grep -oE "fma\.rn\.f32|mma\.sync[.a-z0-9]*" | sort | uniq -c
echo "== cooperative-matrix instructions in the f16 matmul package's SPIR-V (OpCooperativeMatrix*KHR words)"
python3 - $S/pkgs/example/matmul_f16_none_fast_64x64x32w4.tspkg <<'PY' || status=1
import struct, sys
data = open(sys.argv[1], "rb").read()
for name, opcode, words in (("OpCooperativeMatrixLoadKHR", 4457, 6), ("OpCooperativeMatrixMulAddKHR", 4459, 6),
                            ("OpCooperativeMatrixStoreKHR", 4458, 5)):
    print(f"{name}: {data.count(struct.pack('<I', words << 16 | opcode))}")
PY
echo "== exit status $status"
exit $status
