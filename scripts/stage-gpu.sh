#!/usr/bin/env bash
# Build machine side of a GPU test-machine run: fills the ignored folder .gpu-stage/ with the
# runtime, the runtime-only test and example binaries, and the kernel packages they load
# (compiled here: the GPU machine has no LLVM/MLIR). Carry .gpu and .gpu-stage to the machine
# and run scripts/gpu-run.sh there.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --build build -j "${TESSERA_JOBS:-$(nproc)}"
rm -rf .gpu-stage
mkdir -p .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs/example .gpu-stage/pkgs/sweep .gpu-stage/pkgs/conformance
cp build/bin/tessera build/bin/tessera-runtime-tests build/bin/01_vector_add_aot build/bin/02_fused_softmax_aot \
   build/bin/03_layernorm_aot build/bin/04_fused_elementwise_aot build/bin/tessera-conformance-aot \
   build/bin/tessera-op-tests-aot build/bin/tessera-conformance-suite-aot build/bin/05_matmul_aot \
   build/bin/06_flash_attention_aot .gpu-stage/bin/
cp -L build/lib/libtessera_runtime.so .gpu-stage/lib/
for b in 128 1024; do
  build/bin/01_vector_add 1 --block=$b --write-package=.gpu-stage/pkgs/example >/dev/null
done
for cols in 1 1000 1024 3001 16384; do
  build/bin/02_fused_softmax 1 $cols --write-package=.gpu-stage/pkgs/example >/dev/null
done
for cols in 7 1000 4096 3000; do
  build/bin/03_layernorm 1 $cols --write-package=.gpu-stage/pkgs/example >/dev/null
done
build/bin/04_fused_elementwise 1 1 --write-package=.gpu-stage/pkgs/example >/dev/null
# dot: the matmul and attention examples (scripts/gpu-dot.sh runs them).
for run in "--dtype=f16 --act=gelu" "--dtype=bf16 --act=relu --portable" "--dtype=f16 --act=none" "--dtype=bf16 --act=none" \
           "--dtype=f32 --act=none" "--dtype=f32 --act=gelu --portable"; do
  build/bin/05_matmul 16 16 16 $run --write-package=.gpu-stage/pkgs/example >/dev/null
done
# CUDA's default block shapes for f16/bf16 on the tensor cores (05_matmul's defaultConfig: sm_90's
# warpgroup units, the others' mma.sync), and the f32 shapes of the FMA path's sweep (lavapipe may
# refuse them after the package is written).
for config in 128x256x64/8 128x128x32/8; do
  for run in "--dtype=f16 --act=gelu" "--dtype=f16 --act=none" "--dtype=bf16 --act=none" "--dtype=f16 --act=gelu --b-transposed" \
             "--dtype=bf16 --act=none --b-transposed"; do
    build/bin/05_matmul 16 16 16 $run --config=$config --write-package=.gpu-stage/pkgs/example >/dev/null 2>&1 || true
  done
done
build/bin/05_matmul 16 16 16 --dtype=f16 --act=none --b-transposed --config=128x256x64/8 --write-package=.gpu-stage/pkgs/example \
  >/dev/null 2>&1 || true
test "$(ls .gpu-stage/pkgs/example/matmul_*_fast_{128x256x64w8,128x128x32w8}*.tspkg | wc -l)" -eq 11
# Vulkan's default f16 block shape where cooperative matrices keep accumulators in mma.sync's lanes
# (NVIDIA): 128 x 256 x 32 with 16 warps.
for run in "--dtype=f16 --act=none" "--dtype=f16 --act=gelu" "--dtype=f16 --act=none --b-transposed"; do
  build/bin/05_matmul 16 16 16 $run --config=128x256x32/16 --write-package=.gpu-stage/pkgs/example >/dev/null 2>&1 || true
