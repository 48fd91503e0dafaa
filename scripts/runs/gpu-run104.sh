#!/usr/bin/env bash
# Run 104 (thirty-first session), GPU test-machine side, after run 98's staging (bash
# scripts/runs/stage-run98.sh here; carry .gpu and .gpu-stage/bin/w98): bf16 attention through
# Vulkan at its default blocks since run 103 (128 x 32 on 8 subgroups, the queries' matrices in
# registers), checked against float64 on ragged shapes, then timed back to back and flushed.
source scripts/gpu-setup.sh gpu-run104.log; W=.gpu-stage/bin/w98
export LD_LIBRARY_PATH=$W/lib:${LD_LIBRARY_PATH:-}
fa() { TESSERA_BACKEND=vulkan timeout 90 $W/bin/06_flash_attention_aot "$@" --stats --package-dir=$W/full 2>&1 | grep -v "^matrix units"; }
fa 2 1 333 128 --dtype=bf16 --causal; fa 1 2 100 128 --dtype=bf16
for t in "" --flush-l2; do
  echo "== $(date -u +%T) ${t:-back to back}"
  fa 4 32 4096 128 --dtype=bf16 --repeat=5 $t; fa 4 32 4096 128 --dtype=bf16 --causal --repeat=5 $t
done
echo "== $(date -u +%T) done"
