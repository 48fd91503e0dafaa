#!/usr/bin/env bash
# Run 106 (thirty-first session), GPU test-machine side: where NVIDIA's Vulkan driver keeps the
# elements of 16 x 16 f16 A and B cooperative matrices (the self-test's operand-lanes probe, in
# its report). Staged here by copying build/bin/tessera and build/lib/libtessera_runtime.so into
# .gpu-stage/bin/w106/{bin,lib}; carry .gpu and .gpu-stage/bin/w106. A fresh cache directory, so
# that no self-test record kept by an earlier run stands in for the probe.
source scripts/gpu-setup.sh gpu-run106.log
TESSERA_CACHE_DIR=$(mktemp -d) .gpu-stage/bin/w106/bin/tessera devices --probe
