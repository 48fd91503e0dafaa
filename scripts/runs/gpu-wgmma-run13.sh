# GPU test-machine side of run 13: 05_matmul with B stored N x K (--b-transposed) on the warpgroup
# units (B K-major), ragged and timed, with the cuBLAS anchor. Packages: for c in 128x256x64/8
# 128x128x32/8, f16 gelu, bf16 none and f16 none, written here with --b-transposed into
# .gpu-stage/pkgs/wg3 (carry .gpu .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs/wg3).
source scripts/gpu-setup.sh gpu-wgmma-run13.log; S=.gpu-stage
python3 -c "
import torch, triton.testing as tt
a = torch.randn(4096, 4096, device='cuda', dtype=torch.float16); b = torch.randn_like(a)
ms = tt.do_bench(lambda: a @ b.T); print(f'torch f16 4096^3 a @ b.T: {ms:.4f} ms, {2 * 4096**3 / ms / 1e9:.1f} TFLOP/s')"
m() { TESSERA_BACKEND=cuda timeout 40 $S/bin/05_matmul_aot "$@" --b-transposed --package-dir=$S/pkgs/wg3 2>&1 | grep -v "matrix units"; }
for c in 128x256x64/8 128x128x32/8; do
  m 333 517 200 --dtype=f16 --act=gelu --config=$c; m 1000 1000 1000 --dtype=bf16 --act=none --config=$c
  m 4096 4096 4096 --dtype=f16 --act=none --repeat=10 --config=$c
done
strings -n 4 $S/pkgs/wg3/matmul_f16_none_fast_128x256x64w8bt.tspkg | grep -oE "mma\.sync[.a-z0-9]*|wgmma[.a-z0-9]*" | sort | uniq -c
