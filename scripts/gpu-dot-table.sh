#!/usr/bin/env bash
# GPU test-machine side: issue [5/6]'s targets table for one package set, in one call. The
# anchors (bench/dot_anchors.py: cuBLAS, SDPA), then per backend (CUDA, Vulkan) the examples at
# their default blocks checked on ragged shapes and timed at the table's sizes, both ways the
# anchors are (back to back, and each launch after an L2 flush). Usage (from a run
# script, after its staging): bash scripts/gpu-dot-table.sh LOG PACKAGE_DIR [BIN_DIR]
# (BIN_DIR: the runtime-only 05_matmul_aot and 06_flash_attention_aot; default .gpu-stage/bin).
# Runs 28 and 41 (scripts/runs/gpu-final-run28.sh, gpu-run41.sh) ran this table written out in full.
source "$(dirname "$0")/gpu-setup.sh" "$1"; P=$2; BIN=${3:-.gpu-stage/bin}
python3 bench/dot_anchors.py
m() { local be=$1; shift; TESSERA_BACKEND=$be timeout 90 $BIN/05_matmul_aot "$@" --package-dir=$P 2>&1 | grep -v "matrix units"; }
fa() { local be=$1; shift; TESSERA_BACKEND=$be timeout 90 $BIN/06_flash_attention_aot "$@" --package-dir=$P 2>&1 | grep -v "matrix units"; }
for be in cuda vulkan; do
  echo "== $(date -u +%T) $be"
  m $be 333 517 200 --dtype=f16 --act=gelu; m $be 333 517 200 --dtype=f16 --act=none --b-transposed; m $be 1000 1000 1000 --dtype=bf16 --act=none
  fa $be 2 1 333 128 --dtype=f16 --causal; fa $be 1 2 100 64 --dtype=f16
  # Each timed twice: back to back, then each launch after a copy that empties L2, as
  # triton.testing.do_bench times the anchors (--flush-l2).
  for t in "" --flush-l2; do
    m $be 4096 4096 4096 --dtype=f16 --act=none --repeat=20 $t; m $be 8192 8192 8192 --dtype=f16 --act=none --repeat=5 $t
    m $be 4096 4096 4096 --dtype=bf16 --act=none --repeat=20 $t; m $be 8192 8192 8192 --dtype=bf16 --act=none --repeat=5 $t
    m $be 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --b-transposed $t
    m $be 4096 4096 4096 --dtype=f32 --act=none --repeat=10 $t
    fa $be 4 32 4096 128 --dtype=f16 --repeat=5 $t; fa $be 4 32 4096 128 --dtype=f16 --causal --repeat=5 $t
  done
done
echo "== $(date -u +%T) done"
