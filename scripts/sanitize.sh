#!/usr/bin/env bash
# The runtime's tests under a sanitizer, in a runtime-only build (no compiler):
#   sanitize.sh thread    build-tsan/: the stream and stress tests (several threads on shared and
#                         separate streams) under ThreadSanitizer; any data race fails the run;
#   sanitize.sh address   build-asan/: every runtime test under AddressSanitizer (with its leak
#                         check); any memory error or leak fails the run.
# Both run on every device present (lavapipe here and in CI).
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:?usage: sanitize.sh thread|address}
case $kind in
  thread) dir=build-tsan tests=(-tc="stream*,stress*")
          export TSAN_OPTIONS="halt_on_error=1 exitcode=66 suppressions=$PWD/scripts/tsan.supp ${TSAN_OPTIONS:-}" ;;
  address) dir=build-asan tests=()
          export ASAN_OPTIONS="detect_leaks=1 ${ASAN_OPTIONS:-}" ;;
  *) echo "sanitize.sh: '$kind' is not thread or address" >&2; exit 2 ;;
esac
if [ ! -f $dir/build.ninja ]; then
  cmake -S . -B $dir -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTESSERA_BUILD_COMPILER=OFF -DTESSERA_SANITIZE=$kind \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache > /dev/null
fi
cmake --build $dir -j "${TESSERA_JOBS:-$(nproc)}" --target tessera-runtime-tests
export TESSERA_CACHE_DIR=${TESSERA_CACHE_DIR:-$PWD/$dir/test-cache}
$dir/bin/tessera-runtime-tests "${tests[@]}"
echo "sanitize.sh $kind: no error reported"
