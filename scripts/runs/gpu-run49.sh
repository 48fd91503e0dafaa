#!/usr/bin/env bash
# GPU test-machine side of run 49 (fourteenth session): attention's rotated loop with the two
# warpgroups taking turns a whole iteration each (FA3's scheme: a warpgroup issues this block's
# scores and the previous block's values in one turn, then its softmax overlaps the other's
# dots): r49-pp (written with TESSERA_PINGPONG=1) against r49 (the default), each plain and
# rotated (--overlap=1), causal and not, two rounds in turns; SDPA in the call.
# Here: 06_flash_attention 1 1 16 128 --blocks=128x128 --warps=8 [--causal] [--overlap=1]
# --write-package=.gpu-stage/pkgs/r49[-pp] --ptx-chips=sm_90a.
# Carry .gpu .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs.
source scripts/gpu-setup.sh gpu-run49.log; S=.gpu-stage
fa() { local p=$1; shift; TESSERA_BACKEND=cuda timeout 60 $S/bin/06_flash_attention_aot "$@" --package-dir=$S/pkgs/$p 2>&1 | grep -v "matrix units\|bulk tensor"; }
echo "== checked"
for o in 0 1; do
  fa r49-pp 2 1 333 128 --dtype=f16 --blocks=128x128 --warps=8 --causal --overlap=$o
  fa r49-pp 1 3 1000 128 --dtype=f16 --blocks=128x128 --warps=8 --overlap=$o
done
python3 - <<'PY'
import torch, torch.nn.functional as F, triton.testing as tt
q, k, v = (torch.randn(4, 32, 4096, 128, device="cuda", dtype=torch.float16) for _ in range(3))
for causal in (False, True):
    ms = tt.do_bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
    print(f"torch SDPA D=128 causal={causal}: {ms:.4f} ms, {4*4*32*4096*4096*128*(0.5 if causal else 1.0)/ms/1e9:.1f} TFLOP/s")
PY
echo "== $(date -u +%T) timed"
for round in 1 2; do
  for c in "r49 --overlap=0" "r49 --overlap=1" "r49-pp --overlap=0" "r49-pp --overlap=1"; do
    echo "== $c"
    fa $c 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --repeat=10 | grep timed
    fa $c 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --causal --repeat=10 | grep timed
  done
done
echo "== $(date -u +%T) done"
