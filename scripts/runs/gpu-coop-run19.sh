#!/usr/bin/env bash
# GPU test-machine side of run 19: Vulkan cooperative matrices (mma-lanes code with the subgroup
# grid, padded rows and vector stores) on 05_matmul's new Vulkan default, 256 x 128 x 32 with 8
# warps, checked on ragged shapes and timed in five processes each (the spread between processes
# seen in runs 17 and 18), and on attention (blocks 64 x 32 at D = 128, 64 x 64 at D = 64, against
# the FMA path's 16 x 16), with the anchors in the same call. Packages: .gpu-stage/pkgs/coop2
# (05_matmul 16 16 16 --dtype=f16 --act=none|gelu --config=256x128x32/8 [--b-transposed]
# --write-package=DIR; 06_flash_attention 1 1 1 D --dtype=f16 [--causal] --blocks=B --write-package=DIR);
# carry .gpu .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs/coop2.
source scripts/gpu-setup.sh gpu-coop-run19.log; S=.gpu-stage; P=$S/pkgs/coop2
python3 - <<'PY'
import torch, triton.testing as tt
import torch.nn.functional as F
for n in (4096, 8192):
    a = torch.randn(n, n, device="cuda", dtype=torch.float16); b = torch.randn_like(a)
    ms = tt.do_bench(lambda: a @ b)
    print(f"torch float16 {n}^3: {ms:.4f} ms, {2 * n**3 / ms / 1e9:.1f} TFLOP/s")
q, k, v = (torch.randn(4, 32, 4096, 128, device="cuda", dtype=torch.float16) for _ in range(3))
for causal in (False, True):
    ms = tt.do_bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
    print(f"torch SDPA causal={causal}: {ms:.4f} ms, {4*4*32*4096*4096*128*(0.5 if causal else 1.0) / ms / 1e9:.1f} TFLOP/s")
PY
export TESSERA_BACKEND=vulkan
m() { timeout 60 $S/bin/05_matmul_aot "$@" --package-dir=$P 2>&1 | grep -v "matrix units"; }
fa() { timeout 60 $S/bin/06_flash_attention_aot "$@" --package-dir=$P 2>&1 | grep -v "matrix units"; }
echo "== matmul, ragged, against float64 (the default block shape)"
m 333 517 200 --dtype=f16 --act=gelu; m 1000 1000 1000 --dtype=f16 --act=none; m 333 517 200 --dtype=f16 --act=none --b-transposed
m 1 1 1 --dtype=f16 --act=none; m 4097 255 129 --dtype=f16 --act=gelu
echo "== matmul 4096^3 and 8192^3, five processes each"
for i in 1 2 3 4 5; do m 4096 4096 4096 --dtype=f16 --act=none --repeat=20; done
for i in 1 2 3; do m 8192 8192 8192 --dtype=f16 --act=none --repeat=10; done
for i in 1 2; do m 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --b-transposed; done
echo "== attention, ragged, against float64"
for b in 64x32 16x16; do fa 2 1 333 128 --dtype=f16 --causal --blocks=$b; fa 1 2 100 128 --dtype=f16 --blocks=$b; done
fa 1 2 100 64 --dtype=f16 --blocks=64x64; fa 2 1 333 64 --dtype=f16 --causal --blocks=64x64; fa 1 2 300 128 --dtype=f16 --blocks=128x32
echo "== attention B 4, H 32, seq 4096"
for i in 1 2; do
  for c in "" --causal; do fa 4 32 4096 128 --dtype=f16 $c --blocks=64x32 --repeat=5; done
done
fa 4 32 4096 128 --dtype=f16 --blocks=128x32 --repeat=5
fa 4 32 4096 128 --dtype=f16 --blocks=16x16 --repeat=3
fa 4 32 4096 64 --dtype=f16 --blocks=64x64 --repeat=5
echo "== the driver's statistics"
$S/bin/tessera kernels $P/matmul_f16_none_fast_256x128x32w8.tspkg $P/attention_f16_d128_fast_64x32.tspkg $P/attention_f16_d128_fast_128x32.tspkg
echo "== $(date -u +%T) done"
