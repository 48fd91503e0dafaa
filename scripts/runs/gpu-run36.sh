#!/usr/bin/env bash
# GPU test-machine side of run 36 (twelfth session), after run 35 found attention fastest with
# every box from one thread and a barrier of the program per iteration (r35-onebar):
# 1. Attention 128 x 128 on 8 warps, that scheme with the example's base-2 softmax (r35-onebar)
#    and with its former exp form (r36-onebar-exp, compiled from the previous example), against
#    run 34's default (r34-exp); the warpgroups taking turns with one thread's boxes (r36-onepp).
# 2. The matmul's A-by-tensor-copy form with one thread's boxes (r35-a-one, r35-a-onebar)
#    against the cp.async artifact at 128 x 128 x 64 and 128 x 256 x 64.
# 3. Nsight Compute on attention (r35-onebar, r36-onebar-exp).
# Carry .gpu .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs.
source scripts/gpu-setup.sh gpu-run36.log; S=.gpu-stage
m() { local p=$1; shift; TESSERA_BACKEND=cuda TESSERA_TENSOR_COPIES=${TESSERA_TENSOR_COPIES:-1} timeout 60 $S/bin/05_matmul_aot "$@" --package-dir=$S/pkgs/$p 2>&1 | grep -v "matrix units"; }
fa() { local p=$1; shift; TESSERA_BACKEND=cuda TESSERA_TENSOR_COPIES=${TESSERA_TENSOR_COPIES:-1} timeout 90 $S/bin/06_flash_attention_aot "$@" --package-dir=$S/pkgs/$p 2>&1 | grep -v "matrix units"; }
echo "== checked"
for p in r36-onebar-exp r36-onepp; do
  fa $p 2 1 333 128 --dtype=f16 --blocks=128x128 --warps=8 --causal; fa $p 1 2 1000 128 --dtype=f16 --blocks=128x128 --warps=8
done
echo "== $(date -u +%T) timed"
for round in 1 2; do
  for p in r34-exp r36-onebar-exp r35-onebar r36-onepp; do
    echo "== attention 128x128w8 $p"
    fa $p 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --repeat=10
    fa $p 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --causal --repeat=10
  done
  for c in 128x128x64/8 128x256x64/8; do
    echo "== matmul $c cp.async"
    TESSERA_TENSOR_COPIES=0 m r35-a 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=$c
    for p in r35-a-one r35-a-onebar; do
      echo "== matmul $c $p"
      m $p 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=$c
    done
  done
  [ $round = 1 ] && python3 bench/dot_anchors.py 2>&1 | grep -i "sdpa\|float16 4096"
done
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
for p in r35-onebar r36-onebar-exp; do
  echo "== $(date -u +%T) ncu: attention 128x128w8 $p"
  [ -n "$ncu" ] && TESSERA_BACKEND=cuda timeout 100 "$ncu" --clock-control none -k regex:attention -s 1 -c 1 \
    --section SpeedOfLight --section WarpStateStats \
    --metrics sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed.sum,smsp__inst_executed_pipe_xu.sum \
    $S/bin/06_flash_attention_aot 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --repeat=1 --package-dir=$S/pkgs/$p > $out/ncu-att-$p.txt 2>&1
  grep -E "Duration|Throughput|Stall|Cycles Per Issued|gmma|inst_executed|Eligible|Issued Warp|Registers" $out/ncu-att-$p.txt | head -40
done
echo "== $(date -u +%T) done"
