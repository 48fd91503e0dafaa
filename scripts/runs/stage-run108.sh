#!/usr/bin/env bash
# Build machine side of run 108 (thirty-first session, scripts/runs/gpu-run108.sh): Vulkan
# attention f16 with the probabilities' A matrices built from registers (coop-a-lanes, on NVIDIA's
# placement of A's elements, which run 106 found to be the accumulator's) against this build's
# default, at 128 x 32 on 8 subgroups and 64 x 32 on 4. This build's runtime, whose self-test now
# checks A's placement for the chip ...+mma-lanes. And 64 x 64 on 4 subgroups, which now stays on
# the matrices (the values in the queries' freed array, a value at a time), where its second dot
# fell back to the FMA path before; and 128 x 64 on 8 subgroups with coop-a-lanes (34,816 bytes:
# the keys leave room for the values).
#   p  this build (coop-a-lanes off)
#   l  TESSERA_COOP_A_LANES=1
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/stage-setup.sh 108 "06_flash_attention" p l
w() { local dir=$1; shift; build/bin/06_flash_attention 1 1 16 128 --dtype=f16 "$@" --write-package="$W/$dir/" --ptx-chips=sm_90 > /dev/null 2>&1 || true; }
for causal in "" --causal; do
  for b in 128x32:8 64x32:4 64x64:4; do
    w p --blocks=${b%:*} --warps=${b#*:} $causal
    TESSERA_COOP_A_LANES=1 w l --blocks=${b%:*} --warps=${b#*:} $causal
  done
  TESSERA_COOP_A_LANES=1 w l --blocks=128x64 --warps=8 $causal # fits only with coop-a-lanes
done
ls "$W"/p "$W"/l; du -sh "$W"
