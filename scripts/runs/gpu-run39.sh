#!/usr/bin/env bash
# GPU test-machine side of run 39 — prepared in the twelfth session, run in the thirteenth. The
# producer warpgroup (TESSERA_PRODUCER_WARP=1 when compiling:
# .gpu-stage/pkgs/r39-producer) against the same compiler without it (r39): attention 128 x 128
# on 8 warps, and the matmul's A-by-tensor-copy form (TESSERA_TENSOR_COPIES_A=1) at 128 x 256 x 64
# and 128 x 128 x 64 against its cp.async artifact (TESSERA_TENSOR_COPIES=0); the producer with
# warpgroup pingpong as well (r39-prodpp: TESSERA_PRODUCER_WARP=1 TESSERA_PINGPONG=1), and ncu on
# attention's default and producer forms last. Checked on ragged
# shapes first. Needs this session's runtime (the tensor-copy form may have larger programs).
# Here: 06_flash_attention 1 1 16 128 --blocks=128x128 --warps=8 [--causal] and 05_matmul 16 16 16
# --dtype=f16 --act=none|gelu --config=128x256x64/8|128x128x64/8 (with TESSERA_TENSOR_COPIES_A=1),
# each --write-package=DIR --ptx-chips=sm_90,sm_90a, with and without TESSERA_PRODUCER_WARP=1 (and
# with it and TESSERA_PINGPONG=1); copy
# build/bin/{05_matmul_aot,06_flash_attention_aot} and build/lib/libtessera_runtime.so into
# .gpu-stage/bin and lib. Carry .gpu .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs.
source scripts/gpu-setup.sh gpu-run39.log; S=.gpu-stage
m() { local p=$1; shift; TESSERA_BACKEND=cuda TESSERA_TENSOR_COPIES=${TESSERA_TENSOR_COPIES:-1} timeout 60 $S/bin/05_matmul_aot "$@" --package-dir=$S/pkgs/$p 2>&1 | grep -v "matrix units"; }
fa() { local p=$1; shift; TESSERA_BACKEND=cuda timeout 60 $S/bin/06_flash_attention_aot "$@" --package-dir=$S/pkgs/$p 2>&1 | grep -v "matrix units"; }
echo "== checked"
for p in r39-producer r39-prodpp; do
  fa $p 2 1 333 128 --dtype=f16 --blocks=128x128 --warps=8 --causal; fa $p 1 2 1000 128 --dtype=f16 --blocks=128x128 --warps=8
done
m r39-producer 1000 1000 1000 --dtype=f16 --act=gelu; m r39-producer 333 512 200 --dtype=f16 --act=none --config=128x128x64/8
echo "== $(date -u +%T) timed"
for round in 1 2; do
  for p in r39 r39-producer r39-prodpp; do
    echo "== attention 128x128w8 $p"
    fa $p 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --repeat=10
    fa $p 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --causal --repeat=10
  done
  for c in 128x256x64/8 128x128x64/8; do
    echo "== matmul $c cp.async"; TESSERA_TENSOR_COPIES=0 m r39 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=$c
    for p in r39 r39-producer; do echo "== matmul $c $p"; m $p 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=$c; done
  done
  [ $round = 1 ] && python3 bench/dot_anchors.py 2>&1 | grep -i "sdpa\|float16 4096"
done
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
for p in r39 r39-producer; do
  echo "== $(date -u +%T) ncu: attention 128x128w8 $p"
  [ -n "$ncu" ] && TESSERA_BACKEND=cuda timeout 100 "$ncu" --clock-control none -k regex:attention -s 1 -c 1 \
    --section SpeedOfLight --section WarpStateStats \
    --metrics sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed.sum \
    $S/bin/06_flash_attention_aot 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --repeat=1 --package-dir=$S/pkgs/$p > $out/ncu-att-$p.txt 2>&1
  grep -E "Duration|Throughput|Stall|Cycles Per Issued|gmma|inst_executed|Eligible|Issued Warp|Registers" $out/ncu-att-$p.txt | head -40
done
echo "== $(date -u +%T) done"
