"""Measure the PyTorch and Triton anchors of tessera-bench's memory-bound workloads on one GPU."""
# usage: python3 bench/anchors.py anchors.json   (needs one NVIDIA GPU, torch and triton)
import datetime
import json
import os
import sys
import tempfile
import time
import traceback

# A fresh cache, so that the first launch of the add kernel really compiles it.
os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="anchors-triton-cache-")

import torch  # noqa: E402
import triton  # noqa: E402
import triton.testing  # noqa: E402
import triton.language as tl  # noqa: E402


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(x_ptr + offs, mask=mask)
    b = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a + b, mask=mask)


@triton.jit
def softmax_kernel(x_ptr, out_ptr, x_stride, out_stride, ncols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < ncols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=-float("inf"))
    shifted = x - tl.max(x, axis=0)
    e = tl.exp(shifted)
    tl.store(out_ptr + row * out_stride + cols, e / tl.sum(e, axis=0), mask=mask)


@triton.jit
def layernorm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, stride, ncols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < ncols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / ncols
    diff = tl.where(mask, x - mean, 0.0)
    var = tl.sum(diff * diff, axis=0) / ncols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = diff * rstd * w + b
    tl.store(y_ptr + row * stride + cols, y.to(tl.float16), mask=mask)


ADD_BLOCK = 1024
results = []
failures = []


def bench(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median")


def record(work, impl, ms, nbytes):
    gbps = None if nbytes is None else nbytes / (ms * 1e6)
    results.append({"work": work, "impl": impl, "median_ms": float(ms), "gbps": gbps})
    shown = "" if gbps is None else f"{gbps:10.1f} GB/s"
    print(f"{work:28s} {impl:7s} {ms:10.4f} ms {shown}", flush=True)


def launch_add(x, y, out):
    n = x.numel()
    add_kernel[(triton.cdiv(n, ADD_BLOCK),)](x, y, out, n, BLOCK=ADD_BLOCK)


def compile_cost():
    n = 1 << 20
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    torch.cuda.synchronize()
    for work in ("compile+first launch add", "second launch add (host)"):
        start = time.perf_counter()
        launch_add(x, y, out)
        torch.cuda.synchronize()
        record(work, "triton", (time.perf_counter() - start) * 1e3, None)


def copy_work():
    n = 1 << 29
    a = torch.randn(n, device="cuda")
    b = torch.empty_like(a)
    record("copy f32 2GiB", "torch", bench(lambda: b.copy_(a)), 2 * 4 * n)


def add_work(log2n):
    n = 1 << log2n
    work = f"add f32 n=2^{log2n}"
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    nbytes = 3 * 4 * n
    record(work, "torch", bench(lambda: torch.add(x, y, out=out)), nbytes)
    launch_add(x, y, out)
    torch.testing.assert_close(out, x + y)
    record(work, "triton", bench(lambda: launch_add(x, y, out)), nbytes)


def softmax_work(rows, cols):
    work = f"softmax f32 {rows}x{cols}"
    x = torch.randn(rows, cols, device="cuda")
    out = torch.empty_like(x)
    nbytes = 2 * 4 * rows * cols
    record(work, "torch", bench(lambda: torch.softmax(x, 1)), nbytes)
    block = triton.next_power_of_2(cols)
    warps = 4 if block <= 2048 else 8 if block <= 4096 else 16

    def run():
        softmax_kernel[(rows,)](x, out, x.stride(0), out.stride(0), cols, BLOCK=block, num_warps=warps)

    run()
    torch.testing.assert_close(out, torch.softmax(x, 1))
    record(work, "triton", bench(run), nbytes)


def layernorm_work(rows, cols):
    work = f"layernorm f16 {rows}x{cols}"
    eps = 1e-5
    x = torch.randn(rows, cols, device="cuda", dtype=torch.float16)
    w = torch.rand(cols, device="cuda", dtype=torch.float16) + 0.5
    b = torch.randn(cols, device="cuda", dtype=torch.float16)
    y = torch.empty_like(x)
    nbytes = 2 * 2 * rows * cols
    fln = torch.nn.functional.layer_norm
    record(work, "torch", bench(lambda: fln(x, (cols,), w, b, eps)), nbytes)
    block = triton.next_power_of_2(cols)

    def run():
        layernorm_kernel[(rows,)](x, y, w, b, x.stride(0), cols, eps, BLOCK=block, num_warps=8)

    run()
    torch.testing.assert_close(y, fln(x, (cols,), w, b, eps), atol=1e-2, rtol=0)
    record(work, "triton", bench(run), nbytes)


def main():
    if len(sys.argv) != 2:
        print("usage: python3 anchors.py OUT.json", file=sys.stderr)
        return 2
    torch.manual_seed(0)
    torch.zeros(1, device="cuda")  # create the CUDA context before any timing
    steps = [(compile_cost, ()), (copy_work, ())]
    steps += [(add_work, (k,)) for k in (20, 24, 28)]
    steps += [(softmax_work, (4096, c)) for c in (1024, 4096, 16384)]
    steps += [(layernorm_work, (4096, c)) for c in (4096, 8192)]
    for fn, args in steps:
        try:
            fn(*args)
        except Exception:  # keep the other workloads; a failed check records nothing for its impl
            failures.append(f"{fn.__name__}{args}")
            traceback.print_exc()
        torch.cuda.empty_cache()
    report = {
        "device": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "triton": triton.__version__,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "results": results,
    }
    with open(sys.argv[1], "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    print(f"wrote {sys.argv[1]} ({len(results)} results)")
    if failures:
        print("FAILED: " + ", ".join(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
