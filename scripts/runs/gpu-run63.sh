#!/usr/bin/env bash
# GPU test-machine side of run 63 (nineteenth session): what NVIDIA's Vulkan driver shows of its
# machine code (TESSERA_VULKAN_SHADER_IR, a switch of this run's runtime build, removed after it:
# each pipeline's internal representations, vkGetPipelineExecutableInternalRepresentationsKHR,
# written under $OUT/ir; driver 580.159.04 wrote none), and the Vulkan matmul's masks: 05_matmul's
# kernel (f16, 128 x 256 x 32 on 16 warps) as a kernel file with its masked loads ("mask", the
# example's code) and without ("nomask": the loads of A and B unmasked, valid where BM, BN and
# BK divide M, N and K).
# Here: tessera compile scripts/runs/run63-matmul.cpp [-DNOMASK] -o
# .gpu-stage/pkgs/r63/{mask,nomask}/matmul_f16_none_fast_128x256x32w16.tspkg --target=spirv
# --subgroup-size=32 --coopmat=all; rows/: the eighteenth session's bench packages
# (portable softmax 16384 / 1024, layernorm 4096, fast softmax 16384); r62's matmul packages.
# Carry .gpu .gpu-stage.
source scripts/gpu-setup.sh gpu-run63.log; S=.gpu-stage; P=$S/pkgs/r63
echo "== internal representations"
for f in $P/rows/*.tspkg $S/pkgs/r62/matmul_f16_none_fast_128x256x32w16.tspkg $S/pkgs/r62/matmul_f32_none_fast_128x128x16w8.tspkg $P/nomask/*.tspkg; do
  d=$out/ir/$(basename $(dirname $f))-$(basename $f .tspkg); mkdir -p $d
  echo "-- $f"; TESSERA_VULKAN_SHADER_IR=$d TESSERA_BACKEND=vulkan $S/bin/tessera kernels $f 2>&1 | grep -E "matmul:|softmax:|layernorm:|Register Count|Local Memory"
  ls -la $d
done
m() { local d=$1; shift; TESSERA_BACKEND=vulkan timeout 60 $S/bin/05_matmul_aot "$@" --package-dir=$P/$d 2>&1 | grep -v "matrix units"; }
echo "== $(date -u +%T) masks"
for round in 1 2; do for v in mask nomask; do echo "-- $v"; m $v 4096 4096 4096 --dtype=f16 --act=none --config=128x256x32/16 --repeat=20; done; done
echo "== $(date -u +%T) done"
