#!/usr/bin/env bash
# Build machine side of run 103 (thirty-first session, scripts/runs/gpu-run103.sh): Vulkan
# attention with the queries' cooperative matrices loaded once before the loop (coop-hoist-a),
# their array then holding the keys: 45,056 bytes at 64 x 32 on 4 subgroups (every operand in
# two halves) and at 128 x 32 (8 or 4 subgroups), which did not fit NVIDIA's 48 KiB before.
#   h  this build (coop-hoist-a on)
#   o  TESSERA_COOP_HOIST_A=0 (the queries read from shared memory each iteration, as before)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/stage-setup.sh 103 "06_flash_attention" h o
w() { local dir=$1; shift; build/bin/06_flash_attention 1 1 16 "$@" --write-package="$W/$dir/" --ptx-chips=sm_90 > /dev/null 2>&1 || true; }
for causal in "" --causal; do
  for b in 64x32:4 128x32:8 128x32:4; do w h 128 --dtype=f16 --blocks=${b%:*} --warps=${b#*:} $causal; done
  TESSERA_COOP_HOIST_A=0 w o 128 --dtype=f16 --blocks=64x32 --warps=4 $causal
done
w h 64 --dtype=f16 --blocks=64x64 --warps=4
w h 128 --dtype=bf16 --blocks=64x32 --warps=4 --causal
ls "$W"/h "$W"/o; du -sh "$W"
