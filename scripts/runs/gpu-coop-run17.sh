#!/usr/bin/env bash
# GPU test-machine side of run 17: Vulkan cooperative matrices (chip vulkan1.3+coopmat+mma-lanes)
# with the subgroups on a grid, staged rows padded by 16 bytes and 8-byte vector stores, at several
# block shapes, checked on ragged shapes, then timed against PyTorch in the same call; and the
# variants without each of the three changes (the packages of a build that had them as switches).
# Packages: .gpu-stage/pkgs/coop/{new,nopad,scalar,stacked,old} (05_matmul 16 16 16 --dtype=f16
# --act=none --config=C --write-package=DIR); carry .gpu .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs/coop.
source scripts/gpu-setup.sh gpu-coop-run17.log; S=.gpu-stage
python3 - <<'PY'
import torch, triton.testing as tt
for n in (4096, 8192):
    a = torch.randn(n, n, device="cuda", dtype=torch.float16); b = torch.randn_like(a)
    ms = tt.do_bench(lambda: a @ b)
    print(f"torch float16 {n}^3: {ms:.4f} ms, {2 * n**3 / ms / 1e9:.1f} TFLOP/s")
PY
m() { local d=$1; shift; TESSERA_BACKEND=vulkan timeout 60 $S/bin/05_matmul_aot "$@" --package-dir=$S/pkgs/coop/$d 2>&1 | grep -v "matrix units"; }
NEW="64x64x32/4 128x64x32/4 64x128x32/4 128x128x32/4 128x128x32/8 128x128x64/8 128x256x32/8 256x128x32/8"
echo "== ragged shapes, checked against float64"
for c in $NEW; do m new 333 517 200 --dtype=f16 --act=none --config=$c; m new 1000 1000 1000 --dtype=f16 --act=none --config=$c; done
m new 333 517 200 --dtype=f16 --act=gelu --config=128x128x32/8
m new 333 517 200 --dtype=f16 --act=none --config=128x128x32/8 --b-transposed
m new 1000 1000 1000 --dtype=f16 --act=none --config=128x128x32/8 --stages=2
echo "== 4096^3"
for c in $NEW; do m new 4096 4096 4096 --dtype=f16 --act=none --repeat=10 --config=$c; done
m new 4096 4096 4096 --dtype=f16 --act=none --repeat=10 --config=128x128x32/8 --stages=2
m new 4096 4096 4096 --dtype=f16 --act=none --repeat=10 --config=64x64x32/4 --stages=2
m new 4096 4096 4096 --dtype=f16 --act=none --repeat=10 --config=128x128x32/8 --b-transposed
echo "== without each change (64x64x32/4, 128x128x32/8)"
for d in old nopad scalar stacked; do
  for c in 64x64x32/4 128x128x32/8; do m $d 4096 4096 4096 --dtype=f16 --act=none --repeat=10 --config=$c; done
done
echo "== FMA path (TESSERA_COOPMAT=0), 128x128x32/8"
TESSERA_COOPMAT=0 m new 4096 4096 4096 --dtype=f16 --act=none --repeat=10 --config=128x128x32/8
echo "== sizes"
for c in 128x128x32/8 128x128x64/8; do
  m new 2048 2048 2048 --dtype=f16 --act=none --repeat=10 --config=$c
  m new 4096 4096 8192 --dtype=f16 --act=none --repeat=10 --config=$c
  m new 8192 8192 4096 --dtype=f16 --act=none --repeat=5 --config=$c
  m new 8192 8192 8192 --dtype=f16 --act=none --repeat=5 --config=$c
done
echo "== the drivers' statistics"
TESSERA_BACKEND=vulkan $S/bin/tessera kernels $S/pkgs/coop/new/matmul_f16_none_fast_{64x64x32w4,128x128x32w8,128x128x64w8}.tspkg $S/pkgs/coop/old/matmul_f16_none_fast_128x128x32w8.tspkg
echo "== $(date -u +%T) done"
