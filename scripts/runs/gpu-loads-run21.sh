#!/usr/bin/env bash
# GPU test-machine side of run 21: one branch per load (and store) for all of a thread's whole
# 16-byte runs, against a branch per run (commit 54dbdd3), in one call, old and new packages
# side by side: the Vulkan cooperative-matrix matmul and attention, the f32 FMA matmul through
# CUDA and Vulkan, and the benchmark kernels (softmax, layernorm, add) through both. Packages:
# .gpu-stage/pkgs/ld/{old,new} (05_matmul / 06_flash_attention --write-package at each commit) and
# .gpu-stage/bench/{old,new} (tessera-bench --compile-only --subgroups=32 --mode=fast
# --write-packages=DIR); carry .gpu .gpu-stage/bin .gpu-stage/lib .gpu-stage/pkgs/ld .gpu-stage/bench.
source scripts/gpu-setup.sh gpu-loads-run21.log; S=.gpu-stage
python3 - <<'PY'
import torch, triton.testing as tt
import torch.nn.functional as F
torch.backends.cuda.matmul.allow_tf32 = False
for dtype in (torch.float16, torch.float32):
    a = torch.randn(4096, 4096, device="cuda", dtype=dtype); b = torch.randn_like(a)
    ms = tt.do_bench(lambda: a @ b)
    print(f"torch {str(dtype).split('.')[1]} 4096^3: {ms:.4f} ms, {2 * 4096**3 / ms / 1e9:.1f} TFLOP/s")
q, k, v = (torch.randn(4, 32, 4096, 128, device="cuda", dtype=torch.float16) for _ in range(3))
for causal in (False, True):
    ms = tt.do_bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
    print(f"torch SDPA causal={causal}: {ms:.4f} ms, {4*4*32*4096*4096*128*(0.5 if causal else 1.0) / ms / 1e9:.1f} TFLOP/s")
x = torch.randn(4096, 16384, device="cuda"); ms = tt.do_bench(lambda: torch.softmax(x, dim=1))
print(f"torch softmax f32 4096x16384: {ms:.4f} ms, {2 * x.numel() * 4 / ms / 1e6:.0f} GB/s")
PY
m() { local be=$1 d=$2; shift 2; TESSERA_BACKEND=$be timeout 60 $S/bin/05_matmul_aot "$@" --package-dir=$S/pkgs/ld/$d 2>&1 | grep -v "matrix units"; }
fa() { local d=$1; shift; TESSERA_BACKEND=vulkan timeout 60 $S/bin/06_flash_attention_aot "$@" --package-dir=$S/pkgs/ld/$d 2>&1 | grep -v "matrix units"; }
for i in 1 2; do
  for d in old new; do
    echo "-- $d"
    m vulkan $d 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=256x128x32/8
    m vulkan $d 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=128x256x32/16
    fa $d 4 32 4096 128 --dtype=f16 --blocks=64x32 --repeat=5
  done
done
for d in old new; do
  echo "-- $d"
  m vulkan $d 333 517 200 --dtype=f16 --act=none --config=256x128x32/8
  fa $d 2 1 333 128 --dtype=f16 --causal --blocks=64x32 --repeat=3; fa $d 4 32 4096 128 --dtype=f16 --causal --blocks=64x32 --repeat=5
  m vulkan $d 4096 4096 4096 --dtype=f32 --act=none --repeat=10 --config=128x128x16/8
  m cuda $d 4096 4096 4096 --dtype=f32 --act=none --repeat=10 --config=128x128x16/8
done
for be in cuda vulkan; do
  for d in old new; do
    echo "== bench $be $d"
    for w in "softmax f32 4096x16384" "layernorm f16 4096x8192" "n=2^28"; do
      TESSERA_BACKEND=$be timeout 100 $S/bin/tessera-bench-aot --packages=$S/bench/$d --mode=fast --filter="$w" 2>&1 | grep -E "GB/s|^ *(softmax|layernorm|add)" | head -4
    done
  done
done
echo "== $(date -u +%T) done"
