#!/usr/bin/env bash
# Run 81 (twenty-fifth session), GPU test-machine side: the CUDA f16 matmul's machine code next to
# Triton's for the same blocks (128 x 256 x 64, 8 warps, 3 stages; run 80: Triton 662 TFLOP/s,
# ours 526-536), and where ours stalls, instruction by instruction. Triton's compiled kernel (its
# cache: PTX, TTGIR, cubin) and both disassemblies land in $OUT; Nsight Compute's source page
# (SASS with stall samples) of ours too. Here first: scripts/runs/stage-run80.sh, and the cubins of the
# 128x256x64w8 package's sm_90a PTX in .gpu-stage/bin/w81. Carry .gpu, .gpu-stage/bin/w80 and
# .gpu-stage/bin/w81.
source scripts/gpu-setup.sh gpu-run81.log; W=.gpu-stage/bin/w80; X=.gpu-stage/bin/w81
export TRITON_CACHE_DIR=$out/triton-cache
cuda=/usr/local/cuda/bin
echo "== $(date -u +%T) Triton 128x256x64 w8 s3"
PYTHONUNBUFFERED=1 timeout 200 python3 - <<'PY'
import sys; sys.path.insert(0, "bench")
import triton_matmul as t
t.run(4096, [(128, 256, 64, 8, 3)])
PY
find $out/triton-cache -name "matmul_kernel*" | head
cub=$(find $out/triton-cache -name "matmul_kernel.cubin" | head -1)
for tool in cuobjdump nvdisasm; do ls $cuda/$tool 2>/dev/null; done
[ -n "$cub" ] && $cuda/cuobjdump -sass "$cub" > $out/triton.sass 2>&1
$cuda/cuobjdump -sass $X/ours-cp.cubin > $out/ours-cp.sass 2>&1
$cuda/cuobjdump -sass $X/ours-tc.cubin > $out/ours-tc.sass 2>&1
wc -l $out/*.sass
echo "== $(date -u +%T) ncu source page: ours cp"
ncu=$(command -v ncu || ls $cuda/ncu 2>/dev/null || true)
if [ -n "$ncu" ]; then
  TESSERA_BACKEND=cuda timeout 200 "$ncu" --clock-control none -k regex:matmul -s 3 -c 1 --import-source no \
    --section SourceCounters --section WarpStateStats -o $out/ours-cp \
    $W/bin/05_matmul_aot 4096 4096 4096 --dtype=f16 --act=none --config=128x256x64/8 --repeat=5 --package-dir=$W/cp > $out/ncu-run.txt 2>&1
  tail -5 $out/ncu-run.txt
  timeout 100 "$ncu" --import $out/ours-cp.ncu-rep --page source --print-source sass --csv > $out/ours-cp-source.csv 2>&1
  timeout 100 "$ncu" --import $out/ours-cp.ncu-rep --page details --section WarpStateStats --print-details all > $out/ours-cp-stalls.txt 2>&1
  wc -l $out/ours-cp-source.csv; grep -i "stall" $out/ours-cp-stalls.txt | head -40
  echo "== $(date -u +%T) ncu source page: Triton"
  cat > $out/tri.py <<'PY'
import sys; sys.path.insert(0, "bench")
import triton_matmul as t
t.run(4096, [(128, 256, 64, 8, 3)])
PY
  timeout 200 "$ncu" --clock-control none -k regex:matmul_kernel -s 5 -c 1 --import-source no \
    --section SourceCounters --section WarpStateStats --section SpeedOfLight -o $out/triton python3 $out/tri.py > $out/ncu-tri.txt 2>&1
  tail -3 $out/ncu-tri.txt
  timeout 100 "$ncu" --import $out/triton.ncu-rep --page source --print-source sass --csv > $out/triton-source.csv 2>&1
  timeout 100 "$ncu" --import $out/triton.ncu-rep --page details --print-details all > $out/triton-details.txt 2>&1
  grep -i "duration\|stall\|throughput" $out/triton-details.txt | head -30
fi
echo "== $(date -u +%T) done"
