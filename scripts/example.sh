#!/usr/bin/env bash
# Sets up and builds Tessera, then runs examples/01_vector_add on the best device present
# (an NVIDIA GPU through CUDA, another GPU through Vulkan, else lavapipe). Arguments go to it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build/bin/tessera devices
build/bin/01_vector_add "$@"
