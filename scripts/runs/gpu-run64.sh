#!/usr/bin/env bash
# GPU test-machine side of run 64 (nineteenth session). (1) Read-only buffers NonWritable (and
# not Aliased) in the SPIR-V: this commit's packages ("new": r64new at the harness's default
# warps; mm-new) against the same kernels before the change ("old": r64 at the same warps; the
# matmuls against runs 62 and 63), through Vulkan, alternating, two rounds. (2) The row kernels'
# warps per program through Vulkan: fast softmax and layernorm at 4, 8, 16 and 32 warps; portable
# softmax 4096 x 16384 and layernorm 4096 x 8192 (the software-denormal code NVIDIA's driver
# gets) at 16 and 32.
# Here: before the change, tessera-bench --compile-only --subgroups=32
# --write-packages=.gpu-stage/pkgs/r64 --warps=W --mode=fast (W = 4 8 16 32) and --mode=portable
# --filter=softmax|layernorm (W = 8 16 32); after it, the same without --warps into r64new, and
# 05_matmul 16 16 16 --act=none --dtype=f16 --config=128x256x32/16 and --dtype=f32
# --config=128x128x16/8 --write-package into mm-new. .gpu-stage/bin holds this build's
# tessera-bench-aot and 05_matmul_aot, lib/ its runtime. Carry .gpu .gpu-stage.
source scripts/gpu-setup.sh gpu-run64.log; S=.gpu-stage; P=$S/pkgs/r64
b() { local be=$1 d=$2; shift 2; TESSERA_BACKEND=$be $S/bin/tessera-bench-aot --packages=$S/pkgs/$d "$@" 2>&1 | grep -E "^(add|softmax|layernorm)"; }
m() { local d=$1; shift; TESSERA_BACKEND=vulkan timeout 60 $S/bin/05_matmul_aot "$@" --package-dir=$S/pkgs/$d 2>&1 | grep -v "matrix units"; }
echo "== $(date -u +%T) NonWritable, Vulkan"
for round in 1 2; do
  for d in mm-new; do
    echo "-- $d"; m $d 4096 4096 4096 --dtype=f16 --act=none --config=128x256x32/16 --repeat=20
    m $d 4096 4096 4096 --dtype=f32 --act=none --config=128x128x16/8 --repeat=10
  done
  echo "-- r64new (new)"; b vulkan r64new --mode=fast
  echo "-- r64 at the default warps (old)"
  b vulkan r64 --mode=fast --warps=4 --filter=x1024; b vulkan r64 --mode=fast --warps=8 --filter=x4096
  b vulkan r64 --mode=fast --warps=16 --filter=x16384; b vulkan r64 --mode=fast --warps=16 --filter=x8192
done
echo "== $(date -u +%T) warps, Vulkan"
for w in 4 8 16 32; do
  echo "-- warps=$w"; b vulkan r64 --mode=fast --warps=$w --filter=softmax; b vulkan r64 --mode=fast --warps=$w --filter=layernorm
done
echo "== $(date -u +%T) portable through Vulkan"
for w in 16 32; do echo "-- warps=$w"; b vulkan r64 --mode=portable --warps=$w --filter=x16384; b vulkan r64 --mode=portable --warps=$w --filter=x8192; done
echo "== $(date -u +%T) done"
