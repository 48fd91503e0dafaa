#!/usr/bin/env bash
# GPU test-machine side of run 27: a tile's copies into shared memory (cp.async) behind one branch
# for all of a thread's 16-byte runs instead of one branch per run, through CUDA: the default
# wgmma matmul and attention against run 23's packages (old), checked on ragged shapes first.
# Packages: .gpu-stage/pkgs/r27/new (05_matmul 16 16 16 ... --config=128x256x64/8 [--act=gelu |
# --b-transposed | --dtype=bf16], --config=128x128x32/8 --ptx-chips=sm_90 (mma.sync), and
# 06_flash_attention 1 1 16 128 --dtype=f16 --blocks=64x32 [--causal], --write-package);
# .gpu-stage/pkgs/r27/old: run 23's. Carry .gpu .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs/r27.
source scripts/gpu-setup.sh gpu-copies-run27.log; S=.gpu-stage; P=$S/pkgs/r27
python3 bench/dot_anchors.py
m() { local d=$1; shift; TESSERA_BACKEND=cuda timeout 60 $S/bin/05_matmul_aot "$@" --package-dir=$P/$d 2>&1 | grep -v "matrix units"; }
fa() { local d=$1; shift; TESSERA_BACKEND=cuda timeout 90 $S/bin/06_flash_attention_aot "$@" --package-dir=$P/$d 2>&1 | grep -v "matrix units"; }
m new 333 517 200 --dtype=f16 --act=gelu --config=128x256x64/8; m new 333 517 200 --dtype=f16 --act=none --b-transposed --config=128x256x64/8
m new 1000 1000 1000 --dtype=bf16 --act=none --config=128x256x64/8; m new 333 517 200 --dtype=f16 --act=none --config=128x128x32/8
fa new 2 1 333 128 --dtype=f16 --blocks=64x32 --causal; fa new 1 2 100 128 --dtype=f16 --blocks=64x32
for i in 1 2; do for d in old new; do m $d 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=128x256x64/8; done; done
for d in old new; do m $d 8192 8192 8192 --dtype=f16 --act=none --repeat=5 --config=128x256x64/8; done
m new 4096 4096 4096 --dtype=bf16 --act=none --repeat=20 --config=128x256x64/8
m new 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=128x256x64/8 --b-transposed
m new 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=128x128x32/8
for d in old new; do fa $d 4 32 4096 128 --dtype=f16 --blocks=64x32 --repeat=5; done
fa new 4 32 4096 128 --dtype=f16 --blocks=64x32 --causal --repeat=5
echo "== $(date -u +%T) done"
