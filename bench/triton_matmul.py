"""A block matmul written in Triton, timed next to PyTorch's (cuBLAS) on the GPU test machine, so
that Tessera's CUDA matmul has a compiler of the same kind as a second anchor: f16 in, f32
accumulate, f16 out, C = A B with A M x K and B K x N row-major, at 4096^3. Each block shape is
checked against torch.matmul before it is timed two ways: triton.testing.do_bench (median, L2
flushed between launches) and as the examples time themselves (back to back after about 200 ms
of warm-up, each launch between CUDA events, median of 20)."""
import sys

import torch
import triton
import triton.language as tl
import triton.testing as tt


@triton.jit
def matmul_kernel(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m, tiles_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
    # Grouped order: GROUP row blocks share their B columns in L2.
    per_group = GROUP * tiles_n
    first_m = (pid // per_group) * GROUP
    rows_in_group = min(tiles_m - first_m, GROUP)
    pm = first_m + (pid % per_group) % rows_in_group
    pn = (pid % per_group) // rows_in_group
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        x = tl.load(a + rm[:, None] * K + (k0 + rk)[None, :], mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
        y = tl.load(b + (k0 + rk)[:, None] * N + rn[None, :], mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(x, y, acc)
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def back_to_back(fn, count=20):
    """Median ms of `count` launches timed one by one, back to back, after ~200 ms of launches."""
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    torch.cuda.synchronize()
    for _ in range(max(1, int(200 / max(start.elapsed_time(end), 1e-3)))):
        fn()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(count)]
    for s, e in events:
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    return sorted(s.elapsed_time(e) for s, e in events)[count // 2]


def run(n, shapes, k=None):
    """n x n results; the depth k (n where not given)."""
    k = k or n
    flops = 2 * n * n * k
    name = f"{n}^3" if k == n else f"{n}x{n}x{k}"
    torch.manual_seed(0)
    a = torch.randn(n, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    ref = a @ b
    ms = tt.do_bench(lambda: a @ b)
    b2b = back_to_back(lambda: a @ b)
    print(f"cublas f16 {name}: {ms:.4f} ms, {flops / ms / 1e9:.1f} TFLOP/s; back to back {flops / b2b / 1e9:.1f}",
          flush=True)
    for bm, bn, bk, warps, stages in shapes:
        c = torch.empty_like(ref)
        grid = (triton.cdiv(n, bm) * triton.cdiv(n, bn),)
        launch = lambda: matmul_kernel[grid](a, b, c, n, n, k, BM=bm, BN=bn, BK=bk, GROUP=8, num_warps=warps, num_stages=stages)
        try:
            launch()
            torch.cuda.synchronize()
        except Exception as e:  # a shape this Triton cannot compile is reported, not fatal
            print(f"triton {bm}x{bn}x{bk} w{warps} s{stages}: {type(e).__name__}: {str(e).splitlines()[0][:120]}")
            continue
        err = (c.float() - ref.float()).abs().max().item()
        ms = tt.do_bench(launch)
        b2b = back_to_back(launch)
        print(f"triton {bm}x{bn}x{bk} w{warps} s{stages} f16 {name}: {ms:.4f} ms, {flops / ms / 1e9:.1f} TFLOP/s; "
              f"back to back {flops / b2b / 1e9:.1f} (max |err| {err:.3g} vs torch)", flush=True)


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
    run(n, [(128, 256, 64, 8, 3), (128, 256, 64, 8, 4), (128, 128, 64, 4, 4), (128, 128, 64, 8, 4), (256, 128, 64, 8, 3)])
