#!/usr/bin/env bash
# The runtime's concurrency tests under ThreadSanitizer: a runtime-only build (no compiler) in
# build-tsan/, then the stream and stress tests of tessera-runtime-tests on every device present.
# Any data race ThreadSanitizer reports fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build-tsan/build.ninja ]; then
  cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTESSERA_BUILD_COMPILER=OFF -DTESSERA_SANITIZE=thread \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache > /dev/null
fi
cmake --build build-tsan -j "${TESSERA_JOBS:-$(nproc)}" --target tessera-runtime-tests
export TESSERA_CACHE_DIR=${TESSERA_CACHE_DIR:-$PWD/build-tsan/test-cache}
TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}" \
  build-tsan/bin/tessera-runtime-tests -tc="stream*,stress*"
echo "tsan: no data race reported"
