#!/usr/bin/env bash
# Build machine side of run 69 (scripts/runs/gpu-run69.sh): the workgroup-scope cooperative-matrix probe
# (bench/WgMatrixProbe.cpp), this build's runtime beside it, and the SPIR-V modules it times
# (bench/wgmatrix/gen_wg_matmul.py), in .gpu-stage/bin/wg/ (carried with .gpu-stage/bin).
set -euo pipefail
cd "$(dirname "$0")/../.."
ninja -C build -j "${TESSERA_JOBS:-2}" tessera-wgmatrix-probe
W=.gpu-stage/bin/wg
rm -rf "$W"; mkdir -p "$W/lib" "$W/spv"
cp build/bin/tessera-wgmatrix-probe "$W/"
cp -L build/lib/libtessera_runtime.so "$W/lib/"
gen() { # M N K BM BN BK WG OUT [--bf16] [--prefetch]
  local name="mm_$1x$2x$3_$4x$5x$6_w$7_$8$(echo "${@:9}" | tr -d ' -')"
  python3 bench/wgmatrix/gen_wg_matmul.py "$@" > "$W/spv/$name.mlir"
  /usr/lib/llvm-22/bin/mlir-translate --no-implicit-module --serialize-spirv "$W/spv/$name.mlir" -o "$W/spv/$name.spv"
}
gen 4096 4096 4096 128 256 32 256 f16
gen 4096 4096 4096 128 256 64 256 f16
gen 4096 4096 4096 256 128 32 256 f16
gen 4096 4096 4096 128 128 32 128 f16
gen 4096 4096 4096 128 128 64 256 f16
gen 4096 4096 4096 64 256 32 128 f16
gen 4096 4096 4096 128 256 32 256 f32
gen 8192 8192 8192 128 256 32 256 f16
gen 8192 8192 8192 128 256 64 256 f16
# Run 69b: loads a step ahead, bf16, other blocks.
gen 4096 4096 4096 128 256 64 256 f16 --prefetch
gen 4096 4096 4096 128 256 32 256 f16 --prefetch
gen 4096 4096 4096 256 128 64 256 f16
gen 4096 4096 4096 256 128 32 256 f16 --prefetch
gen 4096 4096 4096 128 256 64 256 f16 --bf16
gen 4096 4096 4096 128 128 64 128 f16
gen 4096 4096 4096 64 256 64 128 f16
gen 4096 4096 4096 128 256 128 256 f16
gen 8192 8192 8192 256 128 64 256 f16
# Run 72: what separates the compiled kernels from these (sizes from push constants, rounded to
# multiples of 8, the GLSL450 memory model).
gen 4096 4096 4096 128 256 64 256 f16 --push-sizes
gen 4096 4096 4096 128 256 64 256 f16 --push-sizes --align
gen 4096 4096 4096 128 256 64 256 f16 --glsl450
gen 4096 4096 4096 128 256 64 256 f16 --push-sizes --align --glsl450
gen 4096 4096 4096 128 256 64 256 f16 --bias
gen 4096 4096 4096 128 256 64 256 f16 --push-sizes --align --glsl450 --bias
gen 4096 4096 4096 128 256 64 256 f16 --guard
gen 4096 4096 4096 128 256 64 256 f16 --push-sizes --align --glsl450 --bias --guard
# Run 75: 05_matmul's grouped program order on one row of programs; and every form the compiled
# kernel has, together.
gen 4096 4096 4096 128 256 64 256 f16 --grouped
gen 4096 4096 4096 128 256 64 256 f16 --push-sizes --align --glsl450 --bias --guard --grouped
ls "$W/spv"
