#!/usr/bin/env bash
# Runs 70 and 71 (twenty-third session), GPU test-machine side: matmul loops compiled onto workgroup-scope
# cooperative matrices (+wgmat variants, VK_NV_cooperative_matrix2) through Vulkan, checked by
# 05_matmul_aot against float64 and timed; cuBLAS in the same call. Here first:
# scripts/runs/stage-run70.sh. Carry .gpu and .gpu-stage/bin.
source scripts/gpu-setup.sh gpu-run70.log; W=.gpu-stage/bin/w70
m() { TESSERA_BACKEND=vulkan timeout 90 $W/bin/05_matmul_aot "$@" --package-dir=$W/mm 2>&1 | grep -v "^matrix units"; echo "rc=$?"; }
echo "== $(date -u +%T) devices"
TESSERA_BACKEND=vulkan timeout 60 $W/bin/tessera devices --probe 2>&1 | grep -E "NVIDIA|matrix units" | head -4
for c in 128x256x64/8 128x256x32/8 256x128x64/8 128x128x64/8 128x256x32/16; do
  echo "== $(date -u +%T) f16 4096^3 $c"; m 4096 4096 4096 --dtype=f16 --act=none --config=$c --repeat=30
done
echo "== $(date -u +%T) f16 8192^3 128x256x64/8"; m 8192 8192 8192 --dtype=f16 --act=none --config=128x256x64/8 --repeat=20
echo "== $(date -u +%T) bf16 4096^3 128x256x64/8"; m 4096 4096 4096 --dtype=bf16 --act=none --config=128x256x64/8 --repeat=30
echo "== $(date -u +%T) ragged: 4000^3 at 128x256x32/8 (the plain code), at 128x256x64/8 (refused: only the variant runs)"
m 4000 4000 4000 --dtype=f16 --act=none --config=128x256x32/8
m 4000 4000 4000 --dtype=f16 --act=none --config=128x256x64/8
echo "== $(date -u +%T) 1024x512x256 at 128x256x64/8 (variant, small), relu (no variant: refused)"
m 1024 512 256 --dtype=f16 --act=none --config=128x256x64/8
m 1024 512 256 --dtype=f16 --act=relu --config=128x256x64/8
echo "== $(date -u +%T) TESSERA_SPECIALIZE=0 at 128x256x32/8 (the plain code at 4096^3, for comparison)"
TESSERA_SPECIALIZE=0 m 4096 4096 4096 --dtype=f16 --act=none --config=128x256x32/8 --repeat=30
if [ "${WITH_PROBES:-0}" = 1 ]; then # run 69b's probes, after these
  P=.gpu-stage/bin/wg
  for n in 128x256x64_w256_f16prefetch 128x256x32_w256_f16prefetch 256x128x64_w256_f16; do
    echo "-- probe $n"
    LD_LIBRARY_PATH=$P/lib timeout 60 $P/tessera-wgmatrix-probe --spv=$P/spv/mm_4096x4096x4096_$n.spv --m=4096 --n=4096 \
      --k=4096 --bm=${n:0:3} --bn=${n:4:3} --wg=256 --out=f16 | grep -E "check|timed|Register|load|launch"
  done
fi
echo "== $(date -u +%T) anchors"
PYTHONUNBUFFERED=1 timeout 150 python3 bench/dot_anchors.py
echo "== $(date -u +%T) done"
