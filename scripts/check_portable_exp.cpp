// The portable exp and exp2 over every f32 input, against long double (glibc expl, exp2l): the
// f32 result's largest error in ULP and how many results differ from the correctly rounded one,
// and the f64 value's largest relative error before its rounding to f32 (every 1021st bit
// pattern). A replica of expandExp / expandExp2 in dialects/Tile/Transforms/
// PortableMathFunctions.cpp, the same f64 operations in the same order, with the constants of
// its generated block (kExpLightQ, kLog2E, kLn2). Run: bash scripts/check-portable-exp.sh
// (about 7 minutes on the 2-core build machine); docs/portable-math.md has the figures.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "portable_math_constants.inc" // the generated block, extracted by the script

namespace {

double fromBits(int64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}
int64_t bitsOf(double d) {
  int64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}
float clampF32(float x, float lo, float hi) {
  x = x < hi ? x : hi; // NaN -> hi
  return x > lo ? x : lo;
}
/// 2^t for an f64 t: k = round(t) by the 1.5 * 2^52 sum, 2^k from its bits, e^((t - k) ln2).
double pow2Core(double t) {
  volatile double sum = t + 0x1.8p52; // no reassociation
  const double k = sum - 0x1.8p52, r = (t - k) * kLn2;
  const int n = sizeof kExpLightQ / sizeof kExpLightQ[0];
  double q = kExpLightQ[n - 1];
  for (int i = n - 2; i >= 0; --i)
    q = q * r + kExpLightQ[i];
  return (1.0 + (r + (r * r) * q)) * fromBits((bitsOf(sum) + 1023) << 52);
}
double expF64(float x) { return pow2Core(double(clampF32(x, -150.0f, 150.0f)) * kLog2E); }
double exp2F64(float x) { return pow2Core(double(clampF32(x, -200.0f, 200.0f))); }

/// |got - exact| in ULPs of the f32 result (subnormal spacing below 2^-126).
double ulps(float got, long double exact) {
  if (std::isinf(got) && exact >= 0x1.ffffffp127L)
    return 0;
  int e = 0;
  std::frexp(double(exact), &e);
  return double(std::fabs((long double)got - exact) / std::ldexp(1.0L, std::max(e - 24, -149)));
}

struct Tally {
  double worst = 0;
  uint64_t misrounded = 0, inputs = 0;
  long double worstF64 = 0;
};

void run(bool two, int threads) {
  std::vector<Tally> t(threads);
  std::vector<std::thread> pool;
  for (int w = 0; w < threads; ++w)
    pool.emplace_back([&, w] {
      for (uint64_t b = w; b < (uint64_t(1) << 32); b += threads) {
        const uint32_t u = uint32_t(b);
        float x;
        std::memcpy(&x, &u, 4);
        if (!std::isfinite(x) || (two ? (x < -151 || x > 129) : (x < -104 || x > 89)))
          continue; // beyond: 0 or inf, exactly
        const double y = two ? exp2F64(x) : expF64(x);
        const long double exact = two ? ::exp2l((long double)x) : ::expl((long double)x);
        const float got = float(y);
        ++t[w].inputs;
        t[w].worst = std::max(t[w].worst, ulps(got, exact));
        t[w].misrounded += got != float(exact);
        if (b % 1021 == 0)
          t[w].worstF64 = std::max(t[w].worstF64, std::fabs((long double)y - exact) / exact);
      }
    });
  for (std::thread &p : pool)
    p.join();
  Tally all;
  for (const Tally &x : t) {
    all.worst = std::max(all.worst, x.worst);
    all.worstF64 = std::max(all.worstF64, x.worstF64);
    all.misrounded += x.misrounded;
    all.inputs += x.inputs;
  }
  std::printf("%s: %llu finite inputs in range; f32 error at most %.10f ULP; %llu not correctly rounded; "
              "f64 error before rounding 2^%.2f\n",
              two ? "exp2" : "exp", (unsigned long long)all.inputs, all.worst, (unsigned long long)all.misrounded,
              double(std::log2(all.worstF64)));
}

} // namespace

int main() {
  const int threads = std::max(1u, std::thread::hardware_concurrency());
  run(false, threads);
  run(true, threads);
}
