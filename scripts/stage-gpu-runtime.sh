#!/usr/bin/env bash
# Build machine side of the runtime's GPU test-machine run (scripts/gpu-runtime.sh): fills the
# ignored folder .gpu-rt/ with
#   bin/, lib/  tessera-runtime-tests and its runtime library (streams, events, threads, caches);
#   tsan/, asan/  the same test binary and runtime built with ThreadSanitizer and with
#               AddressSanitizer (scripts/sanitize.sh);
#   embed/      the embedding example `edges` built out of tree against an installed Tessera
#               (scripts/install-test.sh's way), the installed runtime library and libpng;
#   capi/       the C API test compiled as C against the installed tessera.h, with a package
#               (it runs with embed/'s installed runtime library).
# Carry .gpu and .gpu-rt to the machine and run scripts/gpu-runtime.sh there.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${TESSERA_JOBS:-$(nproc)}
cmake --build build -j "$jobs"
rm -rf .gpu-rt
mkdir -p .gpu-rt/bin .gpu-rt/lib .gpu-rt/embed .gpu-rt/capi
cp build/bin/tessera build/bin/tessera-runtime-tests .gpu-rt/bin/
cp -L build/lib/libtessera_runtime.so .gpu-rt/lib/
for kind in thread address; do # builds build-tsan/ and build-asan/ (and runs their tests here)
  bash scripts/sanitize.sh $kind > /dev/null
  san=${kind:0:1}san
  mkdir -p .gpu-rt/$san/bin .gpu-rt/$san/lib
  cp build-$san/bin/tessera-runtime-tests .gpu-rt/$san/bin/
  cp -L build-$san/lib/libtessera_runtime.so .gpu-rt/$san/lib/
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash scripts/install-test.sh build "$work" clang++-22 clang-22 > "$work/install-test.log"
installed=$(dirname "$(find "$work/prefix" -name libtessera_runtime.so | head -1)")
cp "$work/embed/edges" "$installed/libtessera_runtime.so" .gpu-rt/embed/
cp -L "$(ldconfig -p | awk '/libpng16.so.16 /{print $NF; exit}')" .gpu-rt/embed/
cp "$work/c_api_test" "$work/vector_add_b128.tspkg" .gpu-rt/capi/
du -sh .gpu-rt
