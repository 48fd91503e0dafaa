#!/usr/bin/env bash
# GPU test-machine side of run 40 (thirteenth session): the producer warpgroup for attention
# again, now that its threads run the tile code before the loop as copies of the first
# warpgroup's (run 39's producer packages computed rows past the block and failed every check).
# .gpu-stage/pkgs/r40-producer: TESSERA_PRODUCER_WARP=1; r40-prodpp: with TESSERA_PINGPONG=1 as
# well; r39: the default (run 39's). Here: 06_flash_attention 1 1 16 128 --blocks=128x128
# --warps=8 [--causal] (and 1 1 16 64 --causal) --write-package=DIR --ptx-chips=sm_90,sm_90a.
# Then ncu's warp stall reasons (WarpStateStats, raw) for attention and the matmul's two forms.
# Carry .gpu .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs.
source scripts/gpu-setup.sh gpu-run40.log; S=.gpu-stage
m() { local p=$1; shift; TESSERA_BACKEND=cuda TESSERA_TENSOR_COPIES=${TESSERA_TENSOR_COPIES:-1} timeout 60 $S/bin/05_matmul_aot "$@" --package-dir=$S/pkgs/$p 2>&1 | grep -v "matrix units"; }
fa() { local p=$1; shift; TESSERA_BACKEND=cuda timeout 60 $S/bin/06_flash_attention_aot "$@" --package-dir=$S/pkgs/$p 2>&1 | grep -v "matrix units"; }
echo "== checked"
for p in r40-producer r40-prodpp; do
  fa $p 2 1 333 128 --dtype=f16 --blocks=128x128 --warps=8 --causal; fa $p 1 2 1000 128 --dtype=f16 --blocks=128x128 --warps=8
  fa $p 2 1 333 64 --dtype=f16 --blocks=128x128 --warps=8 --causal
done
echo "== $(date -u +%T) timed"
for round in 1 2; do
  for p in r39 r40-producer r40-prodpp; do
    echo "== attention 128x128w8 $p"
    fa $p 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --repeat=10
    fa $p 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --causal --repeat=10
  done
  [ $round = 1 ] && python3 bench/dot_anchors.py 2>&1 | grep -i "sdpa"
done
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
prof() { # name, then the command
  local name=$1; shift
  echo "== $(date -u +%T) ncu: $name"
  [ -n "$ncu" ] && TESSERA_BACKEND=cuda timeout 100 "$ncu" --clock-control none -k "regex:attention|matmul" -s 1 -c 1 \
    --section WarpStateStats --section SpeedOfLight --page raw "$@" > $out/ncu-$name.txt 2>&1
  grep -E "issue_stalled.*per_issue_active|gpu__time_duration.sum|smsp__cycles_active.avg |sm__inst_executed.sum " $out/ncu-$name.txt | awk '$NF+0 > 0.05 || /time|inst|cycles/' | head -40
}
prof att-default $S/bin/06_flash_attention_aot 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --repeat=1 --package-dir=$S/pkgs/r39
prof att-producer $S/bin/06_flash_attention_aot 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --repeat=1 --package-dir=$S/pkgs/r40-producer
TESSERA_TENSOR_COPIES=0 prof mm-cpasync $S/bin/05_matmul_aot 4096 4096 4096 --dtype=f16 --act=none --repeat=1 --config=128x256x64/8 --package-dir=$S/pkgs/r39
TESSERA_TENSOR_COPIES=1 prof mm-tma $S/bin/05_matmul_aot 4096 4096 4096 --dtype=f16 --act=none --repeat=1 --config=128x256x64/8 --package-dir=$S/pkgs/r39
echo "== $(date -u +%T) done"
