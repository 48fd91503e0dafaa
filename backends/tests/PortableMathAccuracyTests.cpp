// Portable math against float64: each function's expansion (what every backend computes in
// portable mode) over 2^20 inputs — special values (±0, ±inf, NaN, denormals, the overflow and
// underflow edges), random bit patterns over the whole f32 range and values in the function's
// working range — run by the reference interpreter and measured against its float64 shadow of
// the unexpanded op. Every result must be inside the bound docs/numerics.md states.
#include "TestSupport.hpp"

#include "tessera/interpreter.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>

using namespace tessera;

namespace {

namespace tl = tessera::tl;

constexpr int BLOCK = 1024;
constexpr size_t N = size_t(1) << 20; // >= 10^6 inputs per function

/// Distance in f32 ULPs; an exact value beyond the overflow threshold counts as infinity.
double ulps(float got, double exact) {
  if (std::isnan(got) || std::isnan(exact))
    return std::isnan(got) && std::isnan(exact) ? 0 : INFINITY;
  const double overflow = 0x1.ffffffp127; // FLT_MAX + half its ULP
  if (std::fabs(exact) >= overflow)
    exact = std::copysign(INFINITY, exact);
  if (double(got) == exact)
    return 0;
  if (std::isinf(exact))
    return std::isinf(got) ? INFINITY : (std::fabs(double(got) - std::copysign(0x1p128, exact)) / 0x1p104);
  if (std::isinf(got))
    return std::fabs(std::copysign(0x1p128, got) - exact) / 0x1p104;
  int e = std::max(std::ilogb(std::max(std::fabs(exact), 1e-300)), -126);
  return std::fabs(double(got) - exact) / std::ldexp(1.0, e - 23);
}

/// The inputs: every f32 special value and its neighbours first, then random bit patterns
/// (a third), then uniform values in [lo, hi] (the rest).
std::vector<float> inputs(std::mt19937 &rng, double lo, double hi) {
  std::vector<float> v;
  const uint32_t edges[] = {0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x00000002, 0x007fffff, 0x807fffff,
                            0x00800000, 0x80800000, 0x00800001, 0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000,
                            0x7fc00000, 0xffc00000, 0x7f800001, 0x3f800000, 0xbf800000, 0x3f7fffff, 0x3f800001};
  for (uint32_t b : edges)
    v.push_back(std::bit_cast<float>(b));
  // Overflow and underflow edges of exp-like functions, and multiples of pi/2 for sin/cos.
  for (double x : {88.72283935546875, 88.7228317, 88.7228394, 89.0, -87.336544, -103.27893, -103.972076, -104.0,
                   -149.0, 127.99999, 128.0, -126.0, -150.0, -151.0, 9.0, 10.0, -9.0, 3.14159274, 1.57079637,
                   6.28318548, 1e6, 1e10, 1e20, 1e30, 3e38, -3e38, 0.5, 2.0, 1e-6, 1e-20, 1e-30, 1e-38})
    for (float f : {float(x), std::nextafter(float(x), INFINITY), std::nextafter(float(x), -INFINITY)})
      v.push_back(f);
  std::uniform_real_distribution<double> u(lo, hi);
  while (v.size() < N / 3)
    v.push_back(std::bit_cast<float>(uint32_t(rng())));
  while (v.size() < N)
    v.push_back(float(u(rng)));
  return v;
}

using Math = std::function<tl::Tile(tl::Tile, tl::Tile)>;

Result<TracedKernel> traceMath(const char *name, Math f) {
  auto kernel = [f](tl::Ptr<float> x, tl::Ptr<float> y, tl::Ptr<float> out, tl::Scalar<int32_t> n) {
    tl::Tile offs = tl::program_id(0) * BLOCK + tl::arange(0, BLOCK);
    tl::Tile mask = offs < n;
    tl::store(out + offs, f(tl::load(x + offs, mask), tl::load(y + offs, mask)), mask);
  };
  return trace(name, kernel, {.numWarps = 4, .numerics = Numerics::Portable});
}

/// Runs `f` over the inputs and checks every result within `bound` ULP (or `absolute`).
void checkFunction(const char *name, Math f, double lo, double hi, double bound, double absolute,
                   std::function<float(std::mt19937 &)> second = nullptr) {
  uint32_t seed = std::random_device{}();
  std::mt19937 rng(seed);
  std::vector<float> x = inputs(rng, lo, hi), y(N, 1.0f);
  if (second)
    for (float &v : y)
      v = second(rng);
  auto kernel = traceMath(name, f);
  REQUIRE_MESSAGE(kernel, kernel.status().toString());
  // What is measured is the expansion: no math op (nor f32 division) is left for a target.
  auto ir = emit(*kernel, spirvTarget(8), Stage::TileOpt);
  REQUIRE_MESSAGE(ir, ir.status().toString());
  for (size_t at = ir->find("math."); at != std::string::npos; at = ir->find("math.", at + 1)) {
    std::string op = ir->substr(at, ir->find_first_of(" (", at) - at); // sign operations are exact
    CHECK_MESSAGE((op == "math.absf" || op == "math.copysign"), op << " is left in\n" << *ir);
  }
  HostBuffer bx = HostBuffer::of(x), by = HostBuffer::of(y), golden(DType::F32, N), exact(DType::F32, N);
  Grid grid{uint32_t(N / BLOCK)};
  Status s = interpret(*kernel, grid, {bx, by, golden, int32_t(N)});
  REQUIRE_MESSAGE(s.ok(), s.toString());
  HostBuffer sx = bx, sy = by;
  s = interpret(*kernel, grid, {sx, sy, exact, int32_t(N)}, {.shadow = true, .portableExpansion = false});
  REQUIRE_MESSAGE(s.ok(), s.toString());
  REQUIRE(exact.shadow.size() == N);
  const float *got = golden.data<float>();
  double worst = 0;
  size_t bad = 0, worstAt = 0;
  for (size_t i = 0; i < N; ++i) {
    double e = exact.shadow[i], d = ulps(got[i], e);
    if (d > bound && !(std::isfinite(e) && std::fabs(double(got[i]) - e) <= absolute)) {
      if (bad++ < 5)
        MESSAGE(std::string(name) << "(" << x[i] << (second ? ", " + std::to_string(y[i]) : "") << ") = " << got[i] << ", exact "
                     << e << ": " << d << " ULP (seed " << seed << ")");
    }
    if (d > worst && d != INFINITY)
      worst = d, worstAt = i;
  }
  MESSAGE(std::string(name) << ": " << N << " inputs, max " << worst << " ULP at x = " << x[worstAt] << " (bound " << bound << ")");
  CHECK_MESSAGE(bad == 0, std::string(name) << ": " << bad << " results outside the bound (seed " << seed << ")");
}

} // namespace

