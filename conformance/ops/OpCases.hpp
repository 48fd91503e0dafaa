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
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace tessera::optests {

struct OpCase {
  std::string name, family;
  std::function<Result<TracedKernel>()> trace; // null in runtime-only builds
  std::optional<TracedKernel> traced;
  /// Returns "" on success, else the first difference.
  std::function<std::string(Device &, const Kernel &, std::mt19937 &)> run;
};

std::vector<OpCase> allCases();

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

} // namespace tessera::optests
