#!/usr/bin/env bash
# Run 77 (twenty-fourth session), GPU test-machine side: 05_matmul's workgroup-matrix variants
# with M, N and K as specialization constants (run 76b: the driver stages the matrices well only
# with the strides known), each against the same blocks' own code (TESSERA_WORKGROUP_MATRICES=1
# and 0), the default blocks, 8192^3, bf16, a small and a ragged size; cuBLAS in the same call.
# Here first: scripts/runs/stage-run70.sh. Carry .gpu and .gpu-stage/bin.
source scripts/gpu-setup.sh gpu-run77.log; W=.gpu-stage/bin/w70
m() { TESSERA_BACKEND=vulkan timeout 90 $W/bin/05_matmul_aot "$@" --package-dir=$W/mm 2>&1 | grep -v "^matrix units"; }
echo "== $(date -u +%T) f16 4096^3, 128x256x64/8 (its own code cannot load: the variant runs)"
m 4096 4096 4096 --dtype=f16 --act=none --config=128x256x64/8 --repeat=30
for c in 128x256x32/8 256x128x64/8 128x128x64/8 256x128x32/8 128x128x32/4; do
  for w in 1 0; do
    echo "== $(date -u +%T) f16 4096^3 $c TESSERA_WORKGROUP_MATRICES=$w"
    TESSERA_WORKGROUP_MATRICES=$w m 4096 4096 4096 --dtype=f16 --act=none --config=$c --repeat=30
  done
done
echo "== $(date -u +%T) f16 4096^3 default blocks 128x256x32/16"; m 4096 4096 4096 --dtype=f16 --act=none --config=128x256x32/16 --repeat=30
echo "== $(date -u +%T) f16 8192^3 128x256x64/8"; m 8192 8192 8192 --dtype=f16 --act=none --config=128x256x64/8 --repeat=20
echo "== $(date -u +%T) f16 8192^3 128x256x32/16"; m 8192 8192 8192 --dtype=f16 --act=none --config=128x256x32/16 --repeat=20
echo "== $(date -u +%T) bf16 4096^3 128x256x64/8"; m 4096 4096 4096 --dtype=bf16 --act=none --config=128x256x64/8 --repeat=30
echo "== $(date -u +%T) f16 1024x512x256 at 128x256x64/8 (the variant, small)"
m 1024 512 256 --dtype=f16 --act=none --config=128x256x64/8
echo "== $(date -u +%T) ragged 4000^3 at 128x256x64/8 (refused: only the variant runs)"; m 4000 4000 4000 --dtype=f16 --act=none --config=128x256x64/8
echo "== $(date -u +%T) anchors"
PYTHONUNBUFFERED=1 timeout 150 python3 bench/dot_anchors.py
echo "== $(date -u +%T) done"
