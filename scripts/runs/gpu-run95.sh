#!/usr/bin/env bash
# Run 95 (twenty-eighth session), GPU test-machine side; scripts/runs/stage-run95.sh says what.
# Carry .gpu and .gpu-stage/bin/w95.
exec bash scripts/gpu-fma-copies.sh 95 64x256x16/8 128x128x16/8 64x128x16/4 64x256x32/8 128x256x16/8
