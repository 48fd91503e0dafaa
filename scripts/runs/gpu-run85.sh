#!/usr/bin/env bash
# Run 85 (twenty-fifth session), GPU test-machine side: scripts/runs/stage-run85.sh says what. Ragged
# checks (attention also through cp.async, TESSERA_TENSOR_COPIES=0, at a multiple of 16 and not),
# then the timed table and the anchors. Carry .gpu and .gpu-stage/bin/w85.
source scripts/gpu-setup.sh gpu-run85.log; W=.gpu-stage/bin/w85
export LD_LIBRARY_PATH=$W/lib:${LD_LIBRARY_PATH:-}
m() { TESSERA_BACKEND=cuda timeout 90 $W/bin/05_matmul_aot "$@" --package-dir=$W/p 2>&1 | grep -v "^matrix units"; }
fa() { TESSERA_BACKEND=cuda timeout 120 $W/bin/06_flash_attention_aot "$@" --package-dir=$W/p 2>&1 | grep -v "^matrix units"; }
echo "== $(date -u +%T) checked"
m 1040 528 272 --dtype=f16 --act=gelu --config=128x256x64/8; m 333 517 200 --dtype=f16 --act=none --config=128x256x64/8 --b-transposed
m 1040 528 272 --dtype=f16 --act=none --config=128x256x64/8 --b-transposed; m 1000 1000 1000 --dtype=bf16 --act=none --config=128x256x64/8
m 333 517 200 --dtype=f32 --act=none; m 1040 528 272 --dtype=f32 --act=none
for tc in 1 0; do
  export TESSERA_TENSOR_COPIES=$tc
  fa 2 1 1040 128 --dtype=f16 --blocks=128x128 --warps=8 --causal; fa 2 1 333 128 --dtype=f16 --blocks=128x128 --warps=8
  fa 1 2 1040 128 --dtype=f16 --blocks=128x128 --warps=8
done
unset TESSERA_TENSOR_COPIES
echo "== $(date -u +%T) timed"
for round in 1 2; do
  m 4096 4096 4096 --dtype=f16 --act=none --config=128x256x64/8 --repeat=20 | grep timed
  m 8192 8192 8192 --dtype=f16 --act=none --config=128x256x64/8 --repeat=5 | grep timed
  m 4096 4096 4096 --dtype=bf16 --act=none --config=128x256x64/8 --repeat=20 | grep timed
  m 4096 4096 4096 --dtype=f16 --act=none --config=128x256x64/8 --b-transposed --repeat=20 | grep timed
  echo "-- f32 64x128x16/4, 128x128x16/8"
  m 4096 4096 4096 --dtype=f32 --act=none --repeat=10 | grep timed
  m 4096 4096 4096 --dtype=f32 --act=none --config=128x128x16/8 --repeat=10 | grep timed
  echo "-- attention, causal"
  fa 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --repeat=10 | grep -i "timed\|tflop"
  fa 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --causal --repeat=10 | grep -i "timed\|tflop"
done
echo "== $(date -u +%T) anchors"
PYTHONUNBUFFERED=1 timeout 150 python3 bench/dot_anchors.py
echo "== $(date -u +%T) done"
