// The op × dtype cases: element-wise operators, comparisons, casts, math, reductions, scans,
// shapes, random numbers and atomics. Each case is one declaration below.
#include "OpCases.hpp"

#include <algorithm>
#include <cinttypes>
#include <limits>

namespace tl = tessera::tl;
#ifndef TESSERA_OPTESTS_AOT
#define TRACE(...) [=]() -> Result<TracedKernel> { __VA_ARGS__ }
#else
#define TRACE(...) nullptr // kernels come from packages
#endif

namespace tessera::optests {
namespace {

constexpr int BLOCK = 256, N = BLOCK - 3; // a masked tail of 3
constexpr int R = 16, C = 32, RV = 13, CV = 29; // 2-D tiles, valid region 13 x 29

bool valid2d(int i) { return i / C < RV && i % C < CV; }

template <class T> T randomValue(std::mt19937 &rng, bool small = false) {
  if constexpr (isFloatT<T>) {
    std::uniform_real_distribution<float> d(small ? -8.f : -1000.f, small ? 8.f : 1000.f);
    return fromFloat<T>(d(rng));
  } else {
    using L = std::numeric_limits<T>;
    std::uniform_int_distribution<int64_t> d(small ? std::max<int64_t>(L::min(), -100) : int64_t(L::min()),
                                             small ? std::min<int64_t>(L::max(), 100) : int64_t(std::min<uint64_t>(L::max(), INT64_MAX)));
    return T(d(rng));
  }
}

/// A case over inputs a, b (BLOCK elements each) and an output checked element by element.
template <class A, class B, class O>
OpCase elementwise(std::string name, std::string family, bool twoD,
                   std::function<Result<TracedKernel>()> trace,
                   std::function<void(std::mt19937 &, A &, B &)> gen,
                   std::function<bool(A, B, O, std::string &)> check) {
  OpCase c{name, family, trace, std::nullopt, nullptr};
  c.run = [=](Device &dev, const Kernel &k, std::mt19937 &rng) -> std::string {
    std::vector<A> a(BLOCK);
    std::vector<B> b(BLOCK);
    for (int i = 0; i < BLOCK; ++i)
      gen(rng, a[i], b[i]);
    std::vector<O> out(BLOCK, poison<O>());
    std::string err;
    auto ba = upload(dev, a, err), bb = upload(dev, b, err), bo = upload(dev, out, err);
    if (!err.empty())
      return err;
    if (Status s = k.launch({1}, {*ba, *bb, *bo, int32_t(N)}); !s)
      return s.toString();
    out = download<O>(*bo, err);
    if (!err.empty())
      return err;
    for (int i = 0; i < BLOCK; ++i) {
      bool inside = twoD ? valid2d(i) : i < N;
      if (!inside) {
        if (!sameBits(out[i], poison<O>()))
          return "element " + std::to_string(i) + " is masked off but was written (" + show(out[i]) + ")";
        continue;
      }
      std::string why;
      if (!check(a[i], b[i], out[i], why))
        return "element " + std::to_string(i) + ": a = " + show(a[i]) + ", b = " + show(b[i]) + ": got " + show(out[i]) +
               ", expected " + why;
    }
    return "";
  };
  return c;
}

#ifndef TESSERA_OPTESTS_AOT
/// The standard kernel: out = f(load a, load b) over a 1-D tile with a masked tail, or a 2-D
/// tile masked on both dimensions.
template <class A, class B, class O, class F> Result<TracedKernel> traceBinary(std::string name, bool twoD, F f) {
  auto kernel = [=](tl::Ptr<A> a, tl::Ptr<B> b, tl::Ptr<O> out, tl::Scalar<int32_t> n) {
    tl::Tile offs = tl::arange(0, BLOCK), mask = offs < n;
    if (twoD) {
      tl::Tile r = tl::expand_dims(tl::arange(0, R), 1), c = tl::expand_dims(tl::arange(0, C), 0);
      offs = r * C + c;
      mask = (r < RV) & (c < CV);
    }
    tl::store(out + offs, f(tl::load(a + offs, mask), tl::load(b + offs, mask)), mask);
  };
  return trace(name, kernel, {.numWarps = 2});
}
#endif

template <class T> bool exactly(T got, T want, std::string &why) {
  why = show(want);
  return sameBits(got, want) || (isFloatT<T> && std::isnan(toDouble(got)) && std::isnan(toDouble(want)));
}

/// Integer results wrap like the hardware's: compute in 64 bits, keep the low bits.
template <class T> T wrap(int64_t v) { return T(uint64_t(v)); }

template <class T> void addIntegerCases(std::vector<OpCase> &cases, const std::string &tn) {
  auto gen = [](std::mt19937 &rng, T &a, T &b) {
    a = randomValue<T>(rng);
    b = randomValue<T>(rng);
    if (rng() % 16 == 0) b = 0;                                       // defined: x / 0 = 0, x % 0 = x
    if (std::is_signed_v<T> && rng() % 16 == 0) a = std::numeric_limits<T>::min(), b = T(-1); // MIN / -1
  };
  auto add = [&](std::string op, auto kernelOp, auto hostOp, bool twoD = false) {
    std::string name = "int_" + op + "_" + tn + (twoD ? "_2d" : "");
    cases.push_back(elementwise<T, T, T>(
        name, "binary", twoD, TRACE(return traceBinary<T, T, T>(name, twoD, kernelOp);), gen,
        [=](T a, T b, T got, std::string &why) { return exactly(got, T(hostOp(a, b)), why); }));
  };
  add("add", [](tl::Tile a, tl::Tile b) { return a + b; }, [](T a, T b) { return wrap<T>(int64_t(a) + int64_t(b)); });
  add("add", [](tl::Tile a, tl::Tile b) { return a + b; }, [](T a, T b) { return wrap<T>(int64_t(a) + int64_t(b)); }, true);
  add("sub", [](tl::Tile a, tl::Tile b) { return a - b; }, [](T a, T b) { return wrap<T>(int64_t(a) - int64_t(b)); });
  add("mul", [](tl::Tile a, tl::Tile b) { return a * b; }, [](T a, T b) { return wrap<T>(int64_t(uint64_t(a) * uint64_t(b))); });
  add("div", [](tl::Tile a, tl::Tile b) { return a / b; }, [](T a, T b) {
    if (b == 0) return T(0);
    if (std::is_signed_v<T> && b == T(-1)) return wrap<T>(-int64_t(a)); // MIN / -1 = MIN
    return T(a / b);
  });
  add("rem", [](tl::Tile a, tl::Tile b) { return a % b; }, [](T a, T b) {
    if (b == 0) return a;
    return std::is_signed_v<T> && b == T(-1) ? T(0) : T(a % b);
  });
  add("and", [](tl::Tile a, tl::Tile b) { return a & b; }, [](T a, T b) { return T(a & b); });
  add("or", [](tl::Tile a, tl::Tile b) { return a | b; }, [](T a, T b) { return T(a | b); });
  add("xor", [](tl::Tile a, tl::Tile b) { return a ^ b; }, [](T a, T b) { return T(a ^ b); });
  add("min", [](tl::Tile a, tl::Tile b) { return tl::minimum(a, b); }, [](T a, T b) { return std::min(a, b); });
  add("max", [](tl::Tile a, tl::Tile b) { return tl::maximum(a, b); }, [](T a, T b) { return std::max(a, b); });
  if constexpr (std::is_signed_v<T>)
    add("abs", [](tl::Tile a, tl::Tile) { return tl::abs(a); }, [](T a, T) { return wrap<T>(a < 0 ? -int64_t(a) : int64_t(a)); });
  // Shifts by 0 .. width + 3: amounts at or past the width are defined.
  constexpr int W = sizeof(T) * 8;
  auto shiftGen = [](std::mt19937 &rng, T &a, T &b) {
    a = randomValue<T>(rng);
    b = T(std::uniform_int_distribution<int>(0, W + 3)(rng));
  };
  auto shiftCase = [&](std::string op, bool left) {
    std::string name = "int_" + op + "_" + tn;
    cases.push_back(elementwise<T, T, T>(
        name, "binary", false,
        TRACE(return traceBinary<T, T, T>(name, false, [left](tl::Tile a, tl::Tile b) { return left ? a << b : a >> b; });),
        shiftGen, [=](T a, T b, T got, std::string &why) {
          using U = std::make_unsigned_t<T>;
          T want;
          if (left) want = b >= W ? T(0) : T(U(a) << b);
          else if (std::is_signed_v<T>) want = b >= W ? T(a < 0 ? -1 : 0) : T(a >> b);
          else want = b >= W ? T(0) : T(a >> b);
          return exactly(got, want, why);
        }));
  };
  shiftCase("shl", true);
  shiftCase("shr", false);
  // Comparisons, stored as 0/1 i32.
  std::string name = "cmp_lt_" + tn;
  cases.push_back(elementwise<T, T, int32_t>(
      name, "compare", false,
      TRACE(return traceBinary<T, T, int32_t>(name, false, [](tl::Tile a, tl::Tile b) { return tl::cast(a < b, DType::I32); });),
      [](std::mt19937 &rng, T &a, T &b) { a = randomValue<T>(rng, true); b = randomValue<T>(rng, true); },
      [](T a, T b, int32_t got, std::string &why) { return exactly(got, int32_t(a < b), why); }));
}

template <class T> void addFloatCases(std::vector<OpCase> &cases, const std::string &tn) {
  auto gen = [](std::mt19937 &rng, T &a, T &b) {
    a = randomValue<T>(rng);
    b = randomValue<T>(rng);
  };
  // + - * round once (f16/bf16: computed in f32, which rounds the same as native arithmetic);
  // Vulkan's OpFDiv may be off by up to 2.5 ULP of f32, i.e. at most 1 ULP after rounding to
  // f16/bf16 and 3 ULP in f32.
  auto add = [&](std::string op, auto kernelOp, auto hostOp, double ulps, bool twoD = false) {
    std::string name = "float_" + op + "_" + tn + (twoD ? "_2d" : "");
    cases.push_back(elementwise<T, T, T>(
        name, "binary", twoD, TRACE(return traceBinary<T, T, T>(name, twoD, kernelOp);), gen,
        [=](T a, T b, T got, std::string &why) {
          T want = fromFloat<T>(hostOp(float(toDouble(a)), float(toDouble(b))));
          why = show(want);
          return ulps == 0 ? exactly(got, want, why) : ulpDistance<T>(toDouble(got), toDouble(want)) <= ulps;
        }));
  };
  add("add", [](tl::Tile a, tl::Tile b) { return a + b; }, [](float a, float b) { return a + b; }, 0);
  add("add", [](tl::Tile a, tl::Tile b) { return a + b; }, [](float a, float b) { return a + b; }, 0, true);
  add("sub", [](tl::Tile a, tl::Tile b) { return a - b; }, [](float a, float b) { return a - b; }, 0);
  add("mul", [](tl::Tile a, tl::Tile b) { return a * b; }, [](float a, float b) { return a * b; }, 0);
  add("div", [](tl::Tile a, tl::Tile b) { return a / b; }, [](float a, float b) { return a / b; }, std::is_same_v<T, float> ? 3 : 1);
  add("min", [](tl::Tile a, tl::Tile b) { return tl::minimum(a, b); }, [](float a, float b) { return std::min(a, b); }, 0);
  add("max", [](tl::Tile a, tl::Tile b) { return tl::maximum(a, b); }, [](float a, float b) { return std::max(a, b); }, 0);
  add("where", [](tl::Tile a, tl::Tile b) { return tl::where(a > b, a, b * 2); }, [](float a, float b) { return a > b ? a : b * 2; }, 0);
  add("fma", [](tl::Tile a, tl::Tile b) { return tl::fma(a, b, a); }, [](float a, float b) { return std::fma(a, b, a); },
      std::is_same_v<T, float> ? 1 : 0);
  add("abs_neg", [](tl::Tile a, tl::Tile) { return tl::abs(-a); }, [](float a, float) { return std::fabs(a); }, 0);
  std::string name = "cmp_ne_" + tn;
  cases.push_back(elementwise<T, T, int32_t>(
      name, "compare", false,
      TRACE(return traceBinary<T, T, int32_t>(name, false, [](tl::Tile a, tl::Tile b) { return tl::cast(a != b, DType::I32); });),
      [](std::mt19937 &rng, T &a, T &b) {
        a = randomValue<T>(rng, true);
        b = rng() % 4 ? a : randomValue<T>(rng, true);
        if (rng() % 8 == 0) a = fromFloat<T>(NAN); // NaN != anything
      },
      [](T a, T b, int32_t got, std::string &why) { return exactly(got, int32_t(!(toDouble(a) == toDouble(b))), why); }));
}

// ---- casts: every source dtype to every destination dtype ----------------------------------

/// Tessera's float -> integer rule: truncate, saturate, NaN -> 0.
template <class D> D floatToInt(double v) {
  if (std::isnan(v)) return D(0);
  double t = std::trunc(v);
  if (t <= double(std::numeric_limits<D>::min())) return std::numeric_limits<D>::min();
  if (t >= double(std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
  return D(t);
}

template <class S, class D> D castRef(S s) {
  if constexpr (isFloatT<S> && isFloatT<D>)
    return fromFloat<D>(float(toDouble(s))); // exact to f32, then round to nearest even
  else if constexpr (isFloatT<S>)
    return floatToInt<D>(toDouble(s));
  else if constexpr (isFloatT<D>) {
    if constexpr (std::is_same_v<D, bf16>)
      return bf16::fromFloat(float(s)); // through f32
    else if constexpr (std::is_same_v<D, f16>)
      return f16::fromFloat(float(s)); // exact for these magnitudes? see generator
    else
      return D(s); // one rounding (C++ int -> float is round to nearest)
  } else
    return D(s); // wrap or extend
}

template <class S> S castInput(std::mt19937 &rng) {
  if constexpr (isFloatT<S>) {
    static const float specials[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e-45f, 2.5f, -2.5f, 3.5f, 127.5f, -128.5f,
                                     255.9f, 256.f, 1e10f, -1e10f, 4294967040.f, 2147483520.f, -2147483648.f, 65519.f, 65520.f,
                                     1.00390625f, 1.01171875f, 6e-8f, 3e-8f};
    if (rng() % 3 == 0)
      return fromFloat<S>(specials[rng() % (sizeof specials / sizeof *specials)]);
    std::uniform_real_distribution<float> d(-70000.f, 70000.f);
    return fromFloat<S>(d(rng));
  } else {
    S v = randomValue<S>(rng);
    return v;
  }
}

#ifndef TESSERA_OPTESTS_AOT
template <class S, class D> Result<TracedKernel> traceCast(std::string name) {
  auto kernel = [](tl::Ptr<S> a, tl::Ptr<S>, tl::Ptr<D> out, tl::Scalar<int32_t> n) {
    tl::Tile offs = tl::arange(0, BLOCK), mask = offs < n;
    tl::store(out + offs, tl::cast(tl::load(a + offs, mask), DTypeOf<D>::value), mask);
  };
  return trace(name, kernel, {.numWarps = 2});
}
#endif

template <class S, class D> void addCast(std::vector<OpCase> &cases, const std::string &sn, const std::string &dn) {
  std::string name = "cast_" + sn + "_to_" + dn;
  cases.push_back(elementwise<S, S, D>(
      name, "cast", false, TRACE(return traceCast<S, D>(name);),
      [](std::mt19937 &rng, S &a, S &b) {
        a = castInput<S>(rng);
        // int -> f16 rounds once from the integer; keep integers within f32's exact range so
        // the reference (through f32) is the same rounding.
        if constexpr (!isFloatT<S> && std::is_same_v<D, f16>)
          a = S(int64_t(a) % (1 << 20));
        b = a;
      },
      [](S a, S, D got, std::string &why) { return exactly(got, castRef<S, D>(a), why); }));
}

template <class S> void addCastsFrom(std::vector<OpCase> &cases, const std::string &sn) {
  addCast<S, float>(cases, sn, "f32");
  addCast<S, f16>(cases, sn, "f16");
  addCast<S, bf16>(cases, sn, "bf16");
  addCast<S, int8_t>(cases, sn, "i8");
  addCast<S, int16_t>(cases, sn, "i16");
  addCast<S, int32_t>(cases, sn, "i32");
  addCast<S, int64_t>(cases, sn, "i64");
  addCast<S, uint8_t>(cases, sn, "u8");
  addCast<S, uint32_t>(cases, sn, "u32");
}

// ---- math -----------------------------------------------------------------------------------

struct MathSpec {
  const char *name;
  double lo, hi;                   // input range
  double relTol, absTol;           // pass when |got - want| <= absTol + relTol * |want|
};

template <class T> void addMath(std::vector<OpCase> &cases, const std::string &tn) {
  // Bounds: Vulkan's precision table (exp 3 + 2|x| ULP, log 3 ULP, sin/cos 2^-11 absolute)
  // and libdevice's (<= 2 ULP); f16/bf16 add the final rounding to the type.
  double typeEps = std::is_same_v<T, float> ? 0 : std::is_same_v<T, f16> ? 0x1p-11 : 0x1p-8;
  double typeAbs = std::is_same_v<T, f16> ? 0x1p-24 : 0; // f16's subnormal spacing
  static const MathSpec specs[] = {
      {"exp", -10, 10, 2e-6, 0},     {"exp2", -10, 10, 2e-6, 0},   {"log", 1e-3, 1e4, 2e-6, 1e-6},
      {"log2", 1e-3, 1e4, 2e-6, 1e-6}, {"sqrt", 0, 1e4, 1e-6, 0},  {"rsqrt", 1e-3, 1e4, 2e-6, 0},
      {"sin", -3.14, 3.14, 0, 5e-4}, {"cos", -3.14, 3.14, 0, 5e-4}, {"tanh", -5, 5, 1e-5, 1e-6},
      {"sigmoid", -10, 10, 1e-5, 1e-7}, {"erf", -3, 3, 0, 2e-6},   {"floor", -100, 100, 0, 0},
      {"ceil", -100, 100, 0, 0},     {"pow", 0.1, 10, 1e-5, 0},
  };
  for (const MathSpec &spec : specs) {
    std::string fn = spec.name, name = "math_" + fn + "_" + tn;
    MathSpec s = spec;
    cases.push_back(elementwise<T, T, T>(
        name, "math", false,
        TRACE(return traceBinary<T, T, T>(name, false, [fn](tl::Tile a, tl::Tile b) -> tl::Tile {
          if (fn == "exp") return tl::exp(a);
          if (fn == "exp2") return tl::exp2(a);
          if (fn == "log") return tl::log(a);
          if (fn == "log2") return tl::log2(a);
          if (fn == "sqrt") return tl::sqrt(a);
          if (fn == "rsqrt") return tl::rsqrt(a);
          if (fn == "sin") return tl::sin(a);
          if (fn == "cos") return tl::cos(a);
          if (fn == "tanh") return tl::tanh(a);
          if (fn == "sigmoid") return tl::sigmoid(a);
          if (fn == "erf") return tl::erf(a);
          if (fn == "floor") return tl::floor(a);
          if (fn == "ceil") return tl::ceil(a);
          return tl::pow(a, b);
        });),
        [s](std::mt19937 &rng, T &a, T &b) {
          std::uniform_real_distribution<double> d(s.lo, s.hi), e(-2, 2);
          a = fromFloat<T>(float(d(rng)));
          b = fromFloat<T>(float(e(rng)));
        },
        [s, fn, typeEps, typeAbs](T a, T b, T got, std::string &why) {
          double x = toDouble(a), y = toDouble(b), w;
          if (fn == "exp") w = std::exp(x);
          else if (fn == "exp2") w = std::exp2(x);
          else if (fn == "log") w = std::log(x);
          else if (fn == "log2") w = std::log2(x);
          else if (fn == "sqrt") w = std::sqrt(x);
          else if (fn == "rsqrt") w = 1 / std::sqrt(x);
          else if (fn == "sin") w = std::sin(x);
          else if (fn == "cos") w = std::cos(x);
          else if (fn == "tanh") w = std::tanh(x);
          else if (fn == "sigmoid") w = 1 / (1 + std::exp(-x));
          else if (fn == "erf") w = std::erf(x);
          else if (fn == "floor") w = std::floor(x);
          else if (fn == "ceil") w = std::ceil(x);
          else w = std::pow(x, y);
          why = show(w) + " (within " + show(s.absTol + typeAbs) + " + " + show(s.relTol + typeEps) + " relative)";
          return std::fabs(toDouble(got) - w) <= s.absTol + typeAbs + (s.relTol + typeEps) * std::fabs(w);
        }));
  }
}

} // namespace

void addStructuredCases(std::vector<OpCase> &cases); // OpCasesStructured.cpp

std::vector<OpCase> allCases() {
  std::vector<OpCase> cases;
  addIntegerCases<int8_t>(cases, "i8");
  addIntegerCases<int16_t>(cases, "i16");
  addIntegerCases<int32_t>(cases, "i32");
  addIntegerCases<int64_t>(cases, "i64");
  addIntegerCases<uint8_t>(cases, "u8");
  addIntegerCases<uint32_t>(cases, "u32");
  addFloatCases<float>(cases, "f32");
  addFloatCases<f16>(cases, "f16");
  addFloatCases<bf16>(cases, "bf16");
  addCastsFrom<float>(cases, "f32");
  addCastsFrom<f16>(cases, "f16");
  addCastsFrom<bf16>(cases, "bf16");
  addCastsFrom<int8_t>(cases, "i8");
  addCastsFrom<int16_t>(cases, "i16");
  addCastsFrom<int32_t>(cases, "i32");
  addCastsFrom<int64_t>(cases, "i64");
  addCastsFrom<uint8_t>(cases, "u8");
  addCastsFrom<uint32_t>(cases, "u32");
  addMath<float>(cases, "f32");
  addMath<f16>(cases, "f16");
  addMath<bf16>(cases, "bf16");
  addStructuredCases(cases);
  return cases;
}

} // namespace tessera::optests
