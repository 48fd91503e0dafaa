#!/usr/bin/env bash
# GPU test-machine side of run 62 (nineteenth session): Vulkan matmul with the loads of A and B
# issued one k step ahead (--stages=2, tile-pipeline-loads: register prefetch) against the same
# block shapes without, f16 on cooperative matrices in mma.sync's lanes and f32 on the FMA path.
# First the driver's register counts, then ragged checks of every prefetching shape, then 4096^3
# in two rounds, each shape s1 then s2, and cuBLAS in the same call.
# Here: packages by 05_matmul 16 16 16 --dtype=f16|f32 --act=none --config=C --stages=1|2
# --write-package=.gpu-stage/pkgs/r62/ (the list below); .gpu-stage/bin holds 05_matmul_aot and
# tessera, .gpu-stage/lib the runtime. Carry .gpu .gpu-stage.
source scripts/gpu-setup.sh gpu-run62.log; S=.gpu-stage; P=$S/pkgs/r62
export LD_LIBRARY_PATH=$PWD/$S/lib:$LD_LIBRARY_PATH
F16="128x256x32/16 128x128x32/8 256x128x32/8 128x256x16/16 128x128x64/8 128x128x32/4 64x256x32/8 128x64x32/4"
F32="128x128x16/8 128x128x32/8"
echo "== driver's statistics"
for f in $P/*.tspkg; do echo "$(basename $f)"; TESSERA_BACKEND=vulkan $S/bin/tessera kernels $f 2>&1 | grep -E "matmul:|Register Count|Stack Size|Local|Spill" ; done
m() { TESSERA_BACKEND=vulkan timeout 60 $S/bin/05_matmul_aot "$@" --package-dir=$P 2>&1 | grep -v "matrix units"; }
echo "== $(date -u +%T) ragged checks"
for c in $F16; do m 333 517 200 --dtype=f16 --act=none --config=$c --stages=2; done
for c in $F32; do m 333 517 200 --dtype=f32 --act=none --config=$c --stages=2; done
for round in 1 2; do
  echo "== $(date -u +%T) round $round"
  for c in $F16; do for s in 1 2; do echo "-- f16 $c s$s"; m 4096 4096 4096 --dtype=f16 --act=none --config=$c --stages=$s --repeat=20; done; done
  for c in $F32; do for s in 1 2; do echo "-- f32 $c s$s"; m 4096 4096 4096 --dtype=f32 --act=none --config=$c --stages=$s --repeat=10; done; done
done
echo "== $(date -u +%T) anchors"
python3 bench/dot_anchors.py
echo "== $(date -u +%T) done"
