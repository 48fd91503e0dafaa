#!/usr/bin/env bash
# GPU test-machine side of run 20: where the Vulkan cooperative-matrix matmul spends its time, and
# more block shapes (16 warps, 4 warps, register prefetch). Packages .gpu-stage/pkgs/coop3/full
# (05_matmul 16 16 16 --dtype=f16 --act=none --config=C [--stages=2] --write-package=DIR), and from a
# build with two switches removed after this run: nostage (A and B not staged: no loads from the
# buffers, every product from unwritten shared memory) and stageonly (loads and staging as usual,
# one 16 x 16 product per dot), timed with a 05_matmul_aot whose check was told not to stop
# (TESSERA_EXP_NOCHECK, also removed); carry .gpu .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs/coop3.
source scripts/gpu-setup.sh gpu-coop-run20.log; S=.gpu-stage; P=$S/pkgs/coop3
export TESSERA_BACKEND=vulkan
m() { local d=$1; shift; timeout 60 $S/bin/05_matmul_aot "$@" --package-dir=$P/$d 2>&1 | grep -v "matrix units" | grep -v "^05_matmul: c\["; }
for c in 256x128x32/8 128x128x32/8; do
  for i in 1 2; do
    m full 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=$c
    TESSERA_EXP_NOCHECK=1 m nostage 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=$c
    TESSERA_EXP_NOCHECK=1 m stageonly 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=$c
  done
done
for c in 256x128x32/16 128x256x32/16 256x256x32/16 128x128x32/4 64x256x32/4 256x64x32/4; do
  m full 1000 1000 1000 --dtype=f16 --act=none --config=$c
  m full 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=$c
done
m full 1000 1000 1000 --dtype=f16 --act=none --config=256x128x32/8 --stages=2
m full 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=256x128x32/8 --stages=2
$S/bin/tessera kernels $P/full/matmul_f16_none_fast_{256x128x32w16,256x256x32w16,128x128x32w4}.tspkg $P/nostage/matmul_f16_none_fast_256x128x32w8.tspkg $P/stageonly/matmul_f16_none_fast_256x128x32w8.tspkg
echo "== $(date -u +%T) done"
