#!/usr/bin/env bash
# Build machine side of a benchmark run on the GPU test machine: fills the ignored folder
# .gpu-bench/ with the runtime, tessera-bench-aot and the benchmark kernels' packages (PTX for
# sm_90, SPIR-V for subgroup 32 with native and software f32 denormals), plus the compile times
# measured here. Carry .gpu and .gpu-bench, then run scripts/gpu-bench.sh there.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --build build -j "${TESSERA_JOBS:-$(nproc)}"
rm -rf .gpu-bench
mkdir -p .gpu-bench/bin .gpu-bench/lib .gpu-bench/pkgs
cp build/bin/tessera-bench-aot .gpu-bench/bin/
cp -L build/lib/libtessera_runtime.so .gpu-bench/lib/
build/bin/tessera-bench --compile-only --write-packages=.gpu-bench/pkgs --subgroups=32 \
  --json=.gpu-bench/compile.json > .gpu-bench/compile.log
# Portable softmax 4096 x 16384 at 32 warps too (16 values a thread: it compiles in about half
# the time of the default 16 warps; gpu-bench.sh times both).
build/bin/tessera-bench --compile-only --write-packages=.gpu-bench/pkgs --subgroups=32 --filter=4096x16384 \
  --mode=portable --warps=32 >> .gpu-bench/compile.log
grep '^compile' .gpu-bench/compile.log
du -sh .gpu-bench
