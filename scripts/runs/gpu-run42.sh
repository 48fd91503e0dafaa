#!/usr/bin/env bash
# GPU test-machine side of run 42 (thirteenth session): attention through Vulkan (64 x 32, the
# default there) ran at 27.0 / 22.7 TFLOP/s in run 41 (fastest launches 75.5 / 26.4) against
# 69.3 / 65.9 in run 28 (H200). The session's kernel (r41-all: softmax in base 2, the scale folded
# into one multiply-add) against the same kernel with run 28's softmax (r42-exp: s * scale, exp),
# in turns, with the SM clock sampled every 100 ms. Here: 06_flash_attention 1 1 16 128
# --blocks=64x32 [--causal] --write-package=DIR with the example's softmax edited back for r42-exp.
# Carry .gpu .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs.
source scripts/gpu-setup.sh gpu-run42.log; S=.gpu-stage
fa() { local p=$1; shift; TESSERA_BACKEND=vulkan timeout 90 $S/bin/06_flash_attention_aot "$@" --package-dir=$S/pkgs/$p 2>&1 | grep -v "matrix units"; }
nvidia-smi --query-gpu=timestamp,pstate,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 100 > $out/clocks-run42.csv 2>&1 &
smi=$!
for round in 1 2; do
  for p in r41-all r42-exp; do
    echo "== $(date -u +%T.%N | cut -c1-12) vulkan attention 64x32 $p"
    fa $p 4 32 4096 128 --dtype=f16 --blocks=64x32 --repeat=20
    fa $p 4 32 4096 128 --dtype=f16 --blocks=64x32 --causal --repeat=20
  done
done
kill $smi
echo "== clocks (min / max SM MHz, throttle reasons seen)"
awk -F', ' '{print $3}' $out/clocks-run42.csv | sort -n | sed -n '1p;$p'
awk -F', ' '{print $7}' $out/clocks-run42.csv | sort | uniq -c
echo "== $(date -u +%T) done"
