#!/usr/bin/env bash
# Run 100 (thirtieth session), GPU test-machine side; scripts/runs/stage-run100.sh says what.
# Carry .gpu and .gpu-stage/bin/w100. Each form checked on a ragged shape first, then the f32
# matmul at 4096^3 in turns, two rounds: through CUDA at seven block shapes, through Vulkan at
# seventeen forms (A in vectors against scalars, more blocks); sgemm.
source scripts/gpu-setup.sh gpu-run100.log; W=.gpu-stage/bin/w100
export LD_LIBRARY_PATH=$W/lib:${LD_LIBRARY_PATH:-}
m() { local v=$1; shift; TESSERA_BACKEND=${BE:-cuda} timeout 90 $W/bin/05_matmul_aot "$@" --dtype=f32 --act=none --stats --package-dir=$W/$v 2>&1 | grep -v "^matrix units"; }
cuda="128x256x32/8 256x128x32/8 128x128x32/4 128x128x32/8 64x256x32/8 256x128x16/8"
vk="sa:64x256x16/8 d:64x256x16/8 d:64x256x16/8:2 sa:128x256x16/8 sa:128x128x16/8 sa:64x256x32/8 d:128x256x16/8 d:128x256x16/8:2 d:128x128x16/4 d:128x128x16/4:2
    d:128x128x16/8 d:64x256x32/8 u32:64x256x32/8 u32:128x128x32/8 u32:64x128x32/4"
v() { local f=(${1//:/ }); BE=vulkan m ${f[0]} "${@:2}" --config=${f[1]} ${f[2]:+--stages=${f[2]}}; }
for c in $cuda; do m d 333 517 200 --config=$c; done
for f in $vk; do v $f 333 517 200; done
for round in 1 2; do
  for c in $cuda; do
    echo "== $(date -u +%T) cuda round $round $c"
    m d 4096 4096 4096 --config=$c --repeat=10 | grep -E "timed|error|refus|driver"
  done
  for f in $vk; do
    echo "== $(date -u +%T) vulkan round $round $f"
    v $f 4096 4096 4096 --repeat=10 | grep -E "timed|error|refus|driver"
  done
done
echo "== $(date -u +%T) sgemm (PyTorch, no tf32)"
timeout 60 python3 bench/sgemm_anchor.py
echo "== $(date -u +%T) done"
