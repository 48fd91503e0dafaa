// The benchmark kernels in the tile language (compiler builds only): vector add, row softmax and
// layernorm forward, written as a user would, in fast or portable mode.
#include "BenchTrace.hpp"

#include <cmath>

namespace tessera::bench {

namespace tl = tessera::tl;

namespace {

constexpr float kEps = 1e-5f;

// Programs may be folded into a 2-D grid (Problem::grid): the linear program index.
tl::Tile programIndex() { return tl::program_id(0) + tl::program_id(1) * tl::num_programs(0); }

} // namespace

Result<TracedKernel> traceProblem(const Problem &p) {
  const int BLOCK = p.block;
  KernelOptions options{.numWarps = p.warps, .numerics = p.portable ? Numerics::Portable : Numerics::Fast};
  if (p.kernel == "add") {
    options.argNames = {"x", "y", "out", "n"};
    auto add = [BLOCK](tl::Ptr<float> x, tl::Ptr<float> y, tl::Ptr<float> out, tl::Scalar<int32_t> n) {
      tl::Tile offs = programIndex() * BLOCK + tl::arange(0, BLOCK);
      tl::Tile mask = offs < n;
      tl::store(out + offs, tl::load(x + offs, mask) + tl::load(y + offs, mask), mask);
    };
    return trace("add", add, options);
  }
  if (p.kernel == "softmax") {
    options.argNames = {"in", "out", "n"};
    auto softmax = [BLOCK](tl::Ptr<float> in, tl::Ptr<float> out, tl::Scalar<int32_t> n) {
      tl::Tile cols = tl::arange(0, BLOCK), mask = cols < n;
      tl::Tile row = programIndex() * n;
      tl::Tile x = tl::load(in + row + cols, mask, -INFINITY);
      tl::Tile e = tl::exp(x - tl::max(x));
      tl::store(out + row + cols, e / tl::sum(e), mask);
    };
    return trace("softmax", softmax, options);
  }
  if (p.kernel == "layernorm") {
    options.argNames = {"x", "y", "w", "b", "n"};
    auto layernorm = [BLOCK](tl::Ptr<f16> x, tl::Ptr<f16> y, tl::Ptr<f16> w, tl::Ptr<f16> b, tl::Scalar<int32_t> n) {
      tl::Tile row = programIndex() * n, cols = tl::arange(0, BLOCK), mask = cols < n;
      tl::Tile v = tl::cast(tl::load(x + row + cols, mask, 0), DType::F32);
      tl::Tile nf = tl::cast(n, DType::F32);
      tl::Tile centered = tl::where(mask, v - tl::sum(v) / nf, 0.0f);
      tl::Tile r = tl::rsqrt(tl::sum(centered * centered) / nf + kEps);
      tl::Tile scale = tl::cast(tl::load(w + cols, mask), DType::F32);
      tl::Tile shift = tl::cast(tl::load(b + cols, mask), DType::F32);
      tl::store(y + row + cols, tl::cast(centered * r * scale + shift, DType::F16), mask);
    };
    return trace("layernorm", layernorm, options);
  }
  return Status(StatusCode::InvalidArgument, "no benchmark kernel '" + p.kernel + "'");
}

} // namespace tessera::bench
