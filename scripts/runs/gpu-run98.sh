#!/usr/bin/env bash
# Run 98 (twenty-ninth session), GPU test-machine side; scripts/runs/stage-run98.sh says what.
# Carry .gpu, .gpu-bench and .gpu-stage/bin/w98. The parts named (default: dot), each logging
# to $OUT: dot, issue [5/6]'s table (scripts/gpu-dot-table.sh); bench, issue [4/6]'s
# (scripts/gpu-bench.sh without Nsight profiles).
W=.gpu-stage/bin/w98
export LD_LIBRARY_PATH=$W/lib:${LD_LIBRARY_PATH:-}
parts=" ${*:-dot} "
[[ $parts == *" dot "* ]] && bash scripts/gpu-dot-table.sh gpu-run98-dot.log $W/full $W/bin
[[ $parts == *" bench "* ]] && TESSERA_NCU=0 bash scripts/gpu-bench.sh
exit 0
