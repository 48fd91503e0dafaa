#!/usr/bin/env bash
# GPU test-machine side of run 26: how much of the CUDA wgmma matmul's time is the issue of its
# copies. The default 128 x 256 x 64 / 8 f16 matmul (base) against the same kernel with its loads
# unmasked (nomask: no whole-run test per 16-byte copy, alignment still tested) and with constant
# strides as well (const: the copies' addresses alone). Packages: .gpu-stage/pkgs/r26/{base,
# nomask,const} (05_matmul 16 16 16 --dtype=f16 --act=none --config=128x256x64/8 --write-package,
# the last two from a temporary build of the example with TESSERA_X_NOMASK / TESSERA_X_CONST, not
# committed; both are correct only for 4096^3). Carry .gpu .gpu-stage/bin .gpu-stage/lib
# .gpu-stage/pkgs/r26.
source scripts/gpu-setup.sh gpu-copies-run26.log; S=.gpu-stage; P=$S/pkgs/r26
m() { local d=$1; shift; TESSERA_BACKEND=cuda timeout 60 $S/bin/05_matmul_aot "$@" --package-dir=$P/$d 2>&1 | grep -v "matrix units"; }
for i in 1 2; do for d in base nomask const; do
  m $d 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=128x256x64/8
done; done
m base 8192 8192 8192 --dtype=f16 --act=none --repeat=5 --config=128x256x64/8
echo "== $(date -u +%T) done"