done
test "$(ls .gpu-stage/pkgs/example/matmul_f16_*_fast_128x256x32w16*.tspkg | wc -l)" -eq 3
for config in 128x128x16/8 128x128x32/8 128x64x16/4 128x64x32/4 64x128x32/4; do
  build/bin/05_matmul 16 16 16 --dtype=f32 --act=none --config=$config --write-package=.gpu-stage/pkgs/example \
    >/dev/null 2>&1 || true
  test -f .gpu-stage/pkgs/example/matmul_f32_none_fast_${config/\//w}.tspkg
done
# Larger blocks for gpu-dot.sh's sweep, in pkgs/sweep (their FMA-path SPIR-V may not fit lavapipe's
# 32 KiB, so the run here may refuse them after writing the package).
for config in 64x64x64/4 128x64x32/8 64x128x32/4 128x64x32/4 64x64x128/4 128x128x32/8 128x128x64/8 128x128x32/4 128x256x32/8 256x128x32/8 128x128x32/16 256x128x32/16 128x256x32/16 256x128x64/16; do
  build/bin/05_matmul 16 16 16 --dtype=f16 --act=none --config=$config --write-package=.gpu-stage/pkgs/sweep \
    >/dev/null 2>&1 || true
  test -f .gpu-stage/pkgs/sweep/matmul_f16_none_fast_${config/\//w}.tspkg
done
# Hopper's warpgroup units (sm_90a code, which an sm_90 device takes) at other block shapes, and
# two shapes without sm_90a in pkgs/example-sm90 (mma.sync: the baseline of a run).
for config in 256x128x64/8 128x128x64/4; do
  for run in "--dtype=f16 --act=none" "--dtype=f16 --act=gelu" "--dtype=bf16 --act=none"; do
    build/bin/05_matmul 16 16 16 $run --config=$config --write-package=.gpu-stage/pkgs/example >/dev/null 2>&1 || true
  done
done
test "$(ls .gpu-stage/pkgs/example/matmul_*_fast_{256x128x64w8,128x128x64w4}.tspkg | wc -l)" -eq 6
mkdir -p .gpu-stage/pkgs/example-sm90
for config in 128x128x32/8 128x256x64/8; do
  build/bin/05_matmul 16 16 16 --dtype=f16 --act=none --config=$config --ptx-chips=sm_90 \
    --write-package=.gpu-stage/pkgs/example-sm90/ >/dev/null 2>&1 || true
  test -f .gpu-stage/pkgs/example-sm90/matmul_f16_none_fast_${config/\//w}.tspkg
done
# The same with the loads of the next k step issued before this step's dot (--stages=2).
for config in 64x64x32/4 128x64x32/4; do
  build/bin/05_matmul 16 16 16 --dtype=f16 --act=none --config=$config --stages=2 \
    --write-package=.gpu-stage/pkgs/sweep >/dev/null 2>&1 || true
  test -f .gpu-stage/pkgs/sweep/matmul_f16_none_fast_${config/\//w}s2.tspkg
done
# Attention: 16 x 16 blocks (Vulkan, portable) and the tensor-core blocks CUDA picks (which may not
# fit lavapipe's shared memory on the FMA path here: the package is written first).
for run in "64 --dtype=f16" "128 --dtype=f16 --causal" "64 --dtype=bf16 --causal" "128 --dtype=bf16 --portable" \
           "128 --dtype=f16"; do
  build/bin/06_flash_attention 1 1 1 $run --blocks=16x16 --write-package=.gpu-stage/pkgs/example >/dev/null
done
for run in "64 --dtype=f16 --blocks=64x64" "128 --dtype=f16 --causal --blocks=64x32" "64 --dtype=bf16 --causal --blocks=64x64" \
           "128 --dtype=f16 --blocks=64x32"; do
  build/bin/06_flash_attention 1 1 1 $run --write-package=.gpu-stage/pkgs/example >/dev/null 2>&1 || true
done
# And with the next key block loaded ahead (--stages=2), for the timing.
for blocks in 64x32 16x16; do
  build/bin/06_flash_attention 1 1 1 128 --dtype=f16 --blocks=$blocks --stages=2 --write-package=.gpu-stage/pkgs/example \
    >/dev/null 2>&1 || true
done
test "$(ls .gpu-stage/pkgs/example/attention_* | wc -l)" -eq 11
# Attention's CUDA blocks without sm_90a (mma.sync: the baseline of the warpgroup units' run).
for run in "128 --dtype=f16" "128 --dtype=f16 --causal"; do
  build/bin/06_flash_attention 1 1 1 $run --blocks=64x32 --ptx-chips=sm_90 --write-package=.gpu-stage/pkgs/example-sm90 \
    >/dev/null 2>&1 || true
done
test "$(ls .gpu-stage/pkgs/example-sm90/attention_* | wc -l)" -eq 2
build/bin/tessera-conformance --write-packages=.gpu-stage/pkgs/conformance >/dev/null
build/bin/tessera-op-tests --write-packages=.gpu-stage/pkgs/conformance >/dev/null
# The numerics suite's packages and the interpreter's reference files (sizes up to 4096: the
# large ones would not fit the carry).
mkdir -p .gpu-stage/goldens
build/bin/tessera-conformance-suite --quick --write-goldens=.gpu-stage/goldens >/dev/null
# The suite's self-test: packages compiled with contraction left on (correct goldens).
mkdir -p .gpu-stage/goldens-fault
TESSERA_FAULT=contraction build/bin/tessera-conformance-suite --quick --mode=portable --filter=basic \
  --write-goldens=.gpu-stage/goldens-fault >/dev/null || true
# The default sm_90 matmul's machine code (ptxas here; gpu-dot-quick.sh lists its instructions with
# cuobjdump there).
mkdir -p .gpu-stage/sass
python3 - .gpu-stage/pkgs/example/matmul_f16_none_fast_128x256x64w8.tspkg sm_90a \
  > .gpu-stage/sass/matmul_f16_none_fast_128x256x64w8.ptx <<'PY'
import sys
data, want = open(sys.argv[1], "rb").read(), sys.argv[2]
at = 0
while (at := data.find(b".version", at)) >= 0:  # each PTX artifact: printable text from .version on
    end = at
    while end < len(data) and (32 <= data[end] < 127 or data[end] in (9, 10, 13)): end += 1
    text = data[at:end].decode()
    if f".target {want}" in text: sys.stdout.write(text); break
    at = end
PY
/usr/local/cuda/bin/ptxas -arch=sm_90a .gpu-stage/sass/matmul_f16_none_fast_128x256x64w8.ptx \
  -o .gpu-stage/sass/matmul_f16_none_fast_128x256x64w8.cubin
du -sh .gpu-stage
