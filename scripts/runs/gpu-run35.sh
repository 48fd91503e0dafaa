#!/usr/bin/env bash
# GPU test-machine side of run 35 (twelfth session). Most needed first (the call may run out):
# 1. Attention in base 2 with the scale folded into one multiply-add (06_flash_attention now:
#    exp2(s * scale * log2(e) - m), ex2.approx; 193 registers instead of 254 at 128 x 128 on 8
#    warps): checked on ragged shapes, then timed against run 34's form (r34-exp) in the same call.
# 2. The two parts of the tensor-copy loop, separated (TESSERA_TENSOR_COPY_ISSUE=one: every box
#    from one thread; TESSERA_TENSOR_COPY_RELEASE=barrier: a barrier of the program per iteration
#    instead of the readers' mbarriers): attention (r35, r35-one, r35-bar, r35-onebar) and the
#    matmul's A-by-tensor-copy form (r35-a*, TESSERA_TENSOR_COPIES_A=1) against the cp.async
#    artifact (TESSERA_TENSOR_COPIES=0).
# 2b. The two warpgroups of attention's 128 x 128 program taking turns at the units
#    (TESSERA_PINGPONG=1 when compiling: r35-pp).
# 3. The anchors (cuBLAS through PyTorch, SDPA), a second round, other blocks, Nsight Compute.
# Here: the packages as docs/gpu-runs.md (run 35) says; copy build/bin/{05_matmul_aot,
# 06_flash_attention_aot} and build/lib/libtessera_runtime.so into .gpu-stage/bin and lib.
# Carry .gpu .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs.
source scripts/gpu-setup.sh gpu-run35.log; S=.gpu-stage
m() { local p=$1; shift; TESSERA_BACKEND=cuda TESSERA_TENSOR_COPIES=${TESSERA_TENSOR_COPIES:-1} timeout 60 $S/bin/05_matmul_aot "$@" --package-dir=$S/pkgs/$p 2>&1 | grep -v "matrix units"; }
fa() { local p=$1; shift; TESSERA_BACKEND=cuda TESSERA_TENSOR_COPIES=${TESSERA_TENSOR_COPIES:-1} timeout 90 $S/bin/06_flash_attention_aot "$@" --package-dir=$S/pkgs/$p 2>&1 | grep -v "matrix units"; }
echo "== exp2 attention: checked"
fa r35 2 1 333 128 --dtype=f16 --blocks=128x128 --warps=8 --causal; fa r35 1 2 1000 128 --dtype=f16 --blocks=128x128 --warps=8
fa r35 2 1 333 128 --dtype=f16 --blocks=64x32 --causal; fa r35 2 3 1000 128 --dtype=f16 --blocks=64x32
fa r35 2 1 333 128 --dtype=f16 --blocks=128x64 --warps=8 --causal; fa r35 1 2 100 64 --dtype=f16 --blocks=64x64 --causal
for p in r35-pp r35-one r35-bar r35-onebar; do
  fa $p 2 1 333 128 --dtype=f16 --blocks=128x128 --warps=8 --causal; fa $p 1 2 1000 128 --dtype=f16 --blocks=128x128 --warps=8
done
for p in r35-a r35-a-one r35-a-bar r35-a-onebar; do
  m $p 1000 1000 1000 --dtype=f16 --act=gelu; m $p 333 512 200 --dtype=f16 --act=none
done
echo "== $(date -u +%T) timed"
for round in 1 2; do
  for p in r34-exp r35 r35-pp r35-one r35-bar r35-onebar; do
    echo "== attention 128x128w8 $p"
    fa $p 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --repeat=5
    fa $p 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --causal --repeat=5
  done
  echo "== matmul cp.async"
  TESSERA_TENSOR_COPIES=0 m r35-a 4096 4096 4096 --dtype=f16 --act=none --repeat=20
  for p in r35-a r35-a-one r35-a-bar r35-a-onebar; do
    echo "== matmul $p"
    m $p 4096 4096 4096 --dtype=f16 --act=none --repeat=20
  done
  [ $round = 1 ] && python3 bench/dot_anchors.py
done
for b in "64x32" "128x64 --warps=8"; do
  echo "== attention r35 $b"
  fa r35 4 32 4096 128 --dtype=f16 --blocks=$b --repeat=5
  fa r35 4 32 4096 128 --dtype=f16 --blocks=$b --causal --repeat=5
done
for p in r35-a r35-a-one r35-a-bar r35-a-onebar; do
  echo "== matmul 128x128x64 $p"
  m $p 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=128x128x64/8
done
echo "== matmul 128x128x64 cp.async"
TESSERA_TENSOR_COPIES=0 m r35-a 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=128x128x64/8
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
for p in r35 r35-pp r34-exp; do
  echo "== $(date -u +%T) ncu: attention 128x128w8 $p"
  [ -n "$ncu" ] && TESSERA_BACKEND=cuda timeout 120 "$ncu" --clock-control none -k regex:attention -s 1 -c 1 \
    --section SpeedOfLight --section WarpStateStats \
    --metrics sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_gmma.sum \
    $S/bin/06_flash_attention_aot 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --repeat=1 --package-dir=$S/pkgs/$p > $out/ncu-att-$p.txt 2>&1
  grep -E "Duration|Throughput|Stall|Cycles Per Issued|gmma|Eligible|Issued Warp" $out/ncu-att-$p.txt | head -30
done
echo "== $(date -u +%T) done"
