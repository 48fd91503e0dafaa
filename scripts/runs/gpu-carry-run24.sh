#!/usr/bin/env bash
# GPU test-machine side of run 24: Vulkan cooperative matrices carried across the k loop
# (carry-mma-matrices) and operands staged in two halves with one barrier per iteration, against
# builds without each (temporary switches TESSERA_X_NOCARRY / TESSERA_X_NOHALVES at staging time)
# and the previous session's packages. Each package is checked on ragged shapes, then timed; the
# driver's register counts first. Packages: .gpu-stage/pkgs/r24/{new,nocarry,nohalves,old}
# (05_matmul 16 16 16 --dtype=f16 --act=none --config=C / 06_flash_attention 1 1 16 128
# --blocks=64x32 [--causal] --write-package; old: run 23's). Carry .gpu .gpu-stage/bin
# .gpu-stage/lib .gpu-stage/pkgs/r24.
source scripts/gpu-setup.sh gpu-carry-run24.log; S=.gpu-stage; P=$S/pkgs/r24
python3 bench/dot_anchors.py
for d in new nocarry nohalves old; do
  for f in $P/$d/*.tspkg; do echo "$d/$(basename $f)"; TESSERA_BACKEND=vulkan $S/bin/tessera kernels $f 2>&1 | grep -E "Register Count|Stack Size|Shared Memory Size"; done
done
m() { local d=$1; shift; TESSERA_BACKEND=vulkan timeout 60 $S/bin/05_matmul_aot "$@" --package-dir=$P/$d 2>&1 | grep -v "matrix units"; }
fa() { local d=$1; shift; TESSERA_BACKEND=vulkan timeout 90 $S/bin/06_flash_attention_aot "$@" --package-dir=$P/$d 2>&1 | grep -v "matrix units"; }
m old 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=128x256x32/16
for c in 128x128x32/8 128x256x16/16 128x256x32/16 256x128x16/8 128x128x32/4 256x128x32/8 128x128x64/8; do
  m new 333 517 200 --dtype=f16 --act=none --config=$c; m new 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=$c
done
for d in nocarry nohalves; do for c in 128x128x32/8 128x256x16/16 128x256x32/16; do
  m $d 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=$c
done; done
m new 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=128x128x32/8
m new 8192 8192 8192 --dtype=f16 --act=none --repeat=5 --config=128x128x32/8
fa new 2 1 333 128 --dtype=f16 --blocks=64x32 --causal; fa new 1 2 100 128 --dtype=f16 --blocks=64x32
for d in new old nohalves; do fa $d 4 32 4096 128 --dtype=f16 --blocks=64x32 --repeat=5; done
fa new 4 32 4096 128 --dtype=f16 --blocks=64x32 --causal --repeat=5
echo "== $(date -u +%T) done"
