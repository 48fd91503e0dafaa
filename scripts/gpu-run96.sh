#!/usr/bin/env bash
# Run 96 (twenty-eighth session), GPU test-machine side; scripts/stage-run96.sh says what.
# Carry .gpu and .gpu-stage/bin/w96. Ragged checks of the copied form, then the f32 matmul at
# 4096^3 through CUDA in turns (base/, async/), seven block shapes, two rounds of the first;
# sgemm both ways.
source scripts/gpu-setup.sh gpu-run96.log; W=.gpu-stage/bin/w96
export LD_LIBRARY_PATH=$W/lib:${LD_LIBRARY_PATH:-}
m() { local v=$1; shift; TESSERA_BACKEND=cuda timeout 90 $W/bin/05_matmul_aot "$@" --package-dir=$W/$v 2>&1 | grep -v "^matrix units"; }
m async 1040 528 272 --dtype=f32 --act=gelu --config=64x256x16/8
m async 4096 4096 4096 --dtype=f32 --act=gelu --config=64x256x16/8 | grep -v timed
for c in 128x256x16/8 128x256x32/8 256x128x16/8 256x128x32/8 128x128x16/4 128x128x32/4 64x128x32/4; do
  m async 333 517 200 --dtype=f32 --act=none --config=$c
  m async 1000 1000 1000 --dtype=f32 --act=none --config=$c
done
for round in 1 2; do
  cs="128x256x16/8 128x256x32/8 256x128x16/8 256x128x32/8 128x128x16/4 128x128x32/4 64x128x32/4"; [ $round = 2 ] && cs=128x256x16/8
  for c in $cs; do
    for v in base async; do
      echo "== $(date -u +%T) round $round $v $c"
      m $v 4096 4096 4096 --dtype=f32 --act=none --config=$c --repeat=10 | grep -E "timed|error|refus"
    done
  done
done
echo "== $(date -u +%T) sgemm (PyTorch, no tf32)"
timeout 60 python3 - <<'PY'
import sys; sys.path.insert(0, "bench")
import torch, triton.testing as tt
from triton_matmul import back_to_back
torch.backends.cuda.matmul.allow_tf32 = False
a = torch.randn(4096, 4096, device="cuda"); b = torch.randn_like(a)
ms = tt.do_bench(lambda: a @ b); b2b = back_to_back(lambda: a @ b)
print(f"torch float32 4096^3: {2 * 4096**3 / ms / 1e9:.1f} TFLOP/s; back to back {2 * 4096**3 / b2b / 1e9:.1f}")
PY
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
echo "== $(date -u +%T) ncu: async 128x256x16/8"
TESSERA_BACKEND=cuda timeout 120 "$ncu" --clock-control none -k regex:matmul -s 3 -c 1 --section SpeedOfLight --section WarpStateStats \
  --section SchedulerStats --section LaunchStats --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio \
  $W/bin/05_matmul_aot 4096 4096 4096 --dtype=f32 --act=none --config=128x256x16/8 --repeat=5 --package-dir=$W/async > $out/ncu-async.txt 2>&1
grep -E "Duration|Issued Warp|Registers Per|stalled" $out/ncu-async.txt | grep -v " 0$"
echo "== $(date -u +%T) done"
