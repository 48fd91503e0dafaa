#!/usr/bin/env bash
# Run 89 (twenty-sixth session), GPU test-machine side; scripts/runs/stage-run89.sh says what. Ragged
# checks first (the variant with rows past the matrix, the plain code, bf16, attention), then
# on and off in turns (and the on package's matmul PTX with its wgmma wait moved before the
# copies: waitfirst, bench/package_ptx.py), Triton's matmul of the same blocks at two depths,
# cuBLAS and SDPA, and Nsight Compute on both. Carry .gpu and .gpu-stage/bin/w89.
source scripts/gpu-setup.sh gpu-run89.log; W=.gpu-stage/bin/w89
export LD_LIBRARY_PATH=$W/lib:${LD_LIBRARY_PATH:-}
m() { local v=$1; shift; TESSERA_BACKEND=cuda timeout 90 $W/bin/05_matmul_aot "$@" --package-dir=$W/$v 2>&1 | grep -v "^matrix units"; }
fa() { local v=$1; shift; TESSERA_BACKEND=cuda timeout 120 $W/bin/06_flash_attention_aot "$@" --package-dir=$W/$v 2>&1 | grep -v "^matrix units"; }
echo "== $(date -u +%T) checked"
m on 1040 528 272 --dtype=f16 --act=gelu --config=128x256x64/8; m on 1040 528 272 --dtype=f16 --act=none --config=128x256x64/8
m on 1000 1000 1000 --dtype=f16 --act=none --config=128x256x64/8; m on 1040 528 272 --dtype=bf16 --act=none --config=128x256x64/8
m on 1040 528 272 --dtype=f16 --act=none --config=128x128x64/8; m on 4096 4096 4096 --dtype=f16 --act=none --config=128x256x64/8
fa on 2 1 1040 128 --dtype=f16 --blocks=128x128 --warps=8 --causal; fa on 2 1 333 128 --dtype=f16 --blocks=128x128 --warps=8
fa on 1 2 1040 128 --dtype=f16 --blocks=128x128 --warps=8
m waitfirst 1040 528 272 --dtype=f16 --act=none --config=128x256x64/8
round() {
  for v in on off; do
    echo "== $(date -u +%T) round $1 $v"
    for k in 512 4096 16384; do m $v 4096 4096 $k --dtype=f16 --act=none --config=128x256x64/8 --repeat=20 | grep timed; done
    m $v 4096 4096 4096 --dtype=f16 --act=gelu --config=128x256x64/8 --repeat=20 | grep timed
    m $v 4096 4096 4096 --dtype=f16 --act=none --config=128x128x64/8 --repeat=20 | grep timed
    m $v 4096 4096 4096 --dtype=bf16 --act=none --config=128x256x64/8 --repeat=20 | grep timed
    m $v 8192 8192 8192 --dtype=f16 --act=none --config=128x256x64/8 --repeat=5 | grep timed
    fa $v 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --repeat=10 | grep -i "timed"
    fa $v 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --causal --repeat=10 | grep -i "timed"
  done
  echo "== $(date -u +%T) round $1 waitfirst (on, its PTX with the wgmma wait before the copies)"
  for k in 4096 16384; do m waitfirst 4096 4096 $k --dtype=f16 --act=none --config=128x256x64/8 --repeat=20 | grep timed; done
}
round 1
echo "== $(date -u +%T) Triton 128x256x64 w8 s3"
PYTHONUNBUFFERED=1 timeout 150 python3 - <<'PY'
import sys; sys.path.insert(0, "bench")
import triton_matmul as t
for k in (512, 4096):
    t.run(4096, [(128, 256, 64, 8, 3)], k=k)
PY
echo "== $(date -u +%T) anchors"
PYTHONUNBUFFERED=1 timeout 100 python3 bench/dot_anchors.py
round 2
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
for v in on off; do
  echo "== $(date -u +%T) ncu: $v 4096^3"
  [ -n "$ncu" ] && TESSERA_BACKEND=cuda timeout 100 "$ncu" --clock-control none -k regex:matmul -s 3 -c 1 \
    --section SpeedOfLight --section WarpStateStats --section InstructionStats --section MemoryWorkloadAnalysis \
    $W/bin/05_matmul_aot 4096 4096 4096 --dtype=f16 --act=none --config=128x256x64/8 --repeat=5 --package-dir=$W/$v > $out/ncu-$v.txt 2>&1
  grep -E "Duration|SM Frequency|Compute \(SM\)|L2 Cache Throughput|DRAM Throughput|Executed Instructions  |Registers|Warp Cycles Per Issued" $out/ncu-$v.txt | head -12
done
echo "== $(date -u +%T) done"
