#!/usr/bin/env bash
# Run 76 (staged in the twenty-fourth session), GPU test-machine side: which difference from the
# hand-written probe (293 TFLOP/s) holds 05_matmul's compiled workgroup-matrix kernel at 48
# (runs 71-73). One process times, in turns, the probe in its forms, the package's +wgmat code as
# it is, and that code with each difference edited away, all of them, and all but one
# (bench/wgmatrix/edit_compiled.py); three such processes, since about one in three runs slowly
# whatever it runs (runs 72-73). Here first: scripts/runs/stage-run69.sh, scripts/runs/stage-run70.sh,
# scripts/runs/stage-run76.sh. Carry .gpu and .gpu-stage/bin.
source scripts/gpu-setup.sh gpu-run76.log; P=.gpu-stage/bin/wg; S=$P/spv; C=$S/compiled
cases=(--spv=$S/mm_4096x4096x4096_128x256x64_w256_f16.spv
       --spv=$S/mm_4096x4096x4096_128x256x64_w256_f16pushsizes.spv@push-sizes
       --spv=$S/mm_4096x4096x4096_128x256x64_w256_f16pushsizesalign.spv@push-sizes
       --spv=$S/mm_4096x4096x4096_128x256x64_w256_f16grouped.spv@grid1d
       --spv=$S/mm_4096x4096x4096_128x256x64_w256_f16pushsizesalignglsl450biasguardgrouped.spv@push-sizes,bias,grid1d
       --package=$C/mm.tspkg)
for f in $C/t*.spv; do o=tessera,unbiased; case ${f##*/} in t.spv|t-all-but-no-bias.spv) o=tessera;; t-all*|t-no-bias.spv) ;; *) o=tessera;; esac; cases+=("--spv=$f@$o"); done
for run in 1 2 3; do
  echo "== $(date -u +%T) process $run: $(nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv,noheader)"
  LD_LIBRARY_PATH=$P/lib timeout 150 $P/tessera-wgmatrix-probe --m=4096 --n=4096 --k=4096 --bm=128 --bn=256 --wg=256 \
    --out=f16 --repeat=30 --rounds=2 "${cases[@]}" | grep -v "matrix shape"
  echo "rc=${PIPESTATUS[0]}"
done
echo "== $(date -u +%T) 05_matmul itself (the same package) and the default blocks"
W=.gpu-stage/bin/w70
for c in 128x256x64/8 128x256x32/16; do
  TESSERA_BACKEND=vulkan timeout 90 $W/bin/05_matmul_aot 4096 4096 4096 --dtype=f16 --act=none --config=$c --repeat=30 \
    --package-dir=$W/mm 2>&1 | grep -E "timed|error"
done
echo "== $(date -u +%T) done"
