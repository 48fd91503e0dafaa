// The op × dtype cases: element-wise operators, comparisons, casts, math, reductions, scans,
// shapes, random numbers and atomics. Each case is one declaration below.
#include "OpCases.hpp"

#include <algorithm>
#include <cinttypes>
#include <limits>

namespace tessera::optests {
namespace {

/// Set while an f32 fma case runs on Vulkan, whose Fma may be unfused.
thread_local bool tUnfusedFmaAllowed = false;

/// Integer results wrap like the hardware's: compute in 64 bits, keep the low bits.
template <class T> T wrap(int64_t v) { return T(uint64_t(v)); }

template <class T> void addIntegerCases(std::vector<OpCase> &cases, const std::string &tn) {
  auto gen = [](std::mt19937 &rng, T &a, T &b) {
    a = randomValue<T>(rng);
    b = randomValue<T>(rng);
    if (rng() % 16 == 0) b = 0;                                       // defined: x / 0 = 0, x % 0 = x
    if (std::is_signed_v<T> && rng() % 16 == 0) a = std::numeric_limits<T>::min(), b = T(-1); // MIN / -1
  };
  auto add = [&](std::string op, auto kernelOp, auto hostOp) {
    for (Layout layout : {Layout::Tail, Layout::One, Layout::TwoD}) {
      std::string name = "int_" + op + "_" + tn + suffix(layout);
      cases.push_back(elementwise<T, T, T>(
          name, "binary", layout, TRACE(return traceBinary<T, T, T>(name, layout, kernelOp);), gen,
          [=](T a, T b, T got, std::string &why) { return exactly(got, T(hostOp(a, b)), why); }));
    }
  };
  add("add", [](tl::Tile a, tl::Tile b) { return a + b; }, [](T a, T b) { return wrap<T>(int64_t(a) + int64_t(b)); });
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
  add("not", [](tl::Tile a, tl::Tile) { return !a; }, [](T a, T) { return T(~a); });
  add("neg", [](tl::Tile a, tl::Tile) { return -a; }, [](T a, T) { return wrap<T>(-int64_t(a)); });
  add("clamp", [](tl::Tile a, tl::Tile) { return tl::clamp(a, 3, 100); }, [](T a, T) { return std::clamp(a, T(3), T(100)); });
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
        name, "binary", Layout::Tail,
        TRACE(return traceBinary<T, T, T>(name, Layout::Tail, [left](tl::Tile a, tl::Tile b) { return left ? a << b : a >> b; });),
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
}

template <class T> void addFloatCases(std::vector<OpCase> &cases, const std::string &tn) {
  auto gen = [](std::mt19937 &rng, T &a, T &b) {
    a = randomValue<T>(rng);
    b = randomValue<T>(rng);
    if (rng() % 32 == 0) (rng() % 2 ? a : b) = fromFloat<T>(NAN); // every op propagates it
  };
  // + - * round once (f16/bf16: computed in f32, which rounds the same as native arithmetic);
  // Vulkan's OpFDiv may be off by up to 2.5 ULP of f32, i.e. at most 1 ULP after rounding to
  // f16/bf16 and 3 ULP in f32.
  // `%` also on exact multiples (x = k * y, exact in T): a driver that divides approximately may
  // miss by one y there (NVIDIA's Vulkan driver did); the result must be a zero with x's sign.
  auto remGen = [gen](std::mt19937 &rng, T &a, T &b) {
    gen(rng, a, b);
    double multiple = toDouble(b) * double(int(rng() % 201) - 100);
    if (rng() % 4 == 0 && toDouble(fromFloat<T>(float(multiple))) == multiple) a = fromFloat<T>(float(multiple));
  };
  auto add = [&](std::string op, auto kernelOp, auto hostOp, double ulps) {
    for (Layout layout : {Layout::Tail, Layout::One, Layout::TwoD}) {
      std::string name = "float_" + op + "_" + tn + suffix(layout);
      std::function<void(std::mt19937 &, T &, T &)> inputs = gen;
      if (op == "rem") inputs = remGen;
      cases.push_back(elementwise<T, T, T>(
          name, "binary", layout, TRACE(return traceBinary<T, T, T>(name, layout, kernelOp);), inputs,
          [=](T a, T b, T got, std::string &why) {
            T want = fromFloat<T>(hostOp(float(toDouble(a)), float(toDouble(b))));
            why = show(want) + (ulps ? " (within " + show(ulps) + " ULP)" : "");
            return ulps == 0 ? exactly(got, want, why) : ulpDistance<T>(toDouble(got), toDouble(want)) <= ulps;
          }));
    }
  };
  add("add", [](tl::Tile a, tl::Tile b) { return a + b; }, [](float a, float b) { return a + b; }, 0);
  add("sub", [](tl::Tile a, tl::Tile b) { return a - b; }, [](float a, float b) { return a - b; }, 0);
  add("mul", [](tl::Tile a, tl::Tile b) { return a * b; }, [](float a, float b) { return a * b; }, 0);
  // f32 `/` and sqrt: Vulkan allows 2.5 ULP (3 from the rounded result); CUDA's fast sqrt is
  // sqrt.approx.f32. f16/bf16 through a correctly rounded f32 result are exactly the correctly
  // rounded f16/bf16 (24 >= 2p + 2 bits); through an approximate one, within 1 ULP.
  constexpr double kDivUlps = std::is_same_v<T, float> ? 3 : 1;
  add("div", [](tl::Tile a, tl::Tile b) { return a / b; }, [](float a, float b) { return a / b; }, kDivUlps);
  add("sqrt", [](tl::Tile a, tl::Tile) { return tl::sqrt(tl::abs(a)); }, [](float a, float) { return std::sqrt(std::fabs(a)); }, kDivUlps);
  add("rem", [](tl::Tile a, tl::Tile b) { return a % b; }, [](float a, float b) { return std::fmod(a, b); }, 0);
  add("neg", [](tl::Tile a, tl::Tile) { return -a; }, [](float a, float) { return -a; }, 0);
  add("clamp", [](tl::Tile a, tl::Tile) { return tl::clamp(a, -100, 250.5); }, [](float a, float) { return std::isnan(a) ? NAN : std::clamp(a, -100.f, 250.5f); }, 0);
  add("min", [](tl::Tile a, tl::Tile b) { return tl::minimum(a, b); }, [](float a, float b) { return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b); }, 0);
  add("max", [](tl::Tile a, tl::Tile b) { return tl::maximum(a, b); }, [](float a, float b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }, 0);
  add("where", [](tl::Tile a, tl::Tile b) { return tl::where(a > b, a, b * 2); }, [](float a, float b) { return a > b ? a : b * 2; }, 0);
  if constexpr (std::is_same_v<T, float>) {
    // One rounding on CUDA (fma.rn). Vulkan's GLSL.std.450 Fma may round a*b first (lavapipe
    // does): there the unfused result is accepted too, and nothing else.
    for (Layout layout : {Layout::Tail, Layout::One, Layout::TwoD}) {
      std::string name = "float_fma_f32" + suffix(layout);
      OpCase c = elementwise<T, T, T>(
          name, "binary", layout,
          TRACE(return traceBinary<T, T, T>(name, layout, [](tl::Tile a, tl::Tile b) { return tl::fma(a, b, a); });), gen,
          [](float a, float b, float got, std::string &why) {
            float fused = std::fma(a, b, a);
            volatile float product = a * b; // rounded on its own: no contraction on the host either
            float unfused = product + a;
            std::string ignored;
            why = show(fused) + (tUnfusedFmaAllowed ? " or, unfused, " + show(unfused) : "");
            return exactly(got, fused, ignored) || (tUnfusedFmaAllowed && exactly(got, unfused, ignored));
          });
      c.run = [run = c.run](Device &dev, const Kernel &k, std::mt19937 &rng) {
        tUnfusedFmaAllowed = dev.backend() == Backend::Vulkan;
        std::string result = run(dev, k, rng);
        tUnfusedFmaAllowed = false;
        return result;
      };
      cases.push_back(std::move(c));
    }
  } else {
    add("fma", [](tl::Tile a, tl::Tile b) { return tl::fma(a, b, a); }, [](float a, float b) { return std::fma(a, b, a); }, 0);
  }
  add("abs_neg", [](tl::Tile a, tl::Tile) { return tl::abs(-a); }, [](float a, float) { return std::fabs(a); }, 0);
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

/// The edge cases of every conversion, one input in three; random values otherwise.
template <class S> S castInput(std::mt19937 &rng) {
  if constexpr (isFloatT<S>) {
    static const float specials[] = {
        NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 2.5f, -2.5f, 3.5f, -0.9f, -1.0f,
        127.5f, 127.9f, -128.5f, -128.9f, -129.0f, 255.9f, 256.f, 32767.9f, -32768.9f, 1e10f, -1e10f,
        4294967040.f, 4294967296.f, 2147483520.f, 2147483648.f, -2147483648.f, -2147483904.f,
        9.2233715e18f, 9.2233720e18f, -9.2233720e18f, -1e19f,
        65504.f, 65519.f, 65520.f, -65520.f, 0x1.ffep15f,                       // f16 overflow
        1.00048828125f, 1.00146484375f, -1.00048828125f,                         // f16 ties (1 + k 2^-11)
        0x1p-24f, 0x1p-25f, 0x1.8p-24f, 0x1.4p-24f, 0x1p-14f, 0x1.ff8p-15f, 6e-8f, 3e-8f, // f16 subnormals
        1.00390625f, 1.01171875f, -1.01171875f, 0x1.ff8p127f, 3.4028235e38f,     // bf16 ties and overflow
        1e-45f, -1e-40f, 1.17549435e-38f, 0x1.0101p-127f};                       // f32 subnormals
    if (rng() % 3 == 0)
      return fromFloat<S>(specials[rng() % (sizeof specials / sizeof *specials)]);
    std::uniform_real_distribution<float> d(-70000.f, 70000.f);
    return fromFloat<S>(d(rng));
  } else {
    using L = std::numeric_limits<S>;
    const S specials[] = {L::min(), L::max(), S(0), S(1), S(-1), S(L::max() - 1), S(L::min() + 1)};
    if (rng() % 4 == 0)
      return specials[rng() % 7];
    return randomValue<S>(rng);
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
      name, "cast", Layout::Tail, TRACE(return traceCast<S, D>(name);),
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

/// One math function: its input range and its bound. An f32 result passes when it is within
/// `ulps + growth * g` units in the last place of the exact value (g = |x|, or |y log2 x| for
/// pow: Vulkan's form for exp-like functions), an f16/bf16 result within `halfUlps` (they round
/// an f32 result once more), or either within `absTol` (results near zero, where Vulkan states
/// an absolute bound). Measured on lavapipe with margin: docs/op-tests.md.
struct MathSpec {
  const char *name;
  double lo, hi;
  bool logUniform; // inputs spread over magnitudes rather than uniformly
  double ulps, growth, halfUlps, absTol;
};

constexpr MathSpec kMathSpecs[] = {
    {"exp", -10, 10, false, 5, 2, 1, 0},          {"exp2", -14, 15, false, 4, 2, 1, 0},
    {"log", 1e-4, 6e4, true, 3, 0, 1, 0x1p-21},   {"log2", 1e-4, 6e4, true, 3, 0, 1, 0x1p-21},
    {"sqrt", 0, 6e4, false, 3, 0, 1, 0},          {"rsqrt", 1e-4, 6e4, true, 2, 0, 1, 0},
    {"sin", -3.1416, 3.1416, false, 0, 0, 1, 0x1p-20}, {"cos", -3.1416, 3.1416, false, 0, 0, 1, 0x1p-20},
    {"tanh", -10, 10, false, 4, 0, 1, 0x1p-21},   {"sigmoid", -20, 20, false, 6, 2, 1, 0},
    {"erf", -4, 4, false, 8, 0, 1, 0x1p-24},      {"floor", -100, 100, false, 0, 0, 0, 0},
    {"ceil", -100, 100, false, 0, 0, 0, 0},       {"pow", 0.1, 10, false, 10, 2, 1, 0},
};

double mathReference(const std::string &fn, double x, double y) {
  if (fn == "exp") return std::exp(x);
  if (fn == "exp2") return std::exp2(x);
  if (fn == "log") return std::log(x);
  if (fn == "log2") return std::log2(x);
  if (fn == "sqrt") return std::sqrt(x);
  if (fn == "rsqrt") return 1 / std::sqrt(x);
  if (fn == "sin") return std::sin(x);
  if (fn == "cos") return std::cos(x);
  if (fn == "tanh") return std::tanh(x);
  if (fn == "sigmoid") return 1 / (1 + std::exp(-x));
  if (fn == "erf") return std::erf(x);
  if (fn == "floor") return std::floor(x);
  if (fn == "ceil") return std::ceil(x);
  return std::pow(x, y);
}

#ifndef TESSERA_OPTESTS_AOT
tl::Tile mathKernel(const std::string &fn, tl::Tile a, tl::Tile b) {
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
}
#endif

template <class T> void addMath(std::vector<OpCase> &cases, const std::string &tn) {
  for (const MathSpec &spec : kMathSpecs) {
    std::string fn = spec.name, name = "math_" + fn + "_" + tn;
    MathSpec s = spec;
    constexpr bool f32 = std::is_same_v<T, float>;
    cases.push_back(elementwise<T, T, T>(
        name, "math", Layout::Tail,
        TRACE(return traceBinary<T, T, T>(name, Layout::Tail, [fn](tl::Tile a, tl::Tile b) { return mathKernel(fn, a, b); });),
        [s](std::mt19937 &rng, T &a, T &b) {
          std::uniform_real_distribution<double> d(s.lo, s.hi), logd(std::log(s.lo), std::log(s.hi)), e(-4, 4);
          a = fromFloat<T>(float(s.logUniform ? std::exp(logd(rng)) : d(rng)));
          b = fromFloat<T>(float(e(rng)));
        },
        [s, fn, name](T a, T b, T got, std::string &why) {
          double x = toDouble(a), y = toDouble(b), want = mathReference(fn, x, y), g = toDouble(got);
          double ulps = !f32 ? s.halfUlps : s.ulps + s.growth * std::fabs(fn == "pow" ? y * std::log2(x) : x);
          double err = std::fabs(g - want), u = ulpDistance<T>(g, want);
          MathError &m = mathErrors()[name];
          m.absolute = std::max(m.absolute, err);
          if (err > s.absTol)
            m.ulps = std::max(m.ulps, u - (ulps - (f32 ? s.ulps : s.halfUlps))); // beyond the growth term
          ++m.samples;
          why = show(want) + " (off by " + show(u) + " ULP; bound " + show(ulps) + " ULP or " + show(s.absTol) + " absolute)";
          return u <= std::max(ulps, 0.5) || err <= s.absTol; // 0.5: a correctly rounded result of an exact op
        }));
  }
}

} // namespace

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
  addLogicCases(cases);
  addStructuredCases(cases);
  return cases;
}

} // namespace tessera::optests

std::map<std::string, tessera::optests::MathError> &tessera::optests::mathErrors() {
  static std::map<std::string, MathError> errors;
  return errors;
}
