#!/usr/bin/env bash
# Run 97 (twenty-ninth session), GPU test-machine side; scripts/runs/stage-run97.sh says what. Carry
# .gpu and .gpu-stage/bin/w97. Ragged checks of each unrolled form, then the f32 matmul at 4096^3
# through CUDA in turns (u8, u16, u32 where written), two rounds, then through Vulkan at its
# default blocks (64x256x16/8) and 64x128x16/4; sgemm.
source scripts/gpu-setup.sh gpu-run97.log; W=.gpu-stage/bin/w97
export LD_LIBRARY_PATH=$W/lib:${LD_LIBRARY_PATH:-}
m() { local v=$1; shift; TESSERA_BACKEND=${BE:-cuda} timeout 90 $W/bin/05_matmul_aot "$@" --package-dir=$W/$v 2>&1 | grep -v "^matrix units"; }
cs="64x128x16/4 128x256x16/8 64x256x16/8 128x128x16/4 64x128x32/4 128x256x32/8"
m u16 1040 528 272 --dtype=f32 --act=gelu --config=64x128x16/4
for c in $cs; do for u in u16 u32; do
  [ $u = u32 ] && [[ $c != *x32/* ]] && continue
  m $u 333 517 200 --dtype=f32 --act=none --config=$c
done; done
for round in 1 2; do
  for c in $cs; do
    for u in u8 u16 u32; do
      [ $u = u32 ] && [[ $c != *x32/* ]] && continue
      echo "== $(date -u +%T) round $round $u $c"
      m $u 4096 4096 4096 --dtype=f32 --act=none --config=$c --repeat=10 | grep -E "timed|error|refus"
    done
  done
done
BE=vulkan m u16 1040 528 272 --dtype=f32 --act=gelu --config=64x128x16/4
BE=vulkan m u16 333 517 200 --dtype=f32 --act=none --config=64x256x16/8
for round in 1 2; do
  for c in 64x256x16/8 64x128x16/4; do
    for u in u8 u16; do
      echo "== $(date -u +%T) vulkan round $round $u $c"
      BE=vulkan m $u 4096 4096 4096 --dtype=f32 --act=none --config=$c --repeat=10 | grep -E "timed|error|refus"
    done
  done
done
echo "== $(date -u +%T) sgemm (PyTorch, no tf32)"
timeout 60 python3 bench/sgemm_anchor.py
echo "== $(date -u +%T) done"
