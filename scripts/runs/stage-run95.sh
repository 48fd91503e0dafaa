#!/usr/bin/env bash
# Build machine side of run 95 (twenty-eighth session, scripts/runs/gpu-run95.sh): cp.async copies for
# the f32 FMA path against none at five block shapes (scripts/stage-fma-copies.sh). (Run 95 ran
# with async copies off by default, so base/ was the default then.)
exec bash "$(dirname "$0")/../stage-fma-copies.sh" 95 64x256x16/8 128x128x16/8 64x128x16/4 64x256x32/8 128x256x16/8
