#!/usr/bin/env bash
# Build machine side of run 89 (twenty-sixth session, scripts/runs/gpu-run89.sh). Run 88 found the CUDA
# f16 matmul's per-program cost (first copies, epilogue) about 8 us against Triton's 3.5 us at
# 128 x 256 x 64. A matrix-unit accumulator stored as f16 now goes through shared memory in bands
# of rows and leaves as 16-byte runs (store-staging). Packages of this build with it (on) and
# without it (off, TESSERA_STORE_STAGING=0): the matmul's blocks and attention's, in
# .gpu-stage/bin/w89.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/stage-setup.sh 89 "05_matmul 06_flash_attention" on off
for v in on off; do
  [ $v = off ] && export TESSERA_STORE_STAGING=0 || unset TESSERA_STORE_STAGING
  c="--write-package=$W/$v/ --ptx-chips=sm_90,sm_90a"
  mm() { build/bin/05_matmul 16 16 16 "$@" $c > /dev/null 2>&1 || true; }
  for act in none gelu; do mm --dtype=f16 --act=$act --config=128x256x64/8; done
  mm --dtype=f16 --act=none --config=128x128x64/8
  mm --dtype=bf16 --act=none --config=128x256x64/8
  for causal in "" --causal; do
    build/bin/06_flash_attention 1 1 16 128 --dtype=f16 --blocks=128x128 --warps=8 $causal $c > /dev/null 2>&1 || true
  done
done
unset TESSERA_STORE_STAGING
# waitfirst: the f16 128 x 256 x 64 package's sm_90a variant with its loop's wgmma wait moved from
# after the copies to right after the commit (Triton's order).
mkdir -p "$W/waitfirst"
P=$W/on/matmul_f16_none_fast_128x256x64w8.tspkg
python3 bench/package_ptx.py "$P" get 7 /tmp/run89.ptx
python3 - <<'PY'
s = open("/tmp/run89.ptx").read().split("\n")
wait = [i for i, l in enumerate(s) if "wgmma.wait_group.sync.aligned \t1;" in l]
commit = [i for i, l in enumerate(s) if "wgmma.commit_group" in l]
assert len(wait) == 1 and len(commit) == 1 and wait[0] < commit[0]
line = s.pop(wait[0])
s.insert(commit[0], line)
open("/tmp/run89-waitfirst.ptx", "w").write("\n".join(s))
PY
python3 bench/package_ptx.py "$P" put 7 /tmp/run89-waitfirst.ptx "$W/waitfirst/matmul_f16_none_fast_128x256x64w8.tspkg"
ls "$W"/*; du -sh "$W"
