# GPU test-machine side of run 11: 05_matmul on the warpgroup units with batches in flight across
# the k loop, ragged then timed at six block shapes, with the cuBLAS anchors. Packages written here
# into .gpu-stage/pkgs/wg2 with
#   for c in 128x128x32/8 128x128x64/8 128x256x64/8 256x128x64/8 128x128x64/4 128x256x32/8; do
#     for d in f16 bf16; do build/bin/05_matmul 16 16 16 --dtype=$d --act=none --config=$c --write-package=.gpu-stage/pkgs/wg2; done
#   done
# plus --dtype=f16 --act=gelu at 128x256x64/8 and 128x128x64/8 (carry .gpu .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs/wg2).
source scripts/gpu-setup.sh gpu-wgmma-run11.log; S=.gpu-stage
python3 - <<'PY'
import torch, triton.testing as tt
for dtype, n in ((torch.float16, 4096), (torch.bfloat16, 4096), (torch.float16, 8192)):
    a = torch.randn(n, n, device="cuda", dtype=dtype); b = torch.randn_like(a)
    ms = tt.do_bench(lambda: a @ b)
    print(f"torch {str(dtype).split('.')[1]} {n}^3: {ms:.4f} ms, {2 * n**3 / ms / 1e9:.1f} TFLOP/s")
PY
m() { TESSERA_BACKEND=cuda timeout 40 $S/bin/05_matmul_aot "$@" --package-dir=$S/pkgs/wg2 2>&1 | grep -v "matrix units"; }
m 333 517 200 --dtype=f16 --act=gelu --config=128x256x64/8; m 1000 1000 1000 --dtype=bf16 --act=none --config=128x256x64/8
m 333 517 200 --dtype=f16 --act=gelu --config=128x128x64/8; m 1000 1000 1000 --dtype=bf16 --act=none
m 1000 1000 1000 --dtype=f16 --act=none --config=256x128x64/8; m 1000 1000 1000 --dtype=f16 --act=none --config=128x128x64/4
for c in 128x128x32/8 128x128x64/8 128x256x64/8 256x128x64/8 128x128x64/4 128x256x32/8; do m 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=$c; done
m 4096 4096 4096 --dtype=bf16 --act=none --repeat=20 --config=128x128x64/8; m 4096 4096 4096 --dtype=bf16 --act=none --repeat=20 --config=128x256x64/8
for c in 128x128x64/8 128x256x64/8; do m 8192 8192 8192 --dtype=f16 --act=none --repeat=10 --config=$c; done
