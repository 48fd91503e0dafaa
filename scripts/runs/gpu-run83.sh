#!/usr/bin/env bash
# Run 83 (twenty-fifth session), GPU test-machine side: does the element-by-element fallback of
# the cp.async copies cost the CUDA matmul? ptxas gives the 128x256x64w8 kernel 255 registers with
# it and 211 without. The sm_90a multiple-of-16 variant's PTX with the fallback's branches cut
# (so only for sizes where every copy is whole: 4096^3, 8192^3; bench/package_ptx.py put it in
# the package) against the same package as compiled: base and copies-after-mma (run 82).
# Carry .gpu and .gpu-stage/bin/w83.
source scripts/gpu-setup.sh gpu-run83.log; W=.gpu-stage/bin/w83
export LD_LIBRARY_PATH=$W/lib:${LD_LIBRARY_PATH:-}
m() { local d=$1; shift; TESSERA_BACKEND=cuda timeout 90 $W/bin/05_matmul_aot "$@" --package-dir=$W/$d 2>&1 | grep -v "^matrix units"; }
for round in 1 2 3; do
  echo "== $(date -u +%T) round $round"
  for v in base basefast after afterfast; do
    echo "-- $v"
    m $v 4096 4096 4096 --dtype=f16 --act=none --config=128x256x64/8 --repeat=20
    m $v 8192 8192 8192 --dtype=f16 --act=none --config=128x256x64/8 --repeat=5 | grep timed
  done
done
echo "== $(date -u +%T) done"
