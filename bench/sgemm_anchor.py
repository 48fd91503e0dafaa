"""cuBLAS's sgemm through PyTorch (no tf32) at 4096^3, timed with do_bench (L2 flushed between
launches) and back to back, as the f32 runs' anchor (scripts/runs/gpu-run93.sh on)."""
import os
import sys

import torch
import triton.testing as tt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from triton_matmul import back_to_back  # noqa: E402

torch.backends.cuda.matmul.allow_tf32 = False
a = torch.randn(4096, 4096, device="cuda")
b = torch.randn_like(a)
ms = tt.do_bench(lambda: a @ b)
b2b = back_to_back(lambda: a @ b)
print(f"torch float32 4096^3: {2 * 4096**3 / ms / 1e9:.1f} TFLOP/s; back to back {2 * 4096**3 / b2b / 1e9:.1f}")
