#!/usr/bin/env bash
# Run 68 (twenty-second session), GPU test-machine side: the targets tables of issues [4/6] and
# [5/6] from one call with this build. First the memory-bound harness (scripts/gpu-bench.sh, both
# backends and modes, PyTorch and Triton, ratios; no Nsight profiles), then the dot work with its
# anchors (bench/dot_anchors.py): the examples' default blocks through CUDA and Vulkan, checked on
# ragged shapes, then timed. Here first: bash scripts/runs/stage-run68.sh (after stage-run67.sh).
# Carry .gpu .gpu-bench .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs/full (the whole .gpu-stage with
# run 67's package sets exceeds the 64 MiB a call carries).
TESSERA_NCU=0 bash scripts/gpu-bench.sh
bash scripts/gpu-dot-table.sh gpu-run68-dot.log .gpu-stage/pkgs/full
