# GPU test-machine side of run 16: batches in flight with 3 stages (copies 1 ahead) where that keeps
# two programs per SM (128 x 128 x 64), against the compiler's rule of commit 0036c5b (no batch in
# flight there) and its 128 x 256 x 64 default, in one call. Packages: .gpu-stage/pkgs/v3 from a
# build with that variant (05_matmul 16 16 16 --dtype=f16 --act=none --config=C --ptx-chips=sm_90a
# --write-package=.gpu-stage/pkgs/v3 for C = 128x128x64/8, 128x128x64/4), .gpu-stage/pkgs/v3base
# copied from scripts/stage-gpu.sh's (carry .gpu .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs/v3
# .gpu-stage/pkgs/v3base).
source scripts/gpu-setup.sh gpu-wgmma-run16.log; S=.gpu-stage
m() { TESSERA_BACKEND=cuda timeout 40 $S/bin/05_matmul_aot "$@" 2>&1 | grep -v "matrix units"; }
for c in 128x128x64/8 128x128x64/4; do m 1000 1000 1000 --dtype=f16 --act=none --config=$c --package-dir=$S/pkgs/v3; done
for i in 1 2; do
  for c in 128x128x64/8 128x128x64/4; do
    m 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=$c --package-dir=$S/pkgs/v3
    m 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=$c --package-dir=$S/pkgs/v3base
  done
  m 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=128x256x64/8 --package-dir=$S/pkgs/v3base
done
m 8192 8192 8192 --dtype=f16 --act=none --repeat=5 --config=128x128x64/8 --package-dir=$S/pkgs/v3
m 8192 8192 8192 --dtype=f16 --act=none --repeat=5 --config=128x256x64/8 --package-dir=$S/pkgs/v3base
