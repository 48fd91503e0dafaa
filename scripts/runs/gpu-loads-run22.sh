#!/usr/bin/env bash
# GPU test-machine side of run 22: the final loads (one branch for all of a thread's whole runs;
# stores again a branch per run, which keeps the f32 matmul at 124 registers) on the Vulkan
# cooperative-matrix matmul and attention, the f32 FMA matmul and the benchmark kernels; and the
# spread between processes of the Vulkan matmul with the runtime's rule (a dedicated allocation
# from 64 MiB up, .gpu-stage/lib) against a build that gives every buffer one (.gpu-stage/lib-all,
# picked through LD_LIBRARY_PATH), alternating, four processes each. Packages: .gpu-stage/pkgs/ld3
# (05_matmul / 06_flash_attention --write-package) and .gpu-stage/bench/new3 (tessera-bench
# --compile-only --subgroups=32 --mode=fast --write-packages=DIR); carry .gpu .gpu-stage/bin
# .gpu-stage/lib .gpu-stage/lib-all .gpu-stage/pkgs/ld3 .gpu-stage/bench/new3.
source scripts/gpu-setup.sh gpu-loads-run22.log; S=.gpu-stage; P=$S/pkgs/ld3
python3 - <<'PY'
import torch, triton.testing as tt
import torch.nn.functional as F
torch.backends.cuda.matmul.allow_tf32 = False
for dtype in (torch.float16, torch.float32):
    a = torch.randn(4096, 4096, device="cuda", dtype=dtype); b = torch.randn_like(a)
    ms = tt.do_bench(lambda: a @ b)
    print(f"torch {str(dtype).split('.')[1]} 4096^3: {ms:.4f} ms, {2 * 4096**3 / ms / 1e9:.1f} TFLOP/s")
a = torch.randn(8192, 8192, device="cuda", dtype=torch.float16); b = torch.randn_like(a)
ms = tt.do_bench(lambda: a @ b); print(f"torch float16 8192^3: {ms:.4f} ms, {2 * 8192**3 / ms / 1e9:.1f} TFLOP/s")
q, k, v = (torch.randn(4, 32, 4096, 128, device="cuda", dtype=torch.float16) for _ in range(3))
for causal in (False, True):
    ms = tt.do_bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
    print(f"torch SDPA causal={causal}: {ms:.4f} ms, {4*4*32*4096*4096*128*(0.5 if causal else 1.0) / ms / 1e9:.1f} TFLOP/s")
PY
m() { local be=$1; shift; TESSERA_BACKEND=$be timeout 60 $S/bin/05_matmul_aot "$@" --package-dir=$P 2>&1 | grep -v "matrix units"; }
fa() { TESSERA_BACKEND=vulkan timeout 60 $S/bin/06_flash_attention_aot "$@" --package-dir=$P 2>&1 | grep -v "matrix units"; }
m vulkan 333 517 200 --dtype=f16 --act=none --config=256x128x32/8; m vulkan 1000 1000 1000 --dtype=f16 --act=none --config=128x256x32/16
fa 2 1 333 128 --dtype=f16 --causal --blocks=64x32; fa 1 2 100 128 --dtype=f16 --blocks=64x32
for i in 1 2 3 4; do
  for lib in lib lib-all; do
    echo "-- $lib"
    LD_LIBRARY_PATH=$S/$lib m vulkan 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=256x128x32/8
  done
done
for lib in lib lib-all; do echo "-- $lib"; LD_LIBRARY_PATH=$S/$lib m vulkan 8192 8192 8192 --dtype=f16 --act=none --repeat=5 --config=256x128x32/8; done
for i in 1 2; do m vulkan 4096 4096 4096 --dtype=f16 --act=none --repeat=20 --config=128x256x32/16; done
for i in 1 2; do fa 4 32 4096 128 --dtype=f16 --blocks=64x32 --repeat=5; fa 4 32 4096 128 --dtype=f16 --causal --blocks=64x32 --repeat=5; done
m vulkan 4096 4096 4096 --dtype=f32 --act=none --repeat=10 --config=128x128x16/8
m cuda 4096 4096 4096 --dtype=f32 --act=none --repeat=10 --config=128x128x16/8
for be in cuda vulkan; do
  echo "== bench $be"
  for w in "softmax f32 4096x16384" "layernorm f16 4096x8192" "n=2^28"; do
    TESSERA_BACKEND=$be timeout 100 $S/bin/tessera-bench-aot --packages=$S/bench/new3 --mode=fast --filter="$w" 2>&1 | grep -E "^ *(softmax|layernorm|add)" | head -2
  done
done
echo "== $(date -u +%T) done"