TEST_CASE("portable math: exp within 2 ULP of float64 over 2^20 inputs") {
  checkFunction("exp", [](tl::Tile x, tl::Tile) { return tl::exp(x); }, -104, 89, 2, 0);
}
TEST_CASE("portable math: exp2 within 2 ULP") {
  checkFunction("exp2", [](tl::Tile x, tl::Tile) { return tl::exp2(x); }, -150, 128, 2, 0);
}
TEST_CASE("portable math: log within 2 ULP") {
  checkFunction("log", [](tl::Tile x, tl::Tile) { return tl::log(x); }, 1e-30, 1e30, 2, 0);
}
TEST_CASE("portable math: log2 within 2 ULP") {
  checkFunction("log2", [](tl::Tile x, tl::Tile) { return tl::log2(x); }, 1e-30, 1e30, 2, 0);
}
TEST_CASE("portable math: rsqrt within 2 ULP") {
  checkFunction("rsqrt", [](tl::Tile x, tl::Tile) { return tl::rsqrt(x); }, 1e-30, 1e30, 2, 0);
}
TEST_CASE("portable math: sin within 2 ULP (or 2^-30 absolute)") {
  checkFunction("sin", [](tl::Tile x, tl::Tile) { return tl::sin(x); }, -1e4, 1e4, 2, 0x1p-30);
}
TEST_CASE("portable math: cos within 2 ULP (or 2^-30 absolute)") {
  checkFunction("cos", [](tl::Tile x, tl::Tile) { return tl::cos(x); }, -1e4, 1e4, 2, 0x1p-30);
}
TEST_CASE("portable math: tanh within 2 ULP") {
  checkFunction("tanh", [](tl::Tile x, tl::Tile) { return tl::tanh(x); }, -12, 12, 2, 0);
}
TEST_CASE("portable math: erf within 2 ULP") {
  checkFunction("erf", [](tl::Tile x, tl::Tile) { return tl::erf(x); }, -5, 5, 2, 0);
}
TEST_CASE("portable math: sigmoid within 3 ULP") {
  checkFunction("sigmoid", [](tl::Tile x, tl::Tile) { return tl::sigmoid(x); }, -90, 90, 3, 0);
}
TEST_CASE("portable math: pow within 2 ULP") {
  checkFunction(
      "pow", [](tl::Tile x, tl::Tile y) { return tl::pow(x, y); }, 1e-3, 1e3, 2, 0, [](std::mt19937 &rng) {
        switch (rng() % 4) {
        case 0: return float(int(rng() % 41) - 20);                        // integers: odd/even signs
        case 1: return float(int(rng() % 41) - 20) + 0.5f;                 // halves
        case 2: return std::bit_cast<float>(uint32_t(rng()));              // anything, specials included
        default: return float(std::uniform_real_distribution<double>(-8, 8)(rng));
        }
      });
}
