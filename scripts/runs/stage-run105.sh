#!/usr/bin/env bash
# Build machine side of run 105 (thirty-first session, scripts/runs/gpu-run105.sh): Vulkan
# attention at its new default blocks (128 x 32 on 8 subgroups, the queries' matrices in
# registers: run 103) with the next key block's K and V loaded a step ahead (--stages=2) and with
# the rotated loop (--overlap=1: a block's softmax while the units multiply the previous block's
# values), against the plain loop.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/stage-setup.sh 105 "06_flash_attention" p
w() { build/bin/06_flash_attention 1 1 16 128 --dtype=f16 --blocks=128x32 --warps=8 "$@" --write-package="$W/p/" --ptx-chips=sm_90 > /dev/null 2>&1 || true; }
for causal in "" --causal; do
  for v in "" --stages=2 --overlap=1; do w $v $causal; done
done
ls "$W"/p; du -sh "$W"
