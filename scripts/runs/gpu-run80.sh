#!/usr/bin/env bash
# Run 80 (twenty-fifth session), GPU test-machine side; scripts/runs/stage-run80.sh says what it
# measures. Carry .gpu and .gpu-stage/bin.
source scripts/gpu-setup.sh gpu-run80.log; W=.gpu-stage/bin/w80
export LD_LIBRARY_PATH=$W/lib:${LD_LIBRARY_PATH:-}
m() { local be=$1 d=$2; shift 2; TESSERA_BACKEND=$be timeout 90 $W/bin/05_matmul_aot "$@" --package-dir=$W/$d 2>&1 | grep -v "^matrix units"; }
echo "== $(date -u +%T) checked (ragged)"
m cuda tc 1000 1000 1000 --dtype=f16 --act=gelu --config=128x256x64/8
m cuda tc 333 512 200 --dtype=f16 --act=none --config=128x128x64/8
m cuda f32 333 517 200 --dtype=f32 --act=none --config=128x128x16/8 --stages=2
m vulkan f32 333 517 200 --dtype=f32 --act=none --config=128x128x16/8 --stages=2
for round in 1 2; do
  echo "== $(date -u +%T) round $round: f16 4096^3"
  for c in 128x256x64/8 128x128x64/8; do for d in cp tc; do echo "-- $c $d"; m cuda $d 4096 4096 4096 --dtype=f16 --act=none --config=$c --repeat=20; done; done
  echo "-- 8192^3 128x256x64/8 cp, tc"
  m cuda cp 8192 8192 8192 --dtype=f16 --act=none --config=128x256x64/8 --repeat=5
  m cuda tc 8192 8192 8192 --dtype=f16 --act=none --config=128x256x64/8 --repeat=5
done
echo "== $(date -u +%T) anchors: cuBLAS and a Triton matmul"
PYTHONUNBUFFERED=1 timeout 240 python3 bench/triton_matmul.py 4096
echo "== $(date -u +%T) f32 4096^3"
for be in cuda vulkan; do
  for c in 128x128x16/8 128x128x32/8 64x128x16/4; do for s in 1 2; do
    echo "-- $be $c s$s"; m $be f32 4096 4096 4096 --dtype=f32 --act=none --config=$c --stages=$s --repeat=10
  done; done
done
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
for d in cp tc; do
  echo "== $(date -u +%T) ncu: f16 4096^3 128x256x64/8 $d"
  [ -n "$ncu" ] && TESSERA_BACKEND=cuda timeout 150 "$ncu" --clock-control none -k regex:matmul -s 3 -c 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy \
    --metrics sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum.per_second,dram__bytes.sum.per_second,l1tex__m_xbar2l1tex_read_bytes.sum.per_second,lts__t_sector_hit_rate.pct \
    $W/bin/05_matmul_aot 4096 4096 4096 --dtype=f16 --act=none --config=128x256x64/8 --repeat=5 --package-dir=$W/$d > $out/ncu-$d.txt 2>&1
  grep -E "Duration|Throughput|Stall|Cycles Per Issued|gmma|lts__|dram__|l1tex__|Hit Rate|Busy|Bandwidth|Eligible|Issued Warp|Registers|Achieved|Theoretical Occ" $out/ncu-$d.txt | head -60
done
echo "== $(date -u +%T) done"
