#!/usr/bin/env bash
# Build machine side of run 91 (twenty-seventh session, scripts/runs/gpu-run91.sh): the targets tables
# of issues [4/6] and [5/6] from one call with this build, and run 90's comparison (never run).
# Refills .gpu-bench (scripts/stage-gpu-bench.sh: the benchmark kernels and tessera-bench-aot)
# and makes .gpu-stage/bin/w91 with the examples' runtime-only builds and four package folders:
#   full  the examples at each backend's default blocks (CUDA sm_90a: matmul 128x256x64/8,
#         attention 128x128/8 at D 128; Vulkan: matmul 128x256x64/8 on workgroup-scope matrices
#         and 128x256x32/16 for the ragged shapes, attention 64x32, 64x64 at D 64), f32 at
#         64x256x16/8, gelu and B stored N x K too;
#   on/wf f16 and bf16 128x256x64/8 without and with TESSERA_WAIT_BEFORE_COPIES=1 (run 90);
#   col   sm_80 code alone, whose 128x256 result is stored through 64x64 blocks (run 90);
#   fma   the f32 matmul's FMA path three ways (below).
set -euo pipefail
cd "$(dirname "$0")/../.."
TESSERA_JOBS=${TESSERA_JOBS:-2} bash scripts/stage-gpu-bench.sh
source scripts/stage-setup.sh 91 "05_matmul 06_flash_attention" full on wf col fma
w() { local dir=$1; shift; build/bin/"$@" --write-package="$W/$dir/" > /dev/null 2>&1 || true; } # lavapipe refuses the large blocks after writing
for dt in f16 bf16; do
  for c in 128x256x64/8 128x256x32/16; do w full 05_matmul 16 16 16 --dtype=$dt --act=none --config=$c; done
done
for c in 128x256x64/8 128x256x32/16; do
  w full 05_matmul 16 16 16 --dtype=f16 --act=gelu --config=$c
  w full 05_matmul 16 16 16 --dtype=f16 --act=none --b-transposed --config=$c
done
w full 05_matmul 16 16 16 --dtype=f32 --act=none --config=64x256x16/8
w full 05_matmul 16 16 16 --dtype=f32 --act=none --config=64x128x16/4 # (CUDA's default since run 95)
for causal in "" --causal; do
  w full 06_flash_attention 1 1 16 128 --dtype=f16 --blocks=128x128 --warps=8 $causal
  w full 06_flash_attention 1 1 16 128 --dtype=f16 --blocks=64x32 $causal
  w full 06_flash_attention 1 1 16 64 --dtype=f16 --blocks=64x64 $causal
done
for v in on wf; do
  [ $v = wf ] && export TESSERA_WAIT_BEFORE_COPIES=1 || unset TESSERA_WAIT_BEFORE_COPIES
rm -f "$W"/on/matmul_f16_gelu_* "$W"/on/matmul_bf16_* # (only wf's are run: the call carries 64 MiB at most)
  for act in none gelu; do w $v 05_matmul 16 16 16 --dtype=f16 --act=$act --config=128x256x64/8 --ptx-chips=sm_90,sm_90a; done
  w $v 05_matmul 16 16 16 --dtype=bf16 --act=none --config=128x256x64/8 --ptx-chips=sm_90,sm_90a
done
unset TESSERA_WAIT_BEFORE_COPIES
rm -f "$W"/on/matmul_f16_gelu_* "$W"/on/matmul_bf16_* # (only wf's are run: the call carries 64 MiB at most)
w col 05_matmul 16 16 16 --dtype=f16 --act=gelu --config=128x256x64/8 --ptx-chips=sm_80
# fma: the f32 matmul (FMA path) at 64x256x16/8 as this build compiles it (fma-layout: 8 x 8 a
# thread, 16-byte shared loads), with TESSERA_FMA_LAYOUT=0 (plain), and as commit f6a6f28 compiled
# it (old: 16 x 4 a thread, the loads LLVM merged), which OLD_F32_PACKAGE names (write it with that
# commit's build: 05_matmul 16 16 16 --dtype=f32 --act=none --config=64x256x16/8 --write-package=DIR/).
mkdir -p "$W/fma/plain" "$W/fma/old"
for act in none gelu; do w fma 05_matmul 16 16 16 --dtype=f32 --act=$act --config=64x256x16/8; done
for c in 64x256x16/8 128x128x16/8 64x128x16/4 128x256x16/8; do # (the first three: run 87's fastest)
  w fma 05_matmul 16 16 16 --dtype=f32 --act=none --config=$c
  TESSERA_FMA_LAYOUT=0 w fma/plain 05_matmul 16 16 16 --dtype=f32 --act=none --config=$c
done
[ -n "${OLD_F32_PACKAGE:-}" ] && cp "$OLD_F32_PACKAGE" "$W/fma/old/matmul_f32_none_fast_64x256x16w8.tspkg"
ls "$W"/*; du -sh "$W" .gpu-bench .gpu
