#!/usr/bin/env bash
# Run 76b, GPU test-machine side: run 76 found the push-constant sizes the whole gap (the compiled
# code with M, N and K as constants runs 295 TFLOP/s, with them pushed 45). Which size, whether
# wider alignment of the strides does as well, and whether specialization constants do (the
# u-*.spv edits of scripts/runs/stage-run76.sh's wg.mlir: edit_compiled.py const-sizes=4096,,
# ... spec-sizes=4096,4096,4096 align=64 align=256). Carry .gpu and .gpu-stage/bin.
source scripts/gpu-setup.sh gpu-run76b.log; P=.gpu-stage/bin/wg; C=$P/spv/compiled
cases=(--package=$C/mm.tspkg --spv=$C/t-const-sizes.spv@tessera)
for f in $C/u-*.spv; do cases+=("--spv=$f@tessera"); done
for run in 1 2; do
  LD_LIBRARY_PATH=$P/lib timeout 150 $P/tessera-wgmatrix-probe --m=4096 --n=4096 --k=4096 --bm=128 --bn=256 --wg=256 \
    --out=f16 --repeat=30 --rounds=2 "${cases[@]}" | grep -E "timed|WRONG|Binary|Shared"
  echo "rc=${PIPESTATUS[0]}"
done
