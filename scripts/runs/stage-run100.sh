#!/usr/bin/env bash
# Build machine side of run 100 (thirtieth session, scripts/runs/gpu-run100.sh): the f32 matmul's
# FMA path at more block shapes through both backends, each k step one block (this build's
# defaults: fma-unroll 32 on NVPTX, 16 on SPIR-V for 32-lane subgroups).
#   d    the defaults (CUDA: run 99's six shapes and the default 128x256x32/8; Vulkan: 128
#        accumulators a thread, 32-deep k steps, loads a step ahead with s2)
#   u32  TESSERA_FMA_UNROLL=32 (Vulkan's 32-deep k steps in one block)
#   sa   TESSERA_FMA_VECTOR_A=0 (SPIR-V's transposed A staged and read a value at a time, as
#        before this session's fma-vector-a)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/stage-setup.sh 100 "05_matmul" d u32 sa
w() { local dir=$1; shift; build/bin/05_matmul 16 16 16 --dtype=f32 --act=none "$@" --write-package="$W/$dir/" --ptx-chips=sm_90 > /dev/null 2>&1 || true; }
for c in 128x256x32/8 256x128x32/8 128x128x32/4 128x128x32/8 64x256x32/8 256x128x16/8 \
         64x256x16/8 128x128x16/8 128x256x16/8 128x128x16/4 64x128x16/4 64x128x32/4; do
  w d --config=$c
done
for c in 64x256x16/8 128x256x16/8 128x128x16/4; do w d --config=$c --stages=2; done
export TESSERA_FMA_UNROLL=32
for c in 64x256x32/8 128x128x32/8 64x128x32/4; do w u32 --config=$c; done
unset TESSERA_FMA_UNROLL
export TESSERA_FMA_VECTOR_A=0
for c in 64x256x16/8 128x256x16/8 128x128x16/8 64x256x32/8; do w sa --config=$c; done
unset TESSERA_FMA_VECTOR_A
ls "$W"/d "$W"/u32 "$W"/sa; du -sh "$W"
