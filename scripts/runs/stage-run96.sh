#!/usr/bin/env bash
# Build machine side of run 96 (twenty-eighth session, scripts/runs/gpu-run96.sh): cp.async copies for
# the f32 FMA path against none at block shapes where a thread holds 128 accumulators (one
# program a multiprocessor) or a program 4 warps (scripts/stage-fma-copies.sh).
exec bash "$(dirname "$0")/../stage-fma-copies.sh" 96 128x256x16/8 128x256x32/8 256x128x16/8 256x128x32/8 128x128x16/4 128x128x32/4 64x128x32/4
