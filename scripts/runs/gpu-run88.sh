#!/usr/bin/env bash
# Run 88 (twenty-sixth session), GPU test-machine side; scripts/runs/stage-run88.sh says what it
# measures. Carry .gpu and .gpu-stage/bin/w88.
source scripts/gpu-setup.sh gpu-run88.log; W=.gpu-stage/bin/w88
export LD_LIBRARY_PATH=$W/lib:${LD_LIBRARY_PATH:-}
m() { TESSERA_BACKEND=cuda timeout 90 $W/bin/05_matmul_aot "$@" --package-dir=$W/new 2>&1 | grep -v "^matrix units"; }
echo "== $(date -u +%T) checked"
m 1040 528 272 --dtype=f16 --act=none --config=128x256x64/8
for round in 1 2; do
  echo "== $(date -u +%T) round $round: ours, 4096 x 4096 x K"
  for k in 512 1024 4096 16384; do m 4096 4096 $k --dtype=f16 --act=none --config=128x256x64/8 --repeat=20 | grep timed; done
  echo "== $(date -u +%T) round $round: Triton 128x256x64 w8 s3"
  PYTHONUNBUFFERED=1 timeout 150 python3 - <<'PY'
import sys; sys.path.insert(0, "bench")
import triton_matmul as t
for k in (512, 1024, 4096, 16384):
    t.run(4096, [(128, 256, 64, 8, 3)], k=k)
PY
done
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
sections="--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section InstructionStats --section LaunchStats"
echo "== $(date -u +%T) ncu: ours 4096^3"
[ -n "$ncu" ] && TESSERA_BACKEND=cuda timeout 150 "$ncu" --clock-control none -k regex:matmul -s 3 -c 1 $sections \
  $W/bin/05_matmul_aot 4096 4096 4096 --dtype=f16 --act=none --config=128x256x64/8 --repeat=5 --package-dir=$W/new > $out/ncu-ours.txt 2>&1
cat > $out/tri.py <<'PY'
import sys; sys.path.insert(0, "bench")
import triton_matmul as t
t.run(4096, [(128, 256, 64, 8, 3)])
PY
echo "== $(date -u +%T) ncu: Triton 4096^3"
[ -n "$ncu" ] && timeout 200 "$ncu" --clock-control none -k regex:matmul_kernel -s 5 -c 1 $sections python3 $out/tri.py > $out/ncu-triton.txt 2>&1
for f in ours triton; do
  echo "-- $f"
  grep -E "Duration|SM Frequency|Throughput|Executed Ipc|Issue Slots|Eligible|Issued Warp|No Eligible|Warp Cycles Per|Registers|Executed Instructions |Stall" $out/ncu-$f.txt | head -40
done
echo "== $(date -u +%T) done"
