#!/usr/bin/env bash
# GPU test-machine side of run 18: run 17's Vulkan timings again with the examples' new warm-up
# (200 ms of launches before the timed ones), each shape twice or more, with the SM clock logged
# by nvidia-smi every 100 ms (read only), and CUDA's default f16 matmul for comparison. Packages
# as in run 17 (scripts/runs/gpu-coop-run17.sh) plus .gpu-stage/pkgs/coop/cuda (the default sm_90a
# matmul from scripts/stage-gpu.sh); carry .gpu .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs/coop.
source scripts/gpu-setup.sh gpu-coop-run18.log; S=.gpu-stage
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,pstate,temperature.gpu,memory.used --format=csv -lms 100 > $out/smi.csv &
smi=$!
python3 - <<'PY'
import torch, triton.testing as tt
for n in (4096, 8192):
    a = torch.randn(n, n, device="cuda", dtype=torch.float16); b = torch.randn_like(a)
    ms = tt.do_bench(lambda: a @ b)
    print(f"torch float16 {n}^3: {ms:.4f} ms, {2 * n**3 / ms / 1e9:.1f} TFLOP/s")
PY
m() { local be=$1 d=$2; shift 2; echo "-- $(date -u +%T.%N | cut -c1-12)"; TESSERA_BACKEND=$be timeout 60 $S/bin/05_matmul_aot "$@" --package-dir=$S/pkgs/coop/$d 2>&1 | grep -v "matrix units"; }
for i in 1 2; do
  for c in 256x128x32/8 128x256x32/8 128x128x32/8 64x64x32/4; do m vulkan new 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=$c; done
  m vulkan old 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=64x64x32/4
  m cuda cuda 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=128x256x64/8
done
for d in nopad scalar stacked old; do m vulkan $d 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=128x128x32/8; done
for c in 256x128x32/8 128x128x64/8; do m vulkan new 8192 8192 8192 --dtype=f16 --act=none --repeat=5 --config=$c; done
m vulkan new 8192 8192 8192 --dtype=f16 --act=none --repeat=5 --config=256x128x32/8
m cuda cuda 8192 8192 8192 --dtype=f16 --act=none --repeat=5 --config=128x256x64/8
m vulkan new 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=128x128x32/8 --b-transposed
kill $smi
echo "== SM clock samples (MHz): count, min, median, max"
python3 - $out/smi.csv <<'PY'
import sys, csv, statistics
rows = list(csv.reader(open(sys.argv[1])))[1:]
clk = [int(r[1].split()[0]) for r in rows if len(r) > 1 and r[1].strip().split()[0].isdigit()]
if clk: print(len(clk), min(clk), statistics.median(clk), max(clk))
PY
echo "== $(date -u +%T) done"
