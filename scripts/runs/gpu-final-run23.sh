#!/usr/bin/env bash
# GPU test-machine side of run 23: the session's final code in one call with its anchors. The
# examples' defaults (CUDA: sm_90a's warpgroup units; Vulkan: cooperative matrices, 128 x 256 x 32
# with 16 warps, attention blocks 64 x 32) checked on ragged shapes and timed, the f32 FMA matmul
# through both, and the loads of the next step issued before this step's products (--stages=2)
# through Vulkan. Packages: .gpu-stage/pkgs/final (05_matmul 16 16 16 / 06_flash_attention 1 1 1
# --write-package at commit 7522140, the shapes named below); carry .gpu .gpu-stage/bin
# .gpu-stage/lib .gpu-stage/pkgs/final.
source scripts/gpu-setup.sh gpu-final-run23.log; S=.gpu-stage; P=$S/pkgs/final
python3 - <<'PY'
import torch, triton.testing as tt
import torch.nn.functional as F
torch.backends.cuda.matmul.allow_tf32 = False
for dtype, n in ((torch.float16, 4096), (torch.float16, 8192), (torch.float32, 4096)):
    a = torch.randn(n, n, device="cuda", dtype=dtype); b = torch.randn_like(a)
    ms = tt.do_bench(lambda: a @ b)
    print(f"torch {str(dtype).split('.')[1]} {n}^3: {ms:.4f} ms, {2 * n**3 / ms / 1e9:.1f} TFLOP/s")
q, k, v = (torch.randn(4, 32, 4096, 128, device="cuda", dtype=torch.float16) for _ in range(3))
for causal in (False, True):
    ms = tt.do_bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
    print(f"torch SDPA causal={causal}: {ms:.4f} ms, {4*4*32*4096*4096*128*(0.5 if causal else 1.0) / ms / 1e9:.1f} TFLOP/s")
PY
m() { local be=$1; shift; TESSERA_BACKEND=$be timeout 60 $S/bin/05_matmul_aot "$@" --package-dir=$P 2>&1 | grep -v "matrix units"; }
fa() { local be=$1; shift; TESSERA_BACKEND=$be timeout 60 $S/bin/06_flash_attention_aot "$@" --package-dir=$P 2>&1 | grep -v "matrix units"; }
echo "== CUDA"
m cuda 1000 1000 1000 --dtype=f16 --act=none; m cuda 4096 4096 4096 --dtype=f16 --act=none --repeat=20
m cuda 8192 8192 8192 --dtype=f16 --act=none --repeat=5
fa cuda 2 1 333 128 --dtype=f16 --causal; fa cuda 4 32 4096 128 --dtype=f16 --repeat=5; fa cuda 4 32 4096 128 --dtype=f16 --causal --repeat=5
m cuda 4096 4096 4096 --dtype=f32 --act=none --repeat=10 --config=128x128x16/8
echo "== Vulkan"
m vulkan 333 517 200 --dtype=f16 --act=gelu; m vulkan 333 517 200 --dtype=f16 --act=none --b-transposed; m vulkan 1000 1000 1000 --dtype=f16 --act=none
for i in 1 2; do m vulkan 4096 4096 4096 --dtype=f16 --act=none --repeat=20; done
m vulkan 8192 8192 8192 --dtype=f16 --act=none --repeat=5
m vulkan 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --b-transposed
for c in 128x256x32/16 256x128x32/8; do m vulkan 1000 1000 1000 --dtype=f16 --act=none --config=$c --stages=2; m vulkan 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=$c --stages=2; done
fa vulkan 2 1 333 128 --dtype=f16 --causal; fa vulkan 1 2 100 128 --dtype=f16 --stages=2
fa vulkan 4 32 4096 128 --dtype=f16 --repeat=5; fa vulkan 4 32 4096 128 --dtype=f16 --causal --repeat=5; fa vulkan 4 32 4096 128 --dtype=f16 --stages=2 --repeat=5
m vulkan 4096 4096 4096 --dtype=f32 --act=none --repeat=10 --config=128x128x16/8
echo "== $(date -u +%T) done"
