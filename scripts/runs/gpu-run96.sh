#!/usr/bin/env bash
# Run 96 (twenty-eighth session), GPU test-machine side; scripts/runs/stage-run96.sh says what.
# Carry .gpu and .gpu-stage/bin/w96.
exec bash scripts/gpu-fma-copies.sh 96 128x256x16/8 128x256x32/8 256x128x16/8 256x128x32/8 128x128x16/4 128x128x32/4 64x128x32/4
