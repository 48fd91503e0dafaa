#!/usr/bin/env bash
# Build machine side of run 93 (twenty-eighth session, scripts/runs/gpu-run93.sh): where the f32
# matmul's FMA path loses to cuBLAS's sgemm. Makes .gpu-stage/bin/w93: 05_matmul's runtime-only
# build and its f32 packages at 64x256x16/8 (the default), the same with loads a step ahead
# (--stages=2) and 128x128x16/8, plus the default's sm_90 code assembled here (sass/, for
# cuobjdump there), and the same three with TESSERA_FMA_HALVES=1 (halves/: operands staged in two
# halves, one barrier a k step); old/ takes OLD_F32_PACKAGES' packages (the same three by commit
# 43b06e2, before A's vectors on SPIR-V).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/stage-setup.sh 93 "05_matmul" f32 halves old sass
w() { local dir=$1; shift; build/bin/"$@" --write-package="$W/$dir/" > /dev/null 2>&1 || true; }
w f32 05_matmul 16 16 16 --dtype=f32 --act=none --config=64x256x16/8
w f32 05_matmul 16 16 16 --dtype=f32 --act=none --config=64x256x16/8 --stages=2
w f32 05_matmul 16 16 16 --dtype=f32 --act=none --config=128x128x16/8
export TESSERA_FMA_HALVES=1
w halves 05_matmul 16 16 16 --dtype=f32 --act=none --config=64x256x16/8
w halves 05_matmul 16 16 16 --dtype=f32 --act=gelu --config=64x256x16/8
w halves 05_matmul 16 16 16 --dtype=f32 --act=none --config=64x256x16/8 --stages=2
w halves 05_matmul 16 16 16 --dtype=f32 --act=none --config=128x128x16/8
unset TESSERA_FMA_HALVES
[ -n "${OLD_F32_PACKAGES:-}" ] && cp "$OLD_F32_PACKAGES"/*.tspkg "$W/old/"
pkg=$W/f32/matmul_f32_none_fast_64x256x16w8.tspkg
i=$(python3 bench/package_ptx.py "$pkg" | awk '$3 == "sm_90" && $5 == "divisible=2" {print $1}')
python3 bench/package_ptx.py "$pkg" get "$i" "$W/sass/f32.ptx"
"${CUDA_HOME:-/usr/local/cuda}"/bin/ptxas -arch=sm_90 -v "$W/sass/f32.ptx" -o "$W/sass/f32.cubin"
ls -R "$W"; du -sh "$W"
