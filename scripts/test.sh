#!/usr/bin/env bash
# Sets up and builds Tessera, then runs the whole test suite (unit, lit, conformance, examples)
# on every device present.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# What the tests cache on disk (kernels, Vulkan pipelines, autotuning) stays in the build folder.
export TESSERA_CACHE_DIR=${TESSERA_CACHE_DIR:-$PWD/build/test-cache}
# The compiler verifies its IR after every pass (not only after each stage, as for users).
export TESSERA_VERIFY_EACH_PASS=1
build/bin/tessera devices
ctest --test-dir build --output-on-failure -j "${TESSERA_JOBS:-$(nproc)}"
# The runtime under sanitizers (runtime-only builds): streams and threads under ThreadSanitizer
# (build-tsan/), every runtime test under AddressSanitizer (build-asan/).
TESSERA_CACHE_DIR= scripts/sanitize.sh thread
TESSERA_CACHE_DIR= scripts/sanitize.sh address
