#!/usr/bin/env bash
# GPU test-machine side of run 46 (fourteenth session): why attention's rotated loop (run 45:
# 424-427 against 455-485 TFLOP/s) is slower. Nsight Compute's stall reasons and per-instruction
# samples (SASS) for both forms, and the SASS of both (cubins made here by ptxas from the
# packages' sm_90a tensor-copy PTX; disassembled by the nvdisasm Triton ships).
# Carry .gpu .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs .gpu-stage/cubin (run 45's packages).
source scripts/gpu-setup.sh gpu-run46.log; S=.gpu-stage
dis=$(python3 -c "import triton, os; print(os.path.join(os.path.dirname(triton.__file__), 'backends/nvidia/bin'))" 2>/dev/null)
ls $dis
for o in 0 1; do [ -x $dis/nvdisasm ] && $dis/nvdisasm -c $S/cubin/overlap$o.cubin > $out/sass-overlap$o.txt 2>&1; done
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
for o in 0 1; do
  echo "== $(date -u +%T) ncu overlap=$o"
  TESSERA_BACKEND=cuda timeout 150 "$ncu" --clock-control none -k "regex:attention" -s 1 -c 1 --section WarpStateStats \
    --section SourceCounters --section SpeedOfLight --section InstructionStats --page raw \
    $S/bin/06_flash_attention_aot 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --overlap=$o --repeat=1 \
    --package-dir=$S/pkgs/r45 > $out/ncu-overlap$o.txt 2>&1
  grep -E "issue_stalled.*per_issue_active|gpu__time_duration.sum|smsp__cycles_active.avg |sm__inst_executed.sum |smsp__inst_executed.sum " $out/ncu-overlap$o.txt | awk '$NF+0 > 0.05 || /time|inst|cycles/' | head -40
  TESSERA_BACKEND=cuda timeout 150 "$ncu" --clock-control none -k "regex:attention" -s 1 -c 1 --section SourceCounters \
    --page source --print-source sass --csv \
    $S/bin/06_flash_attention_aot 4 32 4096 128 --dtype=f16 --blocks=128x128 --warps=8 --overlap=$o --repeat=1 \
    --package-dir=$S/pkgs/r45 > $out/ncu-sass-overlap$o.csv 2>&1
  wc -l $out/ncu-sass-overlap$o.csv; head -3 $out/ncu-sass-overlap$o.csv | cut -c1-300
done
echo "== $(date -u +%T) done"
# Layernorm f16 4096 x 4096 and 4096 x 8192 (CUDA 0.90x Triton in run 41): ours and Triton's
# under Nsight Compute (.gpu-stage/ln: tessera-bench --compile-only --subgroups=32
# --filter=layernorm --mode=fast --write-packages).
lnm='gpu__time_duration.sum|dram__throughput.avg.pct_of_peak_sustained_elapsed|dram__bytes_read.sum |dram__bytes_write.sum |sm__warps_active.avg.pct_of_peak|launch__registers_per_thread|launch__occupancy_limit|launch__block_size|issue_stalled.*per_issue_active|smsp__inst_executed.sum |launch__grid_size'
for c in 4096 8192; do
  echo "== $(date -u +%T) ncu layernorm ours $c"
  TESSERA_BACKEND=cuda timeout 120 "$ncu" --clock-control none -k "regex:layernorm" -s 2 -c 1 --section WarpStateStats \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --page raw \
    $S/bin/tessera-bench-aot --packages=$S/ln --filter="layernorm f16 4096x$c" --mode=fast > $out/ncu-ln-ours-$c.txt 2>&1
  grep -E "$lnm" $out/ncu-ln-ours-$c.txt | awk '$NF+0 > 0.05 || /time|inst|launch|dram|warps/' | head -30
  echo "== $(date -u +%T) ncu layernorm triton $c"
  timeout 120 "$ncu" --clock-control none -k "regex:layernorm_kernel" -s 2 -c 1 --section WarpStateStats \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --page raw \
    python3 -c "
import sys; sys.argv=['x']; sys.path.insert(0, 'bench')
import torch, triton, anchors
x = torch.randn(4096, $c, device='cuda', dtype=torch.float16); w = torch.rand($c, device='cuda', dtype=torch.float16) + 0.5
b = torch.randn($c, device='cuda', dtype=torch.float16); y = torch.empty_like(x)
for _ in range(4): anchors.layernorm_kernel[(4096,)](x, y, w, b, x.stride(0), $c, 1e-5, BLOCK=$c, num_warps=8)
torch.cuda.synchronize()" > $out/ncu-ln-triton-$c.txt 2>&1
  grep -E "$lnm" $out/ncu-ln-triton-$c.txt | awk '$NF+0 > 0.05 || /time|inst|launch|dram|warps/' | head -30
done
echo "== $(date -u +%T) done"
