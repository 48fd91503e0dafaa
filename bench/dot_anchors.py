"""The anchors of the dot runs (scripts/gpu-dot.sh, scripts/gpu-dot-quick.sh), on the GPU test
machine: PyTorch's matmul (cuBLAS) in f16, bf16 and f32 without tf32, and SDPA (flash) f16 at
batch 4, 32 heads, seq 4096, head dim 128, causal and not, each the median of do_bench (L2 flushed
between launches, the GPU idle meanwhile) and of 20 launches back to back, as the examples time
theirs (run 84: cuBLAS f16 4096^3 762 TFLOP/s one way, 695 the other)."""
import os
import sys

import torch
import torch.nn.functional as F
import triton.testing as tt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from triton_matmul import back_to_back  # noqa: E402  (timed as the examples time themselves)

torch.backends.cuda.matmul.allow_tf32 = False
for dtype, n in ((torch.float16, 4096), (torch.bfloat16, 4096), (torch.float16, 8192), (torch.float32, 4096)):
    a = torch.randn(n, n, device="cuda", dtype=dtype)
    b = torch.randn_like(a)
    ms = tt.do_bench(lambda: a @ b)
    b2b = back_to_back(lambda: a @ b)
    print(f"torch {str(dtype).split('.')[1]} {n}^3: {ms:.4f} ms, {2 * n**3 / ms / 1e9:.1f} TFLOP/s; "
          f"back to back {2 * n**3 / b2b / 1e9:.1f}")
q, k, v = (torch.randn(4, 32, 4096, 128, device="cuda", dtype=torch.float16) for _ in range(3))
for causal in (False, True):
    ms = tt.do_bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
    b2b = back_to_back(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
    flops = 4 * 4 * 32 * 4096 * 4096 * 128 * (0.5 if causal else 1.0)
    print(f"torch SDPA causal={causal}: {ms:.4f} ms, {flops / ms / 1e9:.1f} TFLOP/s; back to back {flops / b2b / 1e9:.1f}")
