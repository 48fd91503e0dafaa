#!/usr/bin/env bash
# Run 107 (thirty-first session), GPU test-machine side, after run 98's staging (carry .gpu and
# .gpu-stage/bin/w98): issue [5/6]'s attention rows through Vulkan at the new default blocks
# (128 x 32 on 8 subgroups), both ways the anchors are timed (back to back, and each launch after
# an L2 flush as do_bench), with the anchors (bench/dot_anchors.py) in the same call; the rest of
# run 98's table stands (nothing else changed).
source scripts/gpu-setup.sh gpu-run107.log; W=.gpu-stage/bin/w98
export LD_LIBRARY_PATH=$W/lib:${LD_LIBRARY_PATH:-}
python3 bench/dot_anchors.py
fa() { TESSERA_BACKEND=vulkan timeout 90 $W/bin/06_flash_attention_aot "$@" --package-dir=$W/full 2>&1 | grep -v "^matrix units"; }
fa 2 1 333 128 --dtype=f16 --causal; fa 1 2 100 64 --dtype=f16
for t in "" --flush-l2; do
  echo "== $(date -u +%T) ${t:-back to back}"
  fa 4 32 4096 128 --dtype=f16 --repeat=5 $t; fa 4 32 4096 128 --dtype=f16 --causal --repeat=5 $t
done
echo "== $(date -u +%T) done"
