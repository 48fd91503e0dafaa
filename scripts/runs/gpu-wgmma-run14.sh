# GPU test-machine side of run 14: attention (f16, D 128) on the warpgroup units at larger blocks
# than the default 64 x 32, ragged then timed, with the SDPA anchor. Packages written here with
#   for bl in 64x64 128x64 128x32; do for c in "" --causal; do
#     build/bin/06_flash_attention 1 1 1 128 --dtype=f16 $c --blocks=$bl --write-package=.gpu-stage/pkgs/att2; done; done
# (carry .gpu .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs/att2).
source scripts/gpu-setup.sh gpu-wgmma-run14.log; S=.gpu-stage
python3 - <<'PY'
import torch, triton.testing as tt
import torch.nn.functional as F
q, k, v = (torch.randn(4, 32, 4096, 128, device="cuda", dtype=torch.float16) for _ in range(3))
for causal in (False, True):
    ms = tt.do_bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
    print(f"torch SDPA causal={causal}: {ms:.4f} ms, {4*4*32*4096*4096*128*(0.5 if causal else 1.0) / ms / 1e9:.1f} TFLOP/s")
PY
fa() { TESSERA_BACKEND=cuda timeout 40 $S/bin/06_flash_attention_aot "$@" --package-dir=$S/pkgs/att2 2>&1 | grep -v "matrix units"; }
for bl in 64x64 128x64 128x32; do
  fa 2 2 1000 128 --dtype=f16 --blocks=$bl; fa 2 1 333 128 --dtype=f16 --causal --blocks=$bl
  fa 4 32 4096 128 --dtype=f16 --repeat=5 --blocks=$bl; fa 4 32 4096 128 --dtype=f16 --causal --repeat=5 --blocks=$bl
done
