#!/usr/bin/env bash
# Sets up and builds Tessera, then runs the whole test suite (unit, lit, conformance, examples)
# on every device present.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build/bin/tessera devices
ctest --test-dir build --output-on-failure -j "${TESSERA_JOBS:-$(nproc)}"
