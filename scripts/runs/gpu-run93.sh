#!/usr/bin/env bash
# Run 93 (twenty-eighth session), GPU test-machine side; scripts/runs/stage-run93.sh says what.
# Carry .gpu and .gpu-stage/bin/w93. Times the f32 packages in turns through CUDA and Vulkan,
# before A's vectors on SPIR-V (old/), and this build without and with fma-halves (f32/,
# halves/), then profiles ours and
# cuBLAS's sgemm (PyTorch, no tf32) at 4096^3 with Nsight Compute (stall reasons, issue slots,
# shared-memory wavefronts) and disassembles our loop.
source scripts/gpu-setup.sh gpu-run93.log; W=.gpu-stage/bin/w93
export LD_LIBRARY_PATH=$W/lib:${LD_LIBRARY_PATH:-}
m() { local be=$1 v=$2; shift 2; TESSERA_BACKEND=$be timeout 90 $W/bin/05_matmul_aot "$@" --package-dir=$W/$v 2>&1 | grep -v "^matrix units"; }
for be in cuda vulkan; do m $be halves 1040 528 272 --dtype=f32 --act=gelu --config=64x256x16/8; m $be f32 333 517 200 --dtype=f32 --act=none --config=128x128x16/8; done
for round in 1 2; do
  for be in cuda vulkan; do
    vs="f32 halves"; [ $be = vulkan ] && vs="old f32 halves" # (old's PTX is f32's)
    cs=(64x256x16/8 "64x256x16/8 --stages=2" 128x128x16/8); [ $round = 2 ] && cs=(64x256x16/8)
    for c in "${cs[@]}"; do
      for v in $vs; do
        echo "== $(date -u +%T) round $round $be $v $c"
        m $be $v 4096 4096 4096 --dtype=f32 --act=none --config=$c --repeat=10 | grep -E "timed|error"
      done
    done
  done
done
echo "== $(date -u +%T) sgemm (PyTorch, no tf32)"
timeout 60 python3 bench/sgemm_anchor.py
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
sections="--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section InstructionStats --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis_Tables --section SourceCounters --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio"
echo "== $(date -u +%T) ncu: ours"
TESSERA_BACKEND=cuda timeout 120 "$ncu" --clock-control none -k regex:matmul -s 3 -c 1 $sections \
  $W/bin/05_matmul_aot 4096 4096 4096 --dtype=f32 --act=none --config=64x256x16/8 --repeat=5 --package-dir=$W/f32 > $out/ncu-ours.txt 2>&1
echo "== $(date -u +%T) ncu: ours, halves"
TESSERA_BACKEND=cuda timeout 120 "$ncu" --clock-control none -k regex:matmul -s 3 -c 1 $sections \
  $W/bin/05_matmul_aot 4096 4096 4096 --dtype=f32 --act=none --config=64x256x16/8 --repeat=5 --package-dir=$W/halves > $out/ncu-halves.txt 2>&1
cat > $out/sgemm.py <<'PY'
import torch
torch.backends.cuda.matmul.allow_tf32 = False
a = torch.randn(4096, 4096, device="cuda"); b = torch.randn_like(a)
for _ in range(8): c = a @ b
torch.cuda.synchronize()
PY
echo "== $(date -u +%T) ncu: cuBLAS sgemm"
timeout 150 "$ncu" --clock-control none -k regex:"gemm|Kernel" -s 3 -c 1 $sections python3 $out/sgemm.py > $out/ncu-sgemm.txt 2>&1
for f in ours halves sgemm; do
  echo "-- $f"
  grep -E "^  [a-zA-Z_0-9]+.*\(|Duration|SM Frequency|Throughput|Executed Ipc|Issue Slots|Eligible|Issued Warp|No Eligible|Active Warps|Warp Cycles Per|Registers|Block Size|Grid Size|Shared Memory Configuration|Achieved Occupancy|Theoretical Occupancy|Executed Instructions |Stall|Bank|Wavefront|stalled" $out/ncu-$f.txt | grep -v " 0$" | head -80
done
echo "== $(date -u +%T) sass"
cuobjdump=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null || true)
[ -n "$cuobjdump" ] && "$cuobjdump" -sass $W/sass/f32.cubin > $out/f32.sass 2>&1 && grep -cE "FFMA" $out/f32.sass && wc -l $out/f32.sass
echo "== $(date -u +%T) done"
