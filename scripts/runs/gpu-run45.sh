#!/usr/bin/env bash
# GPU test-machine side of run 45 (fourteenth session): attention's rotated loop (--overlap=1:
# this key block's scores issued, then the previous block's values, then the softmax while the
# units multiply them; each warpgroup dot waited for where its result is first used) against the
# plain loop with the same late waits (r45 without o) and the thirteenth session's default
# (r45-old: D 128 non-causal, written before the change), with SDPA in the same call.
# Here: 06_flash_attention 1 1 16 {128,64} --blocks=128x128 --warps=8 [--causal] [--overlap=1]
# --write-package=.gpu-stage/pkgs/r45 --ptx-chips=sm_90a, D 64 also --blocks=64x64.
# Carry .gpu .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs.
source scripts/gpu-setup.sh gpu-run45.log; S=.gpu-stage
fa() { local p=$1; shift; TESSERA_BACKEND=cuda timeout 60 $S/bin/06_flash_attention_aot "$@" --package-dir=$S/pkgs/$p 2>&1 | grep -v "matrix units\|bulk tensor"; }
echo "== checked"
for o in 0 1; do
  fa r45 2 1 333 128 --dtype=f16 --blocks=128x128 --warps=8 --causal --overlap=$o; fa r45 1 3 1000 128 --dtype=f16 --blocks=128x128 --warps=8 --overlap=$o
  fa r45 2 1 333 64 --dtype=f16 --blocks=128x128 --warps=8 --causal --overlap=$o; fa r45 1 2 1000 64 --dtype=f16 --blocks=64x64 --overlap=$o
done
python3 - <<'PY'
import torch, torch.nn.functional as F, triton.testing as tt
for d in (128, 64):
    q, k, v = (torch.randn(4, 32, 4096, d, device="cuda", dtype=torch.float16) for _ in range(3))
    for causal in (False, True):
        ms = tt.do_bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
        print(f"torch SDPA D={d} causal={causal}: {ms:.4f} ms, {4*4*32*4096*4096*d*(0.5 if causal else 1.0)/ms/1e9:.1f} TFLOP/s")
PY
echo "== $(date -u +%T) timed"
for round in 1 2; do
  echo "== D128 old"; fa r45-old 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --repeat=10
  for o in 0 1; do
    echo "== D128 128x128w8 overlap=$o"
    fa r45 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --overlap=$o --repeat=10
    fa r45 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --overlap=$o --causal --repeat=10
  done
done
for o in 0 1; do
  for b in "--blocks=128x128 --warps=8" "--blocks=64x64"; do
    echo "== D64 $b overlap=$o"
    fa r45 4 32 4096 64 --dtype=f16 $b --overlap=$o --repeat=10; fa r45 4 32 4096 64 --dtype=f16 $b --overlap=$o --causal --repeat=10
  done
done
echo "== $(date -u +%T) done"
