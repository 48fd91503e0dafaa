// The op-test cases: a traced kernel (absent in runtime-only builds) and a host runner that
// fills inputs, launches, and compares against the CPU reference.
#pragma once

#include "tessera/runtime/Runtime.hpp"
#include "tessera/tl.hpp" // declarations only: runtime-only builds never trace
#ifndef TESSERA_OPTESTS_AOT
#include "tessera/tessera.hpp"
#endif

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace tessera::optests {

namespace tl = tessera::tl;

/// One kernel and its check. `run` launches it on fresh random inputs (drawn from the rng)
/// with poisoned outputs and returns "" on success, else the first difference.
struct OpCase {
  std::string name, family;
  std::function<Result<TracedKernel>()> trace; // null in runtime-only builds
  std::optional<TracedKernel> traced;
  /// Returns "" on success, else the first difference.
  std::function<std::string(Device &, const Kernel &, std::mt19937 &)> run;
};

std::vector<OpCase> allCases();
void addLogicCases(std::vector<OpCase> &cases);      // OpCasesLogic.cpp
void addStructuredCases(std::vector<OpCase> &cases); // OpCasesStructured.cpp

/// Largest error seen per math case (filled while the math cases run; printed by --measure).
struct MathError {
  double ulps = 0;     // ULPs of the case's dtype from the exact value, where absTol did not cover it
  double absolute = 0; // largest |got - exact|
  size_t samples = 0;
};
std::map<std::string, MathError> &mathErrors();

// ---- the shapes every element-wise case runs on --------------------------------------------

inline constexpr int BLOCK = 256, N = BLOCK - 3;                  // 1-D: a masked tail of 3
inline constexpr int R = 16, C = 32, RC = R * C, RV = 13, CV = 29; // 2-D: valid region 13 x 29

/// Tail: a 256-element tile with n = 253; One: a 1-element tile; TwoD: a 16 x 32 tile
/// addressed rows[:, None] * 32 + cols[None, :] and masked on both dimensions.
enum class Layout { Tail, One, TwoD };
inline std::string suffix(Layout l) { return l == Layout::Tail ? "" : l == Layout::One ? "_1" : "_2d"; }
inline bool inside(Layout l, int i) {
  return l == Layout::Tail ? i < N : l == Layout::One ? i < 1 : (i / C < RV && i % C < CV);
}

// ---- host values --------------------------------------------------------------------------

template <class T> double toDouble(T v) {
  if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>)
    return v.toFloat();
  else
    return double(v);
}
template <class T> T fromFloat(float v) {
  if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>)
    return T::fromFloat(v);
  else
    return T(v);
}
template <class T> constexpr bool isFloatT = std::is_floating_point_v<T> || std::is_same_v<T, f16> || std::is_same_v<T, bf16>;
template <class T> std::string show(T v) {
  char buf[64];
  if constexpr (isFloatT<T>)
    std::snprintf(buf, sizeof buf, "%.9g", toDouble(v));
  else
    std::snprintf(buf, sizeof buf, "%lld", (long long)v);
  return buf;
}
template <class T> bool sameBits(T a, T b) { return std::memcmp(&a, &b, sizeof(T)) == 0; }

/// Distance in units in the last place of `T` between two values (for floats).
template <class T> double ulpDistance(double got, double want) {
  if (std::isnan(got) || std::isnan(want))
    return std::isnan(got) && std::isnan(want) ? 0 : 1e30;
  if (got == want)
    return 0;
  int digits = std::is_same_v<T, f16> ? 11 : std::is_same_v<T, bf16> ? 8 : 24;
  int minExp = std::is_same_v<T, f16> ? -14 : -126;
  int e = std::max(std::ilogb(std::max(std::fabs(want), 1e-300)), minExp);
  return std::fabs(got - want) / std::ldexp(1.0, e - digits + 1);
}

/// Device buffer holding `host` (typed by T), or the failure as text.
template <class T> std::optional<Buffer> upload(Device &dev, const std::vector<T> &host, std::string &error) {
  auto b = dev.allocate(DTypeOf<T>::value, host.size());
  if (!b) {
    error = b.status().toString();
    return std::nullopt;
  }
  if (Status s = b->upload(host.data(), host.size() * sizeof(T)); !s) {
    error = s.toString();
    return std::nullopt;
  }
  return *b;
}

template <class T> std::vector<T> download(const Buffer &b, std::string &error) {
  std::vector<T> out(b.count());
  if (Status s = b.download(out.data(), out.size() * sizeof(T)); !s)
    error = s.toString();
  return out;
}

/// Bytes of 0xff: NaN for floats, -1 for signed integers, the maximum for unsigned ones.
template <class T> T poison() {
  T v;
  std::memset(&v, 0xff, sizeof v);
  return v;
}

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

template <class T> bool exactly(T got, T want, std::string &why) {
  why = show(want);
  return sameBits(got, want) || (isFloatT<T> && std::isnan(toDouble(got)) && std::isnan(toDouble(want)));
}

/// A case over inputs a, b (BLOCK elements each) and an output checked element by element;
/// elements outside the layout's valid region must keep their poison.
template <class A, class B, class O>
OpCase elementwise(std::string name, std::string family, Layout layout, std::function<Result<TracedKernel>()> trace,
                   std::function<void(std::mt19937 &, A &, B &)> gen, std::function<bool(A, B, O, std::string &)> check) {
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
    if (Status s = k.launch({1}, {*ba, *bb, *bo, int32_t(layout == Layout::One ? 1 : N)}); !s)
      return s.toString();
    out = download<O>(*bo, err);
    if (!err.empty())
      return err;
    std::string first; // every element is checked (the math cases measure their errors)
    for (int i = 0; i < BLOCK; ++i) {
      if (!inside(layout, i)) {
        if (!sameBits(out[i], poison<O>()) && first.empty())
          first = "element " + std::to_string(i) + " is masked off but was written (" + show(out[i]) + ")";
        continue;
      }
      std::string why;
      if (!check(a[i], b[i], out[i], why) && first.empty())
        first = "element " + std::to_string(i) + ": a = " + show(a[i]) + ", b = " + show(b[i]) + ": got " + show(out[i]) +
                ", expected " + why;
    }
    return first;
  };
  return c;
}

#ifndef TESSERA_OPTESTS_AOT
/// The standard kernel: out = f(load a, load b) on one of the layouts.
template <class A, class B, class O, class F> Result<TracedKernel> traceBinary(std::string name, Layout layout, F f) {
  auto kernel = [=](tl::Ptr<A> a, tl::Ptr<B> b, tl::Ptr<O> out, tl::Scalar<int32_t> n) {
    tl::Tile offs = tl::arange(0, layout == Layout::One ? 1 : BLOCK), mask = offs < n;
    if (layout == Layout::TwoD) {
      tl::Tile r = tl::expand_dims(tl::arange(0, R), 1), c = tl::expand_dims(tl::arange(0, C), 0);
      offs = r * C + c;
      mask = (r < RV) & (c < CV);
    }
    tl::store(out + offs, f(tl::load(a + offs, mask), tl::load(b + offs, mask)), mask);
  };
  return trace(name, kernel, {.numWarps = 2});
}
#define TRACE(...) [=]() -> Result<TracedKernel> { __VA_ARGS__ }
#else
#define TRACE(...) nullptr // kernels come from packages
#endif

} // namespace tessera::optests
