// The suite's cases: element-wise basics and math, row-wise reductions, scans, softmax and
// layernorm, each one declaration over the shared kernel shape.
#include "Suite.hpp"

#ifndef TESSERA_SUITE_AOT
#include "tessera/tessera.hpp"
#endif

#include <cmath>
#include <limits>

namespace tessera::suite {
namespace {

/// out = body(x, y, mask) over one program's BLOCK elements, masked by offs < n; x and y are
/// loaded as T (`other` in masked lanes) and computed in f32, the result stored back as T.
using Body = std::function<tl::Tile(tl::Tile x, tl::Tile y, tl::Tile mask)>;

// Kernel bodies need the tile language; the runtime-only build has none (its kernels come
// from recorded packages).
#ifdef TESSERA_SUITE_AOT
#define TL(...) nullptr
#else
#define TL(...) __VA_ARGS__
#endif

#ifdef TESSERA_SUITE_AOT
Result<TracedKernel> traceFor(DType, const std::string &, Numerics, double, const Body &) {
  return Status(StatusCode::Unavailable, "this build has no compiler; run with --goldens=DIR");
}
#else
template <class T> Result<TracedKernel> traceBody(const std::string &name, Numerics mode, double other, Body body) {
  auto kernel = [body, other](tl::Ptr<T> x, tl::Ptr<T> y, tl::Ptr<T> out, tl::Scalar<int32_t> n) {
    tl::Tile offs = tl::program_id(0) * BLOCK + tl::arange(0, BLOCK);
    tl::Tile mask = offs < n;
    tl::Tile a = tl::load(x + offs, mask, other), b = tl::load(y + offs, mask, other);
    if constexpr (!std::is_same_v<T, float>) {
      a = tl::cast(a, DType::F32);
      b = tl::cast(b, DType::F32);
    }
    tl::Tile r = body(a, b, mask);
    if constexpr (!std::is_same_v<T, float>)
      r = tl::cast(r, DTypeOf<T>::value);
    tl::store(out + offs, r, mask);
  };
  return trace(name, kernel, {.numWarps = 4, .argNames = {"x", "y", "out", "n"}, .numerics = mode});
}

Result<TracedKernel> traceFor(DType t, const std::string &name, Numerics mode, double other, const Body &body) {
  switch (t) {
  case DType::F16: return traceBody<f16>(name, mode, other, body);
  case DType::BF16: return traceBody<bf16>(name, mode, other, body);
  default: return traceBody<float>(name, mode, other, body);
  }
}
#endif

/// Where inputs come from: uniform in [lo, hi] (or log-uniform for lo > 0), with special
/// values (±0, ±inf, NaN, denormals, the largest values) mixed in.
struct Domain {
  double lo, hi;
  bool logUniform = false;
  bool specials = true;
};

void store(HostBuffer &b, size_t i, double v) {
  switch (b.dtype) {
  case DType::F16: b.data<f16>()[i] = f16::fromFloat(float(v)); break;
  case DType::BF16: b.data<bf16>()[i] = bf16::fromFloat(float(v)); break;
  default: b.data<float>()[i] = float(v);
  }
}

double special(DType t, std::mt19937 &rng) {
  double tiny = t == DType::F16 ? 0x1p-24 : t == DType::BF16 ? 0x1p-133 : 0x1p-149; // smallest denormal
  double big = t == DType::F16 ? 65504 : 3.3e38;
  const double values[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, tiny, 37 * tiny, -5 * tiny, big, -big, 1.0, -1.0};
  return values[rng() % std::size(values)];
}

double draw(const Domain &d, DType t, std::mt19937 &rng) {
  if (d.specials && rng() % 16 == 0)
    return special(t, rng);
  std::uniform_real_distribution<double> u(0, 1);
  if (d.logUniform)
    return d.lo * std::pow(d.hi / d.lo, u(rng));
  return d.lo + (d.hi - d.lo) * u(rng);
}

/// x and y from their domains; `scale(x, y)` per element for the bound's absolute term.
using PerElement = std::function<double(double x, double y)>;

Problem elementwiseProblem(DType t, int32_t n, std::mt19937 &rng, const Domain &dx, const Domain &dy,
                           const PerElement &scale, const PerElement &growth = nullptr) {
  Problem p;
  size_t count = size_t(std::max(n, 1));
  p.x = HostBuffer(t, count);
  p.y = HostBuffer(t, count);
  p.out = HostBuffer(t, size_t(n) + 5); // a guard past n that no lane may write
  p.n = n;
  p.grid = Grid{uint32_t(std::max<int64_t>(1, (int64_t(n) + BLOCK - 1) / BLOCK))};
  for (size_t i = 0; i < count; ++i) {
    store(p.x, i, draw(dx, t, rng));
    store(p.y, i, draw(dy, t, rng));
  }
  p.scale.assign(p.out.count(), 1.0);
  p.inFastDomain.assign(p.out.count(), false);
  p.growth.assign(p.out.count(), 0.0);
  // Fast mode keeps no promise on f32 denormals (NVIDIA's Vulkan driver flushes them; f16
  // denormals are normal in f32, bf16 ones are not).
  auto inside = [](const Domain &d, double v) {
    return v >= d.lo && v <= d.hi && !(v != 0 && std::fabs(v) < 0x1p-126);
  };
  for (int32_t i = 0; i < n; ++i) {
    double x = elementValue(p.x, i), y = elementValue(p.y, i);
    if (scale)
      p.scale[i] = scale(x, y);
    p.inFastDomain[i] = inside(dx, x) && inside(dy, y);
    p.growth[i] = growth ? growth(x, y) : std::fabs(x);
  }
  return p;
}

/// Row-wise cases, finite inputs only; with `scaleBySum`, scale[i] = Σ|x| over i's row (program).
Problem rowProblem(DType t, int32_t n, std::mt19937 &rng, const Domain &d, bool scaleBySum) {
  Domain finite = d;
  finite.specials = false;
  Problem p = elementwiseProblem(t, n, rng, finite, finite, nullptr);
  if (!scaleBySum)
    return p;
  for (int32_t row = 0; row * BLOCK < n; ++row) {
    double sum = 0;
    for (int32_t i = row * BLOCK; i < std::min(n, (row + 1) * BLOCK); ++i)
      sum += std::fabs(elementValue(p.x, i));
    for (int32_t i = row * BLOCK; i < std::min(n, (row + 1) * BLOCK); ++i)
      p.scale[i] = sum;
  }
  return p;
}

constexpr double kF32Eps = 0x1p-24;

std::vector<Case> build() {
  std::vector<Case> out;
  const std::vector<int32_t> elementSizes{253, 1, 0, (1 << 16) + 3}, rowSizes{253, 1, 0, 64 * BLOCK + 7};
  auto elementwise = [&](std::string name, std::string family, Body body, Domain dx, Domain dy, Budgets budgets,
                         PerElement scale = nullptr, PerElement growth = nullptr) {
    Case c{name, family, budgets, nullptr, nullptr, elementSizes};
    c.trace = [name, body](DType t, Numerics mode) { return traceFor(t, name, mode, 0, body); };
    c.problem = [dx, dy, scale, growth](DType t, int32_t n, std::mt19937 &rng) {
      return elementwiseProblem(t, n, rng, dx, dy, scale, growth);
    };
    out.push_back(std::move(c));
  };
  auto unary = [&](std::string name, std::string family, std::function<tl::Tile(tl::Tile)> f, Domain d, Budgets b) {
    Domain unused{d.lo, d.hi, d.logUniform, false}; // y is not read
    elementwise(name, family, [f](tl::Tile x, tl::Tile, tl::Tile) { return f(x); }, d, unused, b);
  };
  // Row budgets' absolute terms scale with Σ|x| for sums (`scaleBySum`); outputs of O(1)
  // (softmax, layernorm) keep the scale 1.
  auto row = [&](std::string name, double other, Body body, Domain d, Budgets budgets, bool scaleBySum) {
    Case c{name, "row", budgets, nullptr, nullptr, rowSizes};
    c.trace = [name, body, other](DType t, Numerics mode) { return traceFor(t, name, mode, other, body); };
    c.problem = [d, scaleBySum](DType t, int32_t n, std::mt19937 &rng) { return rowProblem(t, n, rng, d, scaleBySum); };
    out.push_back(std::move(c));
  };

  // Correctly rounded in portable mode (0.5 ULP); fast mode as the backends give it.
  const Domain wide{-1e4, 1e4};
  const Budgets exact{.fast = {0.5001}, .portable = {0.5001}};
  elementwise("add", "basic", TL([](tl::Tile x, tl::Tile y, tl::Tile) { return x + y; }), wide, wide, exact);
  elementwise("sub", "basic", TL([](tl::Tile x, tl::Tile y, tl::Tile) { return x - y; }), wide, wide, exact);
  elementwise("mul", "basic", TL([](tl::Tile x, tl::Tile y, tl::Tile) { return x * y; }), wide, wide, exact);
  elementwise("div", "basic", TL([](tl::Tile x, tl::Tile y, tl::Tile) { return x / y; }), wide, wide,
              {.fast = {3}, .portable = {0.5001}});
  unary("sqrt", "basic", TL([](tl::Tile x) { return tl::sqrt(tl::abs(x)); }), wide, {.fast = {3}, .portable = {0.5001}});
  // fast fma may be unfused on Vulkan: then off by the rounding of x*y (2^-24 |x y|).
  elementwise("fma", "basic", TL([](tl::Tile x, tl::Tile y, tl::Tile) { return tl::fma(x, y, x); }), wide, wide,
              {.fast = {0.5001, 0, kF32Eps}, .portable = {0.5001}}, [](double x, double y) { return std::fabs(x * y); });

  // x * y + x as two operations: portable mode rounds twice (no contraction), fast mode may
  // fuse them (then off by the rounding of x*y). Where x * y is beyond f32's largest value (the
  // kernels compute in f32: special inputs near it), the rounded product is ±inf and so is the
  // sum, although x * y + x may be finite: the absolute term is then unbounded.
  elementwise("mul_add", "basic", TL([](tl::Tile x, tl::Tile y, tl::Tile) { return x * y + x; }), wide, wide,
              {.fast = {0.5001, 0, kF32Eps}, .portable = {0.5001, 0, kF32Eps}}, [](double x, double y) {
                const double product = std::fabs(x * y);
                return product > double(std::numeric_limits<float>::max()) ? INFINITY : product;
              });

  // Math: fast-mode bounds from docs/op-tests.md; portable within 2 ULP (docs/numerics.md).
  const Bound p2{2};
  unary("exp", "math", TL([](tl::Tile x) { return tl::exp(x); }), {-10, 10}, {.fast = {5, 2}, .portable = p2});
  unary("exp2", "math", TL([](tl::Tile x) { return tl::exp2(x); }), {-14, 15}, {.fast = {4, 2}, .portable = p2});
  unary("log", "math", TL([](tl::Tile x) { return tl::log(x); }), {1e-4, 6e4, true}, {.fast = {3, 0, 0x1p-21}, .portable = p2});
  unary("log2", "math", TL([](tl::Tile x) { return tl::log2(x); }), {1e-4, 6e4, true}, {.fast = {3, 0, 0x1p-21}, .portable = p2});
  unary("rsqrt", "math", TL([](tl::Tile x) { return tl::rsqrt(x); }), {1e-4, 6e4, true}, {.fast = {2}, .portable = p2});
  unary("sin", "math", TL([](tl::Tile x) { return tl::sin(x); }), {-3.1416, 3.1416},
        {.fast = {0, 0, 0x1p-20}, .portable = {2, 0, 0x1p-30}});
  unary("cos", "math", TL([](tl::Tile x) { return tl::cos(x); }), {-3.1416, 3.1416},
        {.fast = {0, 0, 0x1p-20}, .portable = {2, 0, 0x1p-30}});
  unary("tanh", "math", TL([](tl::Tile x) { return tl::tanh(x); }), {-10, 10}, {.fast = {4, 0, 0x1p-21}, .portable = p2});
  unary("sigmoid", "math", TL([](tl::Tile x) { return tl::sigmoid(x); }), {-20, 20}, {.fast = {6, 2}, .portable = {3}});
  unary("erf", "math", TL([](tl::Tile x) { return tl::erf(x); }), {-4, 4}, {.fast = {8, 0, 0x1p-24}, .portable = p2});
  elementwise("pow", "math", TL([](tl::Tile x, tl::Tile y, tl::Tile) { return tl::pow(tl::abs(x), y); }), {0.1, 10},
              {-4, 4}, {.fast = {10, 2}, .portable = p2}, nullptr,
              [](double x, double y) { return std::fabs(y * std::log2(std::fabs(x))); });

  // Row-wise (one row per program): the sum's order is what portable mode fixes.
  const Domain values{-100, 100};
  const Bound sumBound{1, 0, BLOCK * kF32Eps};
  row("sum", 0, TL([](tl::Tile x, tl::Tile, tl::Tile) { return tl::broadcast_to(tl::sum(x), {BLOCK}); }), values,
      {.fast = sumBound, .portable = sumBound}, true);
  // The same row as a 16 x 16 tile summed along each axis: other layouts (runs across rows,
  // lanes along either axis) must give the canonical order too.
  row("sum_axis1", 0, TL([](tl::Tile x, tl::Tile, tl::Tile) {
        return tl::reshape(tl::broadcast_to(tl::sum(tl::reshape(x, {16, 16}), 1, true), {16, 16}), {BLOCK});
      }), values, {.fast = sumBound, .portable = sumBound}, true);
  row("sum_axis0", 0, TL([](tl::Tile x, tl::Tile, tl::Tile) {
        return tl::reshape(tl::broadcast_to(tl::sum(tl::reshape(x, {16, 16}), 0, true), {16, 16}), {BLOCK});
      }), values, {.fast = sumBound, .portable = sumBound}, true);
  // The row as two 16 x 16 tiles multiplied with dot, in the row's own type (f32, or f16/bf16
  // operands into f32): portable mode fixes the k order; fast mode may fuse and use tensor cores.
  // Bound: K = 16 roundings of the sum of |products| (the problem's scale).
  {
    Case c{"dot", "dot", {.fast = {1, 0, 16 * kF32Eps}, .portable = {1, 0, 16 * kF32Eps}}, nullptr, nullptr, rowSizes};
#ifndef TESSERA_SUITE_AOT
    c.trace = [](DType t, Numerics mode) {
      Body body = [t](tl::Tile x, tl::Tile y, tl::Tile) {
        tl::Tile a = tl::reshape(x, {16, 16}), b = tl::reshape(y, {16, 16});
        if (t != DType::F32) // exact: the values came from t
          a = tl::cast(a, t), b = tl::cast(b, t);
        return tl::reshape(tl::dot(a, b), {BLOCK});
      };
      return traceFor(t, "dot", mode, 0, body);
    };
#else
    c.trace = [](DType t, Numerics mode) { return traceFor(t, "dot", mode, 0, nullptr); };
#endif
    c.problem = [values](DType t, int32_t n, std::mt19937 &rng) {
      Problem p = rowProblem(t, n, rng, values, false);
      for (int32_t row = 0; row * BLOCK < n; ++row)
        for (int32_t i = 0; i < BLOCK && row * BLOCK + i < n; ++i) {
          double sum = 0;
          for (int32_t k = 0; k < 16; ++k) {
            int32_t ia = row * BLOCK + (i / 16) * 16 + k, ib = row * BLOCK + k * 16 + i % 16;
            sum += std::fabs((ia < n ? elementValue(p.x, size_t(ia)) : 0) * (ib < n ? elementValue(p.y, size_t(ib)) : 0));
          }
          p.scale[size_t(row * BLOCK + i)] = sum;
        }
      return p;
    };
    out.push_back(std::move(c));
  }
  row("max", 0, TL([](tl::Tile x, tl::Tile, tl::Tile mask) { return tl::broadcast_to(tl::max(tl::where(mask, x, -INFINITY)), {BLOCK}); }),
      values, {.fast = {0}, .portable = {0}}, true);
  row("cumsum", 0, TL([](tl::Tile x, tl::Tile, tl::Tile) { return tl::cumsum(x, 0); }), values,
      {.fast = sumBound, .portable = sumBound}, true);
  row("softmax", -INFINITY,
      TL([](tl::Tile x, tl::Tile, tl::Tile mask) {
        tl::Tile e = tl::exp(x - tl::max(x));
        return e / tl::sum(tl::where(mask, e, 0));
      }),
      {-10, 10}, {.fast = {8, 0, 2 * BLOCK * kF32Eps}, .portable = {4, 0, 2 * BLOCK * kF32Eps}}, false);
  row("layernorm", 0,
      TL([](tl::Tile x, tl::Tile, tl::Tile mask) {
        tl::Tile count = tl::sum(tl::cast(mask, DType::F32));
        tl::Tile mean = tl::sum(x) / count;
        tl::Tile d = tl::where(mask, x - mean, 0);
        return d * tl::rsqrt(tl::sum(d * d) / count + 1e-5);
      }),
      values, {.fast = {8, 0, 4 * BLOCK * kF32Eps}, .portable = {8, 0, 4 * BLOCK * kF32Eps}}, false);
  return out;
}

} // namespace

const std::vector<Case> &cases() {
  static const std::vector<Case> all = build();
  return all;
}

double elementValue(const HostBuffer &b, size_t i) {
  switch (b.dtype) {
  case DType::F16: return b.data<f16>()[i].toFloat();
  case DType::BF16: return b.data<bf16>()[i].toFloat();
  default: return b.data<float>()[i];
  }
}

double ulpDistance(DType t, double got, double exact) {
  if (std::isnan(got) || std::isnan(exact))
    return std::isnan(got) && std::isnan(exact) ? 0 : INFINITY;
  int digits = t == DType::F16 ? 11 : t == DType::BF16 ? 8 : 24;
  int minExp = t == DType::F16 ? -14 : -126;
  int maxExp = t == DType::F16 ? 15 : 127;
  // Beyond the largest value plus half its ULP an exact value rounds to infinity, and an
  // infinite result is then exact; a finite result stands for the largest value there.
  double big = std::ldexp(2.0 - std::ldexp(1.0, 1 - digits), maxExp);
  double overflow = std::ldexp(2.0 - std::ldexp(1.0, -digits), maxExp);
  if (std::fabs(exact) >= overflow)
    exact = std::copysign(INFINITY, exact);
  if (got == exact)
    return 0;
  if (std::isinf(got) != std::isinf(exact)) {
    if (std::isinf(got))
      got = std::copysign(big, got) + std::copysign(std::ldexp(1.0, maxExp - digits + 1), got);
    else
      exact = std::copysign(big, exact) + std::copysign(std::ldexp(1.0, maxExp - digits + 1), exact);
  } else if (std::isinf(got)) {
    return INFINITY; // opposite infinities
  }
  int e = std::max(std::ilogb(std::max(std::fabs(exact), 1e-300)), minExp);
  return std::fabs(got - exact) / std::ldexp(1.0, e - digits + 1);
}

} // namespace tessera::suite
