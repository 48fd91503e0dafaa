// The reference interpreter: traced kernels run on host buffers with exact IEEE results, the
// canonical reduction and scan orders, defined values where LLVM/SPIR-V have none, argument
// and bounds errors as Status, the float64 shadow, and bit-identity with the device.
#include "TestSupport.hpp"

#include "tessera/interpreter.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

// References below are computed one rounding per operation, like the interpreter.
#ifdef __clang__
#pragma clang fp contract(off)
#endif

using namespace tessera;
using namespace tessera::test;

namespace {

void requireOk(const Status &s, const char *what) { REQUIRE_MESSAGE(s.ok(), what << ": " << s.toString()); }

/// An output buffer of all-ones bytes (NaN as f32, -1 as i32): what a kernel must not touch shows.
HostBuffer poisoned(DType t, size_t count) {
  HostBuffer b(t, count);
  b.fill(0xFF);
  return b;
}

template <class T> uint64_t bitsOf(T v) {
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof v);
  return b;
}

/// Compares bit patterns and reports the first few misses with the seed.
template <class T> void checkBits(const std::vector<T> &got, const std::vector<T> &want, uint32_t seed, const char *what) {
  REQUIRE(got.size() == want.size());
  size_t bad = 0;
  std::string first;
  for (size_t i = 0; i < got.size(); ++i)
    if (bitsOf(got[i]) != bitsOf(want[i]) && bad++ < 5) {
      char line[160];
      std::snprintf(line, sizeof line, "  [%zu] = %.9g (0x%llx), expected %.9g (0x%llx)\n", i, double(got[i]),
                    (unsigned long long)bitsOf(got[i]), double(want[i]), (unsigned long long)bitsOf(want[i]));
      first += line;
    }
  CHECK_MESSAGE(bad == 0, what << ": " << bad << " of " << got.size() << " elements differ (seed " << seed << "):\n" << first);
}

float poisonFloat() { return std::bit_cast<float>(0xFFFFFFFFu); }

/// Floats over many binades, never zero, so the order of additions shows in the last bits.
float wideFloat(std::mt19937 &rng) {
  float m = std::uniform_real_distribution<float>(1.0f, 2.0f)(rng);
  int e = std::uniform_int_distribution<int>(-12, 12)(rng);
  return (rng() & 1 ? -1.0f : 1.0f) * std::ldexp(m, e);
}

/// The pairwise tree in element-index order: tree(v[lo, lo + n)) = tree(left half) + tree(right half).
template <class T> T treeSum(const std::vector<T> &v, size_t lo, size_t n) {
  if (n == 1) return v[lo];
  T a = treeSum(v, lo, n / 2), b = treeSum(v, lo + n / 2, n / 2);
  return T(a + b);
}
template <class T> T leftToRight(const std::vector<T> &v) {
  T acc = v[0];
  for (size_t i = 1; i < v.size(); ++i) acc = T(acc + v[i]);
  return acc;
}
/// The canonical inclusive scan: out[i] folds the aligned blocks of [0, i] that the binary
/// digits of i + 1 give, the largest first, each summed by the tree.
template <class T> std::vector<T> canonicalScan(const std::vector<T> &v) {
  std::vector<T> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    size_t m = i + 1, start = 0;
    bool first = true;
    T acc{};
    for (int b = 31; b >= 0; --b)
      if (m >> b & 1) {
        T block = treeSum(v, start, size_t(1) << b);
        acc = first ? block : T(acc + block);
        first = false;
        start += size_t(1) << b;
      }
    out[i] = acc;
  }
  return out;
}

/// The kernel as canonicalized by the compiler's tile-opt stage, parsed back from its text.
TracedKernel canonicalTwin(const TracedKernel &k) {
  std::string text = require(emit(k, spirvTarget(8), Stage::TileOpt), "emit tile-opt");
  std::vector<TracedKernel> parsed = require(parseTileIR(text, "tile-opt"), "parse tile-opt");
  REQUIRE(parsed.size() == 1);
  return parsed[0];
}

TracedKernel parsedKernel(const std::string &text) {
  std::vector<TracedKernel> parsed = require(parseTileIR(text, "test"), "parse");
  REQUIRE(parsed.size() == 1);
  return parsed[0];
}

/// Runs `k` three ways (as traced, canonicalized in the interpreter, and the compiler's tile-opt
/// text parsed back) on copies of `buffers`; all three must leave the same bytes. Returns the
/// traced run's buffers.
std::vector<HostBuffer> runThreeWays(const TracedKernel &k, Grid grid, const std::vector<HostBuffer> &buffers,
                                     const std::function<std::vector<InterpArg>(std::vector<HostBuffer> &)> &args,
                                     InterpretOptions options = {}) {
  std::vector<HostBuffer> traced = buffers, canon = buffers, twin = buffers;
  std::vector<InterpArg> a = args(traced);
  requireOk(interpret(k, grid, a, options), "interpret as traced");
  InterpretOptions c = options;
  c.canonicalize = true;
  a = args(canon);
  requireOk(interpret(k, grid, a, c), "interpret canonicalized");
  a = args(twin);
  requireOk(interpret(canonicalTwin(k), grid, a, options), "interpret tile-opt text");
  for (size_t i = 0; i < buffers.size(); ++i) {
    CHECK_MESSAGE(canon[i].bytes == traced[i].bytes, "buffer " << i << ": canonicalized run differs");
    CHECK_MESSAGE(twin[i].bytes == traced[i].bytes, "buffer " << i << ": tile-opt run differs");
  }
  return traced;
}

} // namespace

// ---- memory, masks, grids ---------------------------------------------------------------------

TEST_CASE("interp.vector_add_masked_tail") {
  uint32_t seed = freshSeed();
  CAPTURE(seed);
  std::mt19937 rng(seed);
  const int block = 128;
  size_t n = std::uniform_int_distribution<size_t>(1000, 3000)(rng) | 1, extra = 37;
  std::vector<float> x(n), y(n), want(n + extra, poisonFloat());
  for (size_t i = 0; i < n; ++i) x[i] = wideFloat(rng), y[i] = wideFloat(rng), want[i] = x[i] + y[i];
  TracedKernel k = require(traceVectorAdd(block, 4), "trace");
  uint32_t programs = uint32_t((n + block - 1) / block);
  // A 2-D grid: pid = x + y * num_programs(0), so some programs lie wholly past n.
  Grid grid{3, (programs + 2) / 3, 1};
  std::vector<HostBuffer> out = runThreeWays(k, grid, {HostBuffer::of(x), HostBuffer::of(y), poisoned(DType::F32, n + extra)},
                                             [n](std::vector<HostBuffer> &b) {
                                               return std::vector<InterpArg>{b[0], b[1], b[2], int32_t(n)};
                                             });
  checkBits(out[2].values<float>(), want, seed, "out");
  CHECK(out[0].values<float>() == x); // inputs untouched
}

TEST_CASE("interp.strided_2d_transpose") {
  uint32_t seed = freshSeed();
  CAPTURE(seed);
  std::mt19937 rng(seed);
  constexpr int R = 16, C = 32;
  int M = std::uniform_int_distribution<int>(20, 70)(rng), N = std::uniform_int_distribution<int>(20, 90)(rng);
  int ldIn = N + 3, ldOut = M + 5;
  // out[c * ldOut + r] = 2 * in[r * ldIn + c], through trans() of each 16 x 32 tile.
  auto kernel = [](tl::Ptr<float> in, tl::Ptr<float> out, tl::Scalar<int32_t> m, tl::Scalar<int32_t> n,
                   tl::Scalar<int32_t> ldIn, tl::Scalar<int32_t> ldOut) {
    tl::Tile rows = tl::program_id(0) * R + tl::arange(0, R), cols = tl::program_id(1) * C + tl::arange(0, C);
    tl::Tile r2 = tl::expand_dims(rows, 1), c2 = tl::expand_dims(cols, 0);
    tl::Tile t = tl::load(in + r2 * ldIn + c2, (r2 < m) & (c2 < n));
    tl::Tile rt = tl::expand_dims(rows, 0), ct = tl::expand_dims(cols, 1); // [1, R] and [C, 1]
    tl::store(out + ct * ldOut + rt, tl::trans(t) * 2, (rt < m) & (ct < n));
  };
  TracedKernel k = require(trace("transpose", kernel), "trace");
  std::vector<float> in(size_t(M) * ldIn), want(size_t(N) * ldOut, poisonFloat());
  for (float &v : in) v = wideFloat(rng);
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) want[size_t(c) * ldOut + r] = in[size_t(r) * ldIn + c] * 2;
  Grid grid{uint32_t((M + R - 1) / R), uint32_t((N + C - 1) / C), 1};
  std::vector<HostBuffer> out =
      runThreeWays(k, grid, {HostBuffer::of(in), poisoned(DType::F32, want.size())}, [&](std::vector<HostBuffer> &b) {
        return std::vector<InterpArg>{b[0], b[1], int32_t(M), int32_t(N), int32_t(ldIn), int32_t(ldOut)};
      });
  checkBits(out[1].values<float>(), want, seed, "out");
}

TEST_CASE("interp.broadcasting") {
  uint32_t seed = freshSeed();
  CAPTURE(seed);
  std::mt19937 rng(seed);
  constexpr int R = 8, C = 16;
  // out[i, j] = a[i] * b[j] + s, and out2 = broadcast_to(b, [R, C]) - a[i] (a scalar program
  // id folded in as well).
  auto kernel = [](tl::Ptr<float> a, tl::Ptr<float> b, tl::Ptr<float> out, tl::Ptr<float> out2, tl::Scalar<float> s) {
    tl::Tile i = tl::arange(0, R), j = tl::arange(0, C);
    tl::Tile col = tl::expand_dims(tl::load(a + i), 1), row = tl::load(b + j);
    tl::Tile offs = tl::expand_dims(i, 1) * C + tl::expand_dims(j, 0);
    tl::store(out + offs, col * row + s);
    tl::store(out2 + offs, tl::broadcast_to(row, {R, C}) - col + tl::cast(tl::program_id(0), DType::F32));
  };
  TracedKernel k = require(trace("broadcasting", kernel), "trace");
  std::vector<float> a(R), b(C), want(R * C), want2(R * C);
  for (float &v : a) v = wideFloat(rng);
  for (float &v : b) v = wideFloat(rng);
  float s = wideFloat(rng);
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) {
      float p = a[i] * b[j];
      want[i * C + j] = p + s;
      want2[i * C + j] = b[j] - a[i] + 0.0f;
    }
  std::vector<HostBuffer> out = runThreeWays(
      k, {1}, {HostBuffer::of(a), HostBuffer::of(b), poisoned(DType::F32, R * C), poisoned(DType::F32, R * C)},
      [s](std::vector<HostBuffer> &bufs) { return std::vector<InterpArg>{bufs[0], bufs[1], bufs[2], bufs[3], s}; });
  checkBits(out[2].values<float>(), want, seed, "a * b + s");
  checkBits(out[3].values<float>(), want2, seed, "b - a");
}

// ---- reductions and scans in the canonical order -------------------------------------------

namespace {

enum class Red { Sum, Max, Min, ArgMax, ArgMin };

/// out[0, R) = f(t, axis 1), out[R, R + C) = f(t, axis 0), out[R + C] = f(t) for an R x C tile.
template <class T, class O, int R, int C> Result<TracedKernel> traceReduce(Red red) {
  auto kernel = [red](tl::Ptr<T> a, tl::Ptr<O> out) {
    tl::Tile r = tl::arange(0, R), c = tl::arange(0, C);
    tl::Tile t = tl::load(a + tl::expand_dims(r, 1) * C + tl::expand_dims(c, 0));
    auto f = [red](const tl::Tile &x, std::optional<int> axis) {
      switch (red) {
      case Red::Sum: return axis ? tl::sum(x, *axis) : tl::sum(x);
      case Red::Max: return axis ? tl::max(x, *axis) : tl::max(x);
      case Red::Min: return axis ? tl::min(x, *axis) : tl::min(x);
      case Red::ArgMax: return axis ? tl::argmax(x, *axis) : tl::argmax(x);
      default: return axis ? tl::argmin(x, *axis) : tl::argmin(x);
      }
    };
    tl::store(out + r, f(t, 1));
    tl::store(out + R + c, f(t, 0));
    tl::store(out + (R + C) + tl::arange(0, 1), f(t, std::nullopt));
  };
  return trace("reduce", kernel);
}

/// The reference of one reduction over `v` (in index order): the tree for sums; for the others
/// the first extreme element, a NaN counting as the extreme.
template <class T, class O> O reference(Red red, const std::vector<T> &v) {
  if (red == Red::Sum) return O(treeSum(v, 0, v.size()));
  size_t at = 0;
  for (size_t i = 1; i < v.size(); ++i) {
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(v[at])) break;
    bool better = (red == Red::Max || red == Red::ArgMax) ? v[i] > v[at] : v[i] < v[at];
    if constexpr (std::is_floating_point_v<T>) better = better || std::isnan(v[i]);
    if (better) at = i;
  }
  if (red == Red::ArgMax || red == Red::ArgMin) return O(at);
  return O(v[at]);
}

template <class T, class O> void checkReduction(Red red, bool withNaN) {
  constexpr int R = 8, C = 16;
  uint32_t seed = freshSeed();
  CAPTURE(seed);
  CAPTURE(int(red));
  std::mt19937 rng(seed);
  std::vector<T> a(R * C);
  for (T &v : a) {
    if constexpr (std::is_floating_point_v<T>) v = red == Red::Sum ? wideFloat(rng) : float(int(rng() % 9) - 4); // ties
    else v = T(int(rng() % 2001) - 1000);
  }
  if constexpr (std::is_floating_point_v<T>)
    if (withNaN)
      for (int i = 0; i < 3; ++i) a[rng() % a.size()] = std::numeric_limits<float>::quiet_NaN();
  std::vector<O> want(R + C + 1);
  for (int i = 0; i < R; ++i) want[i] = reference<T, O>(red, std::vector<T>(a.begin() + i * C, a.begin() + (i + 1) * C));
  for (int j = 0; j < C; ++j) {
    std::vector<T> column;
    for (int i = 0; i < R; ++i) column.push_back(a[i * C + j]);
    want[R + j] = reference<T, O>(red, column);
  }
  want[R + C] = reference<T, O>(red, a);
  TracedKernel k = require(traceReduce<T, O, R, C>(red), "trace");
  std::vector<HostBuffer> out = runThreeWays(k, {1}, {HostBuffer::of(a), poisoned(DTypeOf<O>::value, R + C + 1)},
                                             [](std::vector<HostBuffer> &b) { return std::vector<InterpArg>{b[0], b[1]}; });
  std::vector<O> got = out[1].values<O>();
  if constexpr (std::is_floating_point_v<O>) {
    // Any NaN is a NaN (payloads are not part of the contract).
    for (size_t i = 0; i < got.size(); ++i)
      if (std::isnan(got[i]) && std::isnan(want[i])) got[i] = want[i];
  }
  checkBits(got, want, seed, "reduction");
}

} // namespace

TEST_CASE("interp.reductions_every_kind_and_axis") {
  for (Red red : {Red::Sum, Red::Max, Red::Min, Red::ArgMax, Red::ArgMin}) {
    checkReduction<int32_t, int32_t>(red, false);
    if (red == Red::Sum) {
      checkReduction<float, float>(red, false);
    } else if (red == Red::Max || red == Red::Min) {
      checkReduction<float, float>(red, false);
      checkReduction<float, float>(red, true);
    } else {
      checkReduction<float, int32_t>(red, false);
      checkReduction<float, int32_t>(red, true);
    }
  }
}

TEST_CASE("interp.sum_is_the_pairwise_tree") {
  uint32_t seed = freshSeed();
  CAPTURE(seed);
  std::mt19937 rng(seed);
  // {B, s, -B, s, ...}: B + s rounds back to B (s below half an ulp of B), so the tree gives 0 while a
  // left-to-right sum gives s.
  float big = std::ldexp(std::uniform_real_distribution<float>(1.0f, 2.0f)(rng), std::uniform_int_distribution<int>(26, 30)(rng));
  float small = std::uniform_real_distribution<float>(0.5f, 3.5f)(rng);
  constexpr int R = 4, C = 16;
  std::vector<float> a(R * C);
  for (int i = 0; i < R * C; ++i) a[i] = i % 2 ? small : (i % 4 == 0 ? big : -big);
  auto kernel = [](tl::Ptr<float> x, tl::Ptr<float> out) {
    tl::Tile r = tl::arange(0, R), c = tl::arange(0, C);
    tl::Tile t = tl::load(x + tl::expand_dims(r, 1) * C + tl::expand_dims(c, 0));
    tl::store(out + r, tl::sum(t, 1));
    tl::store(out + R + tl::arange(0, 1), tl::sum(t));
  };
  TracedKernel k = require(trace("pairwise", kernel), "trace");
  std::vector<HostBuffer> out = runThreeWays(k, {1}, {HostBuffer::of(a), poisoned(DType::F32, R + 1)},
                                             [](std::vector<HostBuffer> &b) { return std::vector<InterpArg>{b[0], b[1]}; });
  std::vector<float> got = out[1].values<float>();
  std::vector<float> row(a.begin(), a.begin() + C);
  float tree = treeSum(row, 0, C), sequential = leftToRight(row);
  CHECK(tree == 0.0f);
  CHECK(sequential == small);
  for (int i = 0; i < R; ++i) CHECK(bitsOf(got[i]) == bitsOf(tree));
  CHECK(bitsOf(got[R]) == bitsOf(treeSum(a, 0, a.size())));
  CHECK(got[R] != leftToRight(a));
}

TEST_CASE("interp.cumsum_canonical_order") {
  uint32_t seed = freshSeed();
  CAPTURE(seed);
  std::mt19937 rng(seed);
  constexpr int N = 64, R = 8, C = 16;
  std::vector<float> x(N);
  for (float &v : x) v = wideFloat(rng);
  // A {B, s, -B, s} head makes the order visible at known places.
  float big = 0x1p27f, small = 1.5f;
  x[0] = big, x[1] = small, x[2] = -big, x[3] = small;
  std::vector<float> m(R * C);
  for (float &v : m) v = wideFloat(rng);
  std::vector<int32_t> im(R * C);
  for (int32_t &v : im) v = int32_t(rng()); // wraps: integer sums are exact modulo 2^32 in any order
  auto kernel = [](tl::Ptr<float> x, tl::Ptr<float> m, tl::Ptr<int32_t> im, tl::Ptr<float> out, tl::Ptr<int32_t> iout) {
    tl::Tile o = tl::arange(0, N);
    tl::store(out + o, tl::cumsum(tl::load(x + o)));
    tl::Tile offs = tl::expand_dims(tl::arange(0, R), 1) * C + tl::expand_dims(tl::arange(0, C), 0);
    tl::store(out + N + offs, tl::cumsum(tl::load(m + offs), 0));
    tl::store(out + (N + R * C) + offs, tl::cumsum(tl::load(m + offs), 1));
    tl::store(iout + offs, tl::cumsum(tl::load(im + offs), 0));
    tl::store(iout + R * C + offs, tl::cumsum(tl::load(im + offs), -1));
  };
  TracedKernel k = require(trace("cumsum", kernel), "trace");
  std::vector<HostBuffer> out = runThreeWays(
      k, {1},
      {HostBuffer::of(x), HostBuffer::of(m), HostBuffer::of(im), poisoned(DType::F32, N + 2 * R * C),
       poisoned(DType::I32, 2 * R * C)},
      [](std::vector<HostBuffer> &b) { return std::vector<InterpArg>{b[0], b[1], b[2], b[3], b[4]}; });
  std::vector<float> got = out[3].values<float>();
  std::vector<int32_t> igot = out[4].values<int32_t>();

  std::vector<float> want = canonicalScan(x);
  // The brief's examples: out[5] = tree(x0..x3) + tree(x4, x5); out[6] = that + x6.
  float t03 = (x[0] + x[1]) + (x[2] + x[3]), t45 = x[4] + x[5];
  CHECK(bitsOf(want[5]) == bitsOf(t03 + t45));
  CHECK(bitsOf(want[6]) == bitsOf((t03 + t45) + x[6]));
  CHECK(want[3] == 0.0f); // the tree of the head; a running sum gives 3.0
  std::vector<float> wantAll = want;
  wantAll.resize(N + 2 * R * C);
  for (int j = 0; j < C; ++j) { // axis 0: down each column
    std::vector<float> col;
    for (int i = 0; i < R; ++i) col.push_back(m[i * C + j]);
    std::vector<float> s = canonicalScan(col);
    for (int i = 0; i < R; ++i) wantAll[N + i * C + j] = s[i];
  }
  for (int i = 0; i < R; ++i) { // axis 1: along each row
    std::vector<float> s = canonicalScan(std::vector<float>(m.begin() + i * C, m.begin() + (i + 1) * C));
    for (int j = 0; j < C; ++j) wantAll[N + R * C + i * C + j] = s[j];
  }
  checkBits(got, wantAll, seed, "float cumsum");
  std::vector<uint32_t> iwant(2 * R * C); // unsigned: wrapping without UB
  for (int j = 0; j < C; ++j) {
    uint32_t acc = 0;
    for (int i = 0; i < R; ++i) iwant[i * C + j] = acc += uint32_t(im[i * C + j]);
  }
  for (int i = 0; i < R; ++i) {
    uint32_t acc = 0;
    for (int j = 0; j < C; ++j) iwant[R * C + i * C + j] = acc += uint32_t(im[i * C + j]);
  }
  std::vector<uint32_t> igotU(igot.size());
  for (size_t i = 0; i < igot.size(); ++i) igotU[i] = uint32_t(igot[i]);
  checkBits(igotU, iwant, seed, "int cumsum");
}

TEST_CASE("interp.non_power_of_two_extent_pads_with_the_identity") {
  // Tile IR may reduce an extent that is not a power of two: the tree is that of the extent
  // padded at the end with -0.0 (x + -0.0 == x for every x), and the scan's blocks are unchanged.
  uint32_t seed = freshSeed();
  CAPTURE(seed);
  std::mt19937 rng(seed);
  for (int n : {3, 5, 6, 7}) {
    CAPTURE(n);
    std::vector<float> v(n);
    std::string values, offsets;
    for (int i = 0; i < n; ++i) {
      v[i] = wideFloat(rng);
      char text[32];
      std::snprintf(text, sizeof text, "%.9g", double(v[i]));
      values += (i ? ", " : "") + std::string(text);
      offsets += (i ? ", " : "") + std::to_string(i + 1);
    }
    std::string t = "tensor<" + std::to_string(n) + "xf32>", ti = "tensor<" + std::to_string(n) + "xi32>";
    TracedKernel k = parsedKernel("func.func @odd(%out: !tile.ptr<f32>) attributes {tile.kernel} {\n"
                                  "  %v = arith.constant dense<[" + values + "]> : " + t + "\n"
                                  "  %s = tile.reduce sum %v, 0 : " + t + " -> f32\n"
                                  "  %c = tile.scan %v, 0 : " + t + "\n"
                                  "  %o = tile.arange 0, 1 : tensor<1xi32>\n"
                                  "  %st = tile.splat %s : tensor<1xf32>\n"
                                  "  tile.store %out[%o], %st : (!tile.ptr<f32>, tensor<1xi32>, tensor<1xf32>) -> ()\n"
                                  "  %oc = arith.constant dense<[" + offsets + "]> : " + ti + "\n"
                                  "  tile.store %out[%oc], %c : (!tile.ptr<f32>, " + ti + ", " + t + ") -> ()\n"
                                  "  return\n}\n");
    HostBuffer out = poisoned(DType::F32, size_t(n) + 1);
    requireOk(interpret(k, {1}, {out}), "interpret");
    std::vector<float> padded = v;
    padded.resize(8, -0.0f);
    std::vector<float> want = {treeSum(padded, 0, 8)};
    for (float s : canonicalScan(v)) want.push_back(s);
    checkBits(out.values<float>(), want, seed, "sum and scan");
  }
}

// ---- integers: defined everywhere -----------------------------------------------------------

TEST_CASE("interp.integer_division_and_shifts") {
  uint32_t seed = freshSeed();
  CAPTURE(seed);
  std::mt19937 rng(seed);
  constexpr int N = 64;
  const int32_t MIN = std::numeric_limits<int32_t>::min();
  std::vector<int32_t> a(N), b(N);
  for (int i = 0; i < N; ++i) a[i] = int32_t(rng()), b[i] = int32_t(rng() % 81) - 40;
  a[0] = MIN, b[0] = -1;
  a[1] = 12345, b[1] = 0;
  a[2] = MIN, b[2] = 0;
  a[3] = -7, b[3] = 2;
  // Shift amounts: in range, the width, past it, and "negative" (huge unsigned).
  std::vector<int32_t> shifts = {0, 1, 5, 31, 32, 33, 40, -1, 100, MIN};
  for (size_t i = 0; i < shifts.size(); ++i) b[8 + i] = shifts[i], a[8 + i] = i % 2 ? -123456 : 987654;
  auto kernel = [](tl::Ptr<int32_t> a, tl::Ptr<int32_t> b, tl::Ptr<int32_t> out, tl::Ptr<uint32_t> uout) {
    tl::Tile o = tl::arange(0, N);
    tl::Tile x = tl::load(a + o), y = tl::load(b + o);
    tl::store(out + o, x / y);
    tl::store(out + N + o, x % y);
    tl::store(out + 2 * N + o, x << y);
    tl::store(out + 3 * N + o, x >> y);
    tl::Tile ux = tl::cast(x, DType::U32), uy = tl::cast(y, DType::U32);
    tl::store(uout + o, ux / uy);
    tl::store(uout + N + o, ux % uy);
    tl::store(uout + 2 * N + o, ux << uy);
    tl::store(uout + 3 * N + o, ux >> uy);
  };
  TracedKernel k = require(trace("intdefs", kernel), "trace");
  std::vector<HostBuffer> out =
      runThreeWays(k, {1}, {HostBuffer::of(a), HostBuffer::of(b), poisoned(DType::I32, 4 * N), poisoned(DType::U32, 4 * N)},
                   [](std::vector<HostBuffer> &bufs) { return std::vector<InterpArg>{bufs[0], bufs[1], bufs[2], bufs[3]}; });
  std::vector<int32_t> want(4 * N);
  std::vector<uint32_t> uwant(4 * N);
  for (int i = 0; i < N; ++i) {
    int32_t x = a[i], y = b[i];
    want[i] = y == 0 ? 0 : (x == MIN && y == -1) ? MIN : x / y;
    want[N + i] = y == 0 ? x : (y == -1) ? 0 : x % y;
    uint32_t s = uint32_t(y);
    want[2 * N + i] = s >= 32 ? 0 : int32_t(uint32_t(x) << s);
    want[3 * N + i] = s >= 32 ? (x < 0 ? -1 : 0) : x >> s;
    uint32_t ux = uint32_t(x), uy = uint32_t(y);
    uwant[i] = uy == 0 ? 0 : ux / uy;
    uwant[N + i] = uy == 0 ? ux : ux % uy;
    uwant[2 * N + i] = uy >= 32 ? 0 : ux << uy;
    uwant[3 * N + i] = uy >= 32 ? 0 : ux >> uy;
  }
  CHECK(want[0] == MIN);     // MIN / -1
  CHECK(want[N] == 0);       // MIN % -1
  CHECK(want[1] == 0);       // x / 0
  CHECK(want[N + 1] == 12345); // x % 0
  checkBits(out[2].values<int32_t>(), want, seed, "i32");
  checkBits(out[3].values<uint32_t>(), uwant, seed, "u32");
}

TEST_CASE("interp.raw_ops_have_defined_values") {
  // What a select may discard: raw arith ops at their undefined points, straight from tile IR.
  TracedKernel k = parsedKernel(R"(
func.func @raw(%a: !tile.ptr<i32>, %b: !tile.ptr<i32>, %f: !tile.ptr<f32>, %out: !tile.ptr<i32>) attributes {tile.kernel} {
  %o = tile.arange 0, 8 : tensor<8xi32>
  %c8 = arith.constant dense<8> : tensor<8xi32>
  %x = tile.load %a[%o] : (!tile.ptr<i32>, tensor<8xi32>) -> tensor<8xi32>
  %y = tile.load %b[%o] : (!tile.ptr<i32>, tensor<8xi32>) -> tensor<8xi32>
  %v = tile.load %f[%o] : (!tile.ptr<f32>, tensor<8xi32>) -> tensor<8xf32>
  %r0 = arith.divsi %x, %y : tensor<8xi32>
  %r1 = arith.remsi %x, %y : tensor<8xi32>
  %r2 = arith.divui %x, %y : tensor<8xi32>
  %r3 = arith.shli %x, %y : tensor<8xi32>
  %r4 = arith.shrsi %x, %y : tensor<8xi32>
  %r5 = arith.fptosi %v : tensor<8xf32> to tensor<8xi32>
  %r6 = arith.fptoui %v : tensor<8xf32> to tensor<8xi32>
  %o1 = arith.addi %o, %c8 : tensor<8xi32>
  %o2 = arith.addi %o1, %c8 : tensor<8xi32>
  %o3 = arith.addi %o2, %c8 : tensor<8xi32>
  %o4 = arith.addi %o3, %c8 : tensor<8xi32>
  %o5 = arith.addi %o4, %c8 : tensor<8xi32>
  %o6 = arith.addi %o5, %c8 : tensor<8xi32>
  tile.store %out[%o], %r0 : (!tile.ptr<i32>, tensor<8xi32>, tensor<8xi32>) -> ()
  tile.store %out[%o1], %r1 : (!tile.ptr<i32>, tensor<8xi32>, tensor<8xi32>) -> ()
  tile.store %out[%o2], %r2 : (!tile.ptr<i32>, tensor<8xi32>, tensor<8xi32>) -> ()
  tile.store %out[%o3], %r3 : (!tile.ptr<i32>, tensor<8xi32>, tensor<8xi32>) -> ()
  tile.store %out[%o4], %r4 : (!tile.ptr<i32>, tensor<8xi32>, tensor<8xi32>) -> ()
  tile.store %out[%o5], %r5 : (!tile.ptr<i32>, tensor<8xi32>, tensor<8xi32>) -> ()
  tile.store %out[%o6], %r6 : (!tile.ptr<i32>, tensor<8xi32>, tensor<8xi32>) -> ()
  return
}
)");
  const int32_t MIN = std::numeric_limits<int32_t>::min(), MAX = std::numeric_limits<int32_t>::max();
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  std::vector<int32_t> a = {7, MIN, -9, 100, 1, -1, 5, 6}, b = {0, -1, 0, 32, 33, 40, -1, 2};
  std::vector<float> f = {nan, -nan, inf, -inf, 3e9f, -3e9f, -1.5f, 2.75f};
  HostBuffer ba = HostBuffer::of(a), bb = HostBuffer::of(b), bf = HostBuffer::of(f), out = poisoned(DType::I32, 56);
  requireOk(interpret(k, {1}, {ba, bb, bf, out}), "interpret");
  std::vector<int32_t> got = out.values<int32_t>();
  std::vector<int32_t> want = {
      0, MIN, 0, 3, 0, 0, -5, 3,                // divsi: x / 0 = 0, MIN / -1 = MIN
      0, 0, 0, 4, 1, -1, 0, 0,                  // remsi: x % 0 = 0, x % -1 = 0
      0, 0, 0, 3, 0, 107374182, 0, 3,           // divui: x / 0 = 0
      7, 0, -9, 0, 0, 0, 0, 24,                 // shli: a shift >= the width (-1 is 2^32 - 1) gives 0
      7, 0, -9, 0, 0, 0, 0, 1,                  // shrsi: likewise 0 (the language's >> clamps first)
      0, 0, MAX, MIN, MAX, MIN, -1, 2,          // fptosi: NaN -> 0, saturating
      0, 0, -1, 0, int32_t(3000000000u), 0, 0, 2, // fptoui: NaN and negatives -> 0, inf -> 2^32 - 1
  };
  checkBits(got, want, 0, "raw ops");
}

// ---- conversions ----------------------------------------------------------------------------

TEST_CASE("interp.float_narrowing_rounds_to_nearest_even") {
  constexpr int N = 16;
  auto kernel = [](tl::Ptr<float> x, tl::Ptr<f16> h, tl::Ptr<bf16> b, tl::Ptr<float> back, tl::Scalar<int32_t> n) {
    tl::Tile o = tl::arange(0, N);
    tl::Tile m = o < n;
    tl::Tile v = tl::load(x + o, m);
    tl::store(h + o, tl::cast(v, DType::F16), m);
    tl::store(b + o, tl::cast(v, DType::BF16), m);
    tl::store(back + o, tl::cast(tl::cast(v, DType::F16), DType::F32), m); // extf is exact
  };
  TracedKernel k = require(trace("narrow", kernel), "trace");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Halfway cases (ties go to the even neighbour), subnormals, overflow, signed zero, NaN.
  struct Case {
    float x;
    uint16_t f16, bf16;
  };
  std::vector<Case> cases = {
      {1.0f + 0x1p-11f, 0x3C00, 0x3F80},       // f16 tie down to even 1.0
      {1.0f + 3 * 0x1p-11f, 0x3C02, 0x3F80},   // f16 tie up to even
      {1.0f + 0x1p-8f, 0x3C04, 0x3F80},        // bf16 tie down to even
      {1.0f + 3 * 0x1p-8f, 0x3C0C, 0x3F82},    // bf16 tie up to even
      {0x1p-25f, 0x0000, 0x3300},              // f16: half the smallest subnormal -> +0
      {3 * 0x1p-25f, 0x0002, 0x33C0},          // f16: 1.5 subnormal units -> 2 (even)
      {65519.0f, 0x7BFF, 0x4780},              // f16 largest finite
      {65520.0f, 0x7C00, 0x4780},              // f16 overflows to inf
      {-0.0f, 0x8000, 0x8000},
      {std::bit_cast<float>(0x7F7FFFFFu), 0x7C00, 0x7F80}, // FLT_MAX: bf16 rounds to inf
      {-3.0e38f, 0xFC00, 0xFF62},
      {nan, 0, 0},
      {-nan, 0, 0},
  };
  std::vector<float> x(N, 0.0f);
  for (size_t i = 0; i < cases.size(); ++i) x[i] = cases[i].x;
  int32_t n = int32_t(cases.size());
  std::vector<HostBuffer> out = runThreeWays(
      k, {1}, {HostBuffer::of(x), poisoned(DType::F16, N), poisoned(DType::BF16, N), poisoned(DType::F32, N)},
      [n](std::vector<HostBuffer> &b) { return std::vector<InterpArg>{b[0], b[1], b[2], b[3], n}; });
  std::vector<uint16_t> h = out[1].values<uint16_t>(), b = out[2].values<uint16_t>();
  std::vector<float> back = out[3].values<float>();
  for (size_t i = 0; i < cases.size(); ++i) {
    CAPTURE(i);
    if (std::isnan(cases[i].x)) {
      CHECK((h[i] & 0x7C00) == 0x7C00);
      CHECK((h[i] & 0x03FF) != 0); // NaN stays NaN
      CHECK((b[i] & 0x7F80) == 0x7F80);
      CHECK((b[i] & 0x007F) != 0);
      CHECK(std::isnan(back[i]));
      continue;
    }
    CHECK(h[i] == cases[i].f16);
    CHECK(b[i] == cases[i].bf16);
    CHECK(bitsOf(back[i]) == bitsOf(f16::fromBits(cases[i].f16).toFloat()));
  }
  for (int i = n; i < N; ++i) CHECK(h[i] == 0xFFFF); // masked off: untouched
}

TEST_CASE("interp.float_to_int_saturates") {
  constexpr int N = 32;
  auto kernel = [](tl::Ptr<float> x, tl::Ptr<int32_t> i32, tl::Ptr<uint32_t> u32, tl::Ptr<int8_t> i8, tl::Ptr<uint8_t> u8,
                   tl::Ptr<int64_t> i64) {
    tl::Tile o = tl::arange(0, N);
    tl::Tile v = tl::load(x + o);
    tl::store(i32 + o, tl::cast(v, DType::I32));
    tl::store(u32 + o, tl::cast(v, DType::U32));
    tl::store(i8 + o, tl::cast(v, DType::I8));
    tl::store(u8 + o, tl::cast(v, DType::U8));
    tl::store(i64 + o, tl::cast(v, DType::I64));
  };
  TracedKernel k = require(trace("fptoint", kernel), "trace");
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  std::vector<float> x = {nan, -nan, inf, -inf, 3e9f, -3e9f, 2147483520.0f, 2147483648.0f, -2147483648.0f, -1.5f,
                          300.7f, -2.9f, 0.99f, -0.99f, 1e20f, -1e20f, 127.9f, 128.0f, -128.9f, -129.0f, 255.5f, 256.0f,
                          4294967040.0f, 4294967296.0f, 9.2233715e18f, -9.2233720e18f, 1.5e-40f, -0.0f, 42.0f, -42.0f,
                          0x1p62f, 65535.5f};
  auto sat = [](float v, double lo, double hi) -> double {
    if (std::isnan(v)) return 0;
    double t = std::trunc(double(v));
    return t < lo ? lo : t > hi ? hi : t;
  };
  std::vector<int32_t> w32;
  std::vector<uint32_t> wu32;
  std::vector<int8_t> w8;
  std::vector<uint8_t> wu8;
  std::vector<int64_t> w64;
  for (float v : x) {
    w32.push_back(int32_t(sat(v, -2147483648.0, 2147483647.0)));
    wu32.push_back(uint32_t(sat(v, 0, 4294967295.0)));
    w8.push_back(int8_t(sat(v, -128, 127)));
    wu8.push_back(uint8_t(sat(v, 0, 255)));
    double d = sat(v, -0x1p63, 0x1p63);
    w64.push_back(d >= 0x1p63 ? std::numeric_limits<int64_t>::max() : int64_t(d));
  }
  std::vector<HostBuffer> out = runThreeWays(k, {1},
                                             {HostBuffer::of(x), poisoned(DType::I32, N), poisoned(DType::U32, N),
                                              poisoned(DType::I8, N), poisoned(DType::U8, N), poisoned(DType::I64, N)},
                                             [](std::vector<HostBuffer> &b) {
                                               return std::vector<InterpArg>{b[0], b[1], b[2], b[3], b[4], b[5]};
                                             });
  checkBits(out[1].values<int32_t>(), w32, 0, "i32");
  checkBits(out[2].values<uint32_t>(), wu32, 0, "u32");
  checkBits(out[3].values<int8_t>(), w8, 0, "i8");
  checkBits(out[4].values<uint8_t>(), wu8, 0, "u8");
  checkBits(out[5].values<int64_t>(), w64, 0, "i64");
}

TEST_CASE("interp.f64_and_i64_in_tile_ir") {
  // What the portable expansion will emit: f64 arithmetic, i64 bit manipulation and bitcasts.
  TracedKernel k = parsedKernel(R"(
func.func @wide(%x: !tile.ptr<f32>, %prod: !tile.ptr<f32>, %expo: !tile.ptr<i32>) attributes {tile.kernel} {
  %o = tile.arange 0, 16 : tensor<16xi32>
  %v = tile.load %x[%o] : (!tile.ptr<f32>, tensor<16xi32>) -> tensor<16xf32>
  %d = arith.extf %v : tensor<16xf32> to tensor<16xf64>
  %sq = arith.mulf %d, %d : tensor<16xf64>
  %one = arith.constant dense<1.0> : tensor<16xf64>
  %s = arith.addf %sq, %one : tensor<16xf64>
  %r = arith.truncf %s : tensor<16xf64> to tensor<16xf32>
  tile.store %prod[%o], %r : (!tile.ptr<f32>, tensor<16xi32>, tensor<16xf32>) -> ()
  %bits = arith.bitcast %s : tensor<16xf64> to tensor<16xi64>
  %c52 = arith.constant dense<52> : tensor<16xi64>
  %m = arith.constant dense<2047> : tensor<16xi64>
  %sh = arith.shrui %bits, %c52 : tensor<16xi64>
  %e = arith.andi %sh, %m : tensor<16xi64>
  %e32 = arith.trunci %e : tensor<16xi64> to tensor<16xi32>
  tile.store %expo[%o], %e32 : (!tile.ptr<i32>, tensor<16xi32>, tensor<16xi32>) -> ()
  return
}
)");
  uint32_t seed = freshSeed();
  CAPTURE(seed);
  std::mt19937 rng(seed);
  std::vector<float> x(16);
  for (float &v : x) v = wideFloat(rng);
  HostBuffer bx = HostBuffer::of(x), prod = poisoned(DType::F32, 16), expo = poisoned(DType::I32, 16);
  requireOk(interpret(k, {1}, {bx, prod, expo}), "interpret");
  std::vector<float> want(16);
  std::vector<int32_t> wantE(16);
  for (int i = 0; i < 16; ++i) {
    double d = double(x[i]), sq = d * d, s = sq + 1.0;
    want[i] = float(s);
    wantE[i] = int32_t((std::bit_cast<uint64_t>(s) >> 52) & 2047);
  }
  checkBits(prod.values<float>(), want, seed, "f64 arithmetic");
  checkBits(expo.values<int32_t>(), wantE, seed, "i64 bits");
}

TEST_CASE("interp.math_uses_the_c_library_in_f32") {
  uint32_t seed = freshSeed();
  CAPTURE(seed);
  std::mt19937 rng(seed);
  constexpr int N = 128, F = 12;
  auto kernel = [](tl::Ptr<float> x, tl::Ptr<float> out) {
    tl::Tile o = tl::arange(0, N);
    tl::Tile v = tl::load(x + o), p = tl::abs(v);
    tl::Tile results[F] = {tl::exp(v), tl::exp2(v), tl::log(p), tl::log2(p), tl::sqrt(p), tl::sin(v),
                           tl::cos(v), tl::tanh(v), tl::erf(v), tl::floor(v), tl::ceil(v), tl::pow(p, v)};
    for (int f = 0; f < F; ++f) tl::store(out + f * N + o, results[f]);
  };
  TracedKernel k = require(trace("math", kernel), "trace");
  std::vector<float> x(N);
  for (float &v : x) v = std::uniform_real_distribution<float>(-10.0f, 10.0f)(rng);
  HostBuffer bx = HostBuffer::of(x), out = poisoned(DType::F32, F * N);
  requireOk(interpret(k, {1}, {bx, out}), "interpret");
  std::vector<float> want;
  for (int f = 0; f < F; ++f)
    for (float v : x) {
      float p = std::fabs(v);
      float r[F] = {std::exp(v), std::exp2(v), std::log(p), std::log2(p), std::sqrt(p), std::sin(v),
                    std::cos(v), std::tanh(v), std::erf(v), std::floor(v), std::ceil(v), std::pow(p, v)};
      want.push_back(r[f]);
    }
  checkBits(out.values<float>(), want, seed, "math");
}

// ---- atomics ----------------------------------------------------------------------------------

TEST_CASE("interp.atomics_in_program_order") {
  uint32_t seed = freshSeed();
  CAPTURE(seed);
  std::mt19937 rng(seed);
  constexpr int B = 32;
  // Every element of every program adds to one counter: the old values count up in program
  // order (x fastest, then y, then z) and element order.
  auto kernel = [](tl::Ptr<int32_t> counter, tl::Ptr<float> fcounter, tl::Ptr<float> v, tl::Ptr<int32_t> old,
                   tl::Ptr<float> fold) {
    tl::Tile pid = tl::program_id(0) + tl::num_programs(0) * (tl::program_id(1) + tl::num_programs(1) * tl::program_id(2));
    tl::Tile i = tl::arange(0, B), offs = pid * B + i, zero = i * 0;
    tl::store(old + offs, tl::atomic_add(counter + zero, tl::full({B}, 1, DType::I32)));
    tl::store(fold + offs, tl::atomic_add(fcounter + zero, tl::load(v + offs)));
  };
  TracedKernel k = require(trace("counter", kernel), "trace");
  Grid grid{3, 2, 2};
  size_t n = size_t(B) * 12;
  std::vector<float> v(n);
  for (float &f : v) f = wideFloat(rng) * 1e4f;
  HostBuffer counter(DType::I32, 1), fcounter(DType::F32, 1), bv = HostBuffer::of(v), old = poisoned(DType::I32, n),
      fold = poisoned(DType::F32, n);
  requireOk(interpret(k, grid, {counter, fcounter, bv, old, fold}), "interpret");
  std::vector<int32_t> want(n);
  std::vector<float> fwant(n);
  float acc = 0;
  for (size_t i = 0; i < n; ++i) want[i] = int32_t(i), fwant[i] = acc, acc = acc + v[i];
  checkBits(old.values<int32_t>(), want, seed, "i32 old values");
  checkBits(fold.values<float>(), fwant, seed, "f32 old values");
  CHECK(counter.values<int32_t>()[0] == int32_t(n));
  CHECK(bitsOf(fcounter.values<float>()[0]) == bitsOf(acc));

  // max / min / xchg / cas on one slot, masked lanes untouched and yielding 0.
  auto others = [](tl::Ptr<int32_t> slots, tl::Ptr<int32_t> vals, tl::Ptr<int32_t> old) {
    tl::Tile i = tl::arange(0, 8), zero = i * 0, x = tl::load(vals + i), m = i < 6;
    tl::store(old + i, tl::atomic_max(slots + zero, x, m));
    tl::store(old + 8 + i, tl::atomic_min(slots + (zero + 1), x, m));
    tl::store(old + 16 + i, tl::atomic_xchg(slots + (zero + 2), x, m));
    tl::store(old + 24 + i, tl::atomic_cas(slots + (zero + 3), i, x, m)); // swaps while slot == i
  };
  TracedKernel k2 = require(trace("others", others), "trace");
  std::vector<int32_t> vals = {5, -3, 9, 2, 9, -8, 100, -100};
  HostBuffer slots = HostBuffer::of(std::vector<int32_t>{0, 0, 7, 0}), bvals = HostBuffer::of(vals),
             old2 = poisoned(DType::I32, 32);
  requireOk(interpret(k2, {1}, {slots, bvals, old2}), "interpret");
  std::vector<int32_t> want2 = {0, 5, 5, 9, 9, 9, 0, 0,  0, 0, -3, -3, -3, -3, 0, 0,
                                7, 5, -3, 9, 2, 9, 0, 0, 0, 5, 5, 5, 5, 5, 0, 0};
  checkBits(old2.values<int32_t>(), want2, 0, "old values");
  CHECK(slots.values<int32_t>() == std::vector<int32_t>{9, -8, -8, -8});
}

// ---- errors -----------------------------------------------------------------------------------

TEST_CASE("interp.argument_errors") {
  TracedKernel k = require(traceVectorAdd(128, 4), "trace");
  HostBuffer x(DType::F32, 128), y(DType::F32, 128), out(DType::F32, 128), ints(DType::I32, 128);
  Status s = interpret(k, {1}, {x, y, out});
  CHECK(codeOf(s) == codeName(StatusCode::InvalidArgument));
  CHECK_MESSAGE(contains(s.message(), "expects 4 arguments"), s.message());
  s = interpret(k, {1}, {x, y, out, 1.0f});
  CHECK(codeOf(s) == codeName(StatusCode::InvalidArgument));
  CHECK_MESSAGE(contains(s.message(), "argument 3 'n' is an i32 scalar, but an f32 scalar was passed"), s.message());
  s = interpret(k, {1}, {x, ints, out, int32_t(5)});
  CHECK_MESSAGE(contains(s.message(), "argument 1 'y' is a buffer of f32, but a buffer of i32 was passed"), s.message());
  s = interpret(k, {1}, {x, int32_t(1), out, int32_t(5)});
  CHECK_MESSAGE(contains(s.message(), "argument 1 'y' is a buffer of f32, but a scalar was passed"), s.message());
  s = interpret(k, {1}, {x, y, out, y});
  CHECK_MESSAGE(contains(s.message(), "argument 3 'n' is a scalar of i32, but a buffer was passed"), s.message());
  s = interpret(k, {1}, {x, static_cast<HostBuffer *>(nullptr), out, int32_t(5)});
  CHECK_MESSAGE(contains(s.message(), "argument 1 'y' is a null buffer"), s.message());
  s = interpret(k, {0, 1, 1}, {x, y, out, int32_t(5)});
  CHECK_MESSAGE(contains(s.message(), "empty grid"), s.message());
  s = interpret(TracedKernel{}, {1}, std::span<const InterpArg>());
  CHECK(codeOf(s) == codeName(StatusCode::InvalidArgument));
}

TEST_CASE("interp.out_of_bounds_is_a_status") {
  TracedKernel k = require(traceVectorAdd(128, 4), "trace");
  // n says 200 but x holds 150: program 1 reads x[150] unmasked.
  HostBuffer x(DType::F32, 150), y(DType::F32, 256), out = poisoned(DType::F32, 256);
  Status s = interpret(k, {2}, {x, y, out, int32_t(200)});
  CHECK(codeOf(s) == codeName(StatusCode::InvalidArgument));
  CHECK_MESSAGE(contains(s.message(), "program (1, 0, 0): load from argument 0 'x' at offset 150"), s.message());
  CHECK_MESSAGE(contains(s.message(), "buffer of 150 elements"), s.message());
  // A store out of bounds writes nothing of its tile; a negative offset is out of bounds too.
  auto negative = [](tl::Ptr<float> out) {
    tl::Tile o = tl::arange(0, 16) - 1;
    tl::store(out + o, tl::full({16}, 1.0, DType::F32));
  };
  TracedKernel k2 = require(trace("negative", negative, {.argNames = {"out"}}), "trace");
  HostBuffer o2 = poisoned(DType::F32, 16);
  s = interpret(k2, {1}, {o2});
  CHECK_MESSAGE(contains(s.message(), "store to argument 0 'out' at offset -1 (element 0"), s.message());
  CHECK(o2.bytes == std::vector<uint8_t>(64, 0xFF));
}

// ---- the float64 shadow -----------------------------------------------------------------------

TEST_CASE("interp.shadow_carries_float64") {
  uint32_t seed = freshSeed();
  CAPTURE(seed);
  std::mt19937 rng(seed);
  constexpr int N = 64;
  auto kernel = [](tl::Ptr<float> x, tl::Ptr<float> out, tl::Ptr<f16> half, tl::Ptr<float> total) {
    tl::Tile o = tl::arange(0, N);
    tl::Tile v = tl::load(x + o);
    tl::store(out + o, (v + 1e8) - 1e8);
    tl::store(half + o, tl::cast(v * 3, DType::F16));
    tl::store(total + tl::arange(0, 1), tl::sum(v));
  };
  TracedKernel k = require(trace("shadow", kernel), "trace");
  std::vector<float> x(N);
  for (float &v : x) {
    do v = std::uniform_real_distribution<float>(-3.0f, 3.0f)(rng);
    while (v == 0.0f);
  }
  HostBuffer bx = HostBuffer::of(x), out(DType::F32, N), half(DType::F16, N), total(DType::F32, 1);
  requireOk(interpret(k, {1}, {bx, out, half, total}, {.shadow = true}), "interpret");
  REQUIRE(out.shadow.size() == size_t(N));
  REQUIRE(half.shadow.size() == size_t(N));
  std::vector<float> got = out.values<float>();
  double exactSum = 0;
  for (int i = 0; i < N; ++i) {
    CAPTURE(i);
    float f = (x[i] + 1e8f) - 1e8f;
    CHECK(bitsOf(got[i]) == bitsOf(f));
    CHECK(out.shadow[i] == double(x[i])); // exact in double
    CHECK(double(got[i]) != out.shadow[i]);
    CHECK(half.shadow[i] == double(x[i]) * 3); // truncf keeps the shadow unrounded
    exactSum += double(x[i]);
  }
  CHECK(std::fabs(total.shadow[0] - exactSum) <= 1e-12);
  CHECK(bx.shadow.empty()); // loads do not give inputs a shadow
  // Without shadow the results are the same bits, and a store drops a stale shadow.
  HostBuffer out2(DType::F32, N), half2(DType::F16, N), total2(DType::F32, 1);
  requireOk(interpret(k, {1}, {bx, out2, half2, total2}), "interpret");
  CHECK(out2.bytes == out.bytes);
  CHECK(half2.bytes == half.bytes);
  CHECK(total2.bytes == total.bytes);
  requireOk(interpret(k, {1}, {bx, out, half, total}), "interpret again");
  CHECK(out.shadow.empty());
  // A load reads the shadow a previous run left: (x + 1e8) - 1e8 of a shadow x.
  HostBuffer chained(DType::F32, N), h3(DType::F16, N), t3(DType::F32, 1);
  HostBuffer src = HostBuffer::of(x);
  src.shadow.assign(N, 0.25);
  requireOk(interpret(k, {1}, {src, chained, h3, t3}, {.shadow = true}), "interpret chained");
  CHECK(chained.shadow[0] == 0.25);
}

// ---- bit-identical with the device ----------------------------------------------------------

namespace {

/// Kernels of exact ops, each `(buffers..., Scalar<int32_t> n)`, run by the interpreter and by
/// the device on the same inputs; every buffer must end with the same bytes.
struct CrossCase {
  std::string name;
  TracedKernel kernel;
  std::vector<HostBuffer> buffers;
  int32_t n;
  Grid grid;
};

constexpr int kCrossBlock = 256;

CrossCase integerCase(std::mt19937 &rng) {
  auto kernel = [](tl::Ptr<int32_t> a, tl::Ptr<int32_t> b, tl::Ptr<int32_t> out, tl::Scalar<int32_t> n) {
    tl::Tile offs = tl::program_id(0) * kCrossBlock + tl::arange(0, kCrossBlock), m = offs < n;
    tl::Tile x = tl::load(a + offs, m), y = tl::load(b + offs, m);
    tl::Tile ops[] = {x + y, x - y, x * y, x / y, x % y, x << y, x >> y, x & y ^ (x | y),
                      tl::maximum(x, y), tl::where(x < y, x, -y), tl::cast(tl::cast(x, DType::U32) >> tl::cast(y, DType::U32), DType::I32),
                      tl::cast(tl::cast(x, DType::I8) * tl::cast(y, DType::I8), DType::I32)};
    for (int k = 0; k < 12; ++k) tl::store(out + k * n + offs, ops[k], m);
  };
  size_t n = std::uniform_int_distribution<size_t>(2000, 5000)(rng) | 1;
  std::vector<int32_t> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = rng() % 4 ? int32_t(rng()) : int32_t(rng() % 200) - 100;
    b[i] = rng() % 3 ? int32_t(rng() % 81) - 40 : int32_t(rng());
  }
  a[0] = std::numeric_limits<int32_t>::min(), b[0] = -1, b[1] = 0;
  return {"integers", require(trace("cross_int", kernel), "trace"),
          {HostBuffer::of(a), HostBuffer::of(b), poisoned(DType::I32, 12 * n)}, int32_t(n),
          {uint32_t((n + kCrossBlock - 1) / kCrossBlock), 1, 1}};
}

CrossCase floatCase(std::mt19937 &rng) {
  // No product feeds a sum here: a driver may fuse a * b + c (NUMERICS.md).
  auto kernel = [](tl::Ptr<float> a, tl::Ptr<float> b, tl::Ptr<float> out, tl::Scalar<int32_t> n) {
    tl::Tile offs = tl::program_id(0) * kCrossBlock + tl::arange(0, kCrossBlock), m = offs < n;
    tl::Tile x = tl::load(a + offs, m), y = tl::load(b + offs, m);
    tl::Tile ops[] = {x + y, x - y, x * y, -x, tl::abs(y), tl::minimum(x, y), tl::maximum(x, y),
                      tl::where(x < y, x, y), tl::where(x <= y, x - y, y + x)};
    for (int k = 0; k < 9; ++k) tl::store(out + k * n + offs, ops[k], m);
  };
  size_t n = std::uniform_int_distribution<size_t>(2000, 5000)(rng) | 1;
  std::vector<float> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = wideFloat(rng);
    b[i] = rng() % 8 ? wideFloat(rng) : (rng() % 2 ? a[i] : std::ldexp(wideFloat(rng), -130)); // ties, subnormals
  }
  return {"floats", require(trace("cross_float", kernel), "trace"),
          {HostBuffer::of(a), HostBuffer::of(b), poisoned(DType::F32, 9 * n)}, int32_t(n),
          {uint32_t((n + kCrossBlock - 1) / kCrossBlock), 1, 1}};
}

CrossCase castCase(std::mt19937 &rng) {
  auto kernel = [](tl::Ptr<float> x, tl::Ptr<int32_t> i, tl::Ptr<int32_t> iout, tl::Ptr<float> fout, tl::Ptr<f16> hout,
                   tl::Ptr<bf16> bout, tl::Ptr<uint8_t> u8out, tl::Scalar<int32_t> n) {
    tl::Tile offs = tl::program_id(0) * kCrossBlock + tl::arange(0, kCrossBlock), m = offs < n;
    tl::Tile v = tl::load(x + offs, m), w = tl::load(i + offs, m);
    tl::Tile ints[] = {tl::cast(v, DType::I32), tl::cast(tl::cast(v, DType::U32), DType::I32),
                       tl::cast(tl::cast(v, DType::I8), DType::I32), tl::cast(tl::cast(w, DType::I16), DType::I32),
                       tl::cast(v > 0, DType::I32)};
    for (int k = 0; k < 5; ++k) tl::store(iout + k * n + offs, ints[k], m);
    tl::Tile floats[] = {tl::cast(w, DType::F32), tl::cast(tl::cast(v, DType::F16), DType::F32),
                         tl::cast(tl::cast(v, DType::BF16), DType::F32), tl::cast(tl::cast(w, DType::BF16), DType::F32)};
    for (int k = 0; k < 4; ++k) tl::store(fout + k * n + offs, floats[k], m);
    tl::store(hout + offs, tl::cast(v, DType::F16), m);
    tl::store(bout + offs, tl::cast(v, DType::BF16), m);
    tl::store(u8out + offs, tl::cast(v, DType::U8), m);
  };
  size_t n = std::uniform_int_distribution<size_t>(2000, 5000)(rng) | 1;
  std::vector<float> x(n);
  std::vector<int32_t> i(n);
  const float inf = std::numeric_limits<float>::infinity();
  for (size_t k = 0; k < n; ++k) {
    switch (rng() % 6) { // no NaN: f16/bf16 NaN payloads are not part of the contract
    case 0: x[k] = std::ldexp(wideFloat(rng), 20); break;  // beyond f16, often beyond i32
    case 1: x[k] = rng() % 2 ? inf : -inf; break;
    case 2: x[k] = float(int(rng() % 600) - 300) + 0.5f; break; // halfway-ish, i8/u8 saturation
    default: x[k] = wideFloat(rng) * 100.0f;
    }
    i[k] = int32_t(rng());
  }
  return {"casts", require(trace("cross_cast", kernel), "trace"),
          {HostBuffer::of(x), HostBuffer::of(i), poisoned(DType::I32, 5 * n), poisoned(DType::F32, 4 * n),
           poisoned(DType::F16, n), poisoned(DType::BF16, n), poisoned(DType::U8, n)},
          int32_t(n), {uint32_t((n + kCrossBlock - 1) / kCrossBlock), 1, 1}};
}

constexpr int kReduceR = 16, kReduceC = 32;
/// Per program: five reductions (R + C + 1 results each), then an R x C cumsum.
constexpr int kReducePerProgram = 5 * (kReduceR + kReduceC + 1) + kReduceR * kReduceC;

CrossCase reductionCase(std::mt19937 &rng) {
  constexpr int R = kReduceR, C = kReduceC;
  auto kernel = [](tl::Ptr<int32_t> a, tl::Ptr<float> f, tl::Ptr<int32_t> out, tl::Ptr<float> fout, tl::Scalar<int32_t> n) {
    tl::Tile r = tl::arange(0, R), c = tl::arange(0, C);
    tl::Tile offs = tl::program_id(0) * (R * C) + tl::expand_dims(r, 1) * C + tl::expand_dims(c, 0);
    tl::Tile m = offs < n;
    tl::Tile t = tl::load(a + offs, m, -5), ft = tl::load(f + offs, m, 0.5);
    tl::Tile base = tl::program_id(0) * kReducePerProgram, fbase = tl::program_id(0) * (4 * (R + C + 1));
    tl::Tile (*ops[])(const tl::Tile &, int, bool, tl::SourceLoc) = {tl::sum, tl::max, tl::min, tl::argmax, tl::argmin};
    tl::Tile (*whole[])(const tl::Tile &, tl::SourceLoc) = {tl::sum, tl::max, tl::min, tl::argmax, tl::argmin};
    for (int k = 0; k < 5; ++k) {
      tl::Tile at = base + k * (R + C + 1);
      tl::store(out + at + r, ops[k](t, 1, false, tl::SourceLoc::current()));
      tl::store(out + at + R + c, ops[k](t, 0, false, tl::SourceLoc::current()));
      tl::store(out + at + (R + C) + tl::arange(0, 1), whole[k](t, tl::SourceLoc::current()));
    }
    tl::Tile at = base + 5 * (R + C + 1);
    tl::store(out + at + tl::expand_dims(r, 1) * C + tl::expand_dims(c, 0), tl::cumsum(t, 1));
    for (int k = 1; k < 5; ++k) { // float max/min/argmax/argmin do not depend on the order
      tl::Tile fat = fbase + (k - 1) * (R + C + 1);
      tl::Tile fr = ops[k](ft, 1, false, tl::SourceLoc::current()), fc = ops[k](ft, 0, false, tl::SourceLoc::current());
      if (k >= 3) fr = tl::cast(fr, DType::F32), fc = tl::cast(fc, DType::F32);
      tl::store(fout + fat + r, fr);
      tl::store(fout + fat + R + c, fc);
    }
  };
  int programs = 3;
  size_t n = size_t(programs) * R * C - std::uniform_int_distribution<size_t>(1, 200)(rng);
  std::vector<int32_t> a(size_t(programs) * R * C);
  std::vector<float> f(a.size());
  for (size_t k = 0; k < a.size(); ++k) {
    a[k] = rng() % 2 ? int32_t(rng() % 41) - 20 : int32_t(rng()); // ties, and wrapping sums
    f[k] = rng() % 2 ? float(int(rng() % 9) - 4) : wideFloat(rng);
  }
  return {"reductions", require(trace("cross_reduce", kernel), "trace"),
          {HostBuffer::of(a), HostBuffer::of(f), poisoned(DType::I32, size_t(programs) * kReducePerProgram),
           poisoned(DType::F32, size_t(programs) * 4 * (R + C + 1))},
          int32_t(n), {uint32_t(programs), 1, 1}};
}

} // namespace

TEST_CASE("interp.bit_identical_with_the_device") {
  Result<std::shared_ptr<Runtime>> rt = Runtime::create();
  REQUIRE_MESSAGE(rt.ok(), rt.status().toString());
  Result<std::shared_ptr<Device>> dev = (*rt)->openDefault();
  if (!dev) {
    skipTest("no device to compare the interpreter with: " + dev.status().toString());
    return;
  }
  Device &device = **dev;
  MESSAGE("comparing with " << device.describe());
  uint32_t seed = freshSeed();
  CAPTURE(seed);
  std::mt19937 rng(seed);
  std::vector<CrossCase> cases;
  cases.push_back(integerCase(rng));
  cases.push_back(floatCase(rng));
  cases.push_back(castCase(rng));
  cases.push_back(reductionCase(rng));
  for (CrossCase &c : cases) {
    CAPTURE(c.name);
    // The interpreter, on copies.
    std::vector<HostBuffer> host = c.buffers;
    std::vector<InterpArg> iargs(host.begin(), host.end());
    iargs.push_back(c.n);
    requireOk(interpret(c.kernel, c.grid, iargs), "interpret");
    // The device.
    Package pkg = require(compile(c.kernel, device.target()), "compile");
    Module module = require(device.load(pkg), "load");
    Kernel kernel = require(module.kernel(c.kernel.name()), "kernel");
    std::vector<Buffer> buffers;
    for (const HostBuffer &b : c.buffers) {
      buffers.push_back(require(device.allocate(b.dtype, b.count()), "allocate"));
      requireOk(buffers.back().upload(b.bytes.data(), b.bytes.size()), "upload");
    }
    std::vector<KernelArg> kargs(buffers.begin(), buffers.end());
    kargs.push_back(c.n);
    requireOk(kernel.launch(c.grid, kargs), "launch");
    for (size_t i = 0; i < buffers.size(); ++i) {
      std::vector<uint8_t> got(c.buffers[i].bytes.size());
      requireOk(buffers[i].download(got.data(), got.size()), "download");
      size_t size = sizeOf(c.buffers[i].dtype), bad = 0;
      std::string first;
      for (size_t e = 0; e < got.size() / size; ++e)
        if (std::memcmp(&got[e * size], &host[i].bytes[e * size], size) && bad++ < 5) {
          uint64_t d = 0, h = 0;
          std::memcpy(&d, &got[e * size], size);
          std::memcpy(&h, &host[i].bytes[e * size], size);
          char line[96];
          std::snprintf(line, sizeof line, "  [%zu] device 0x%llx, interpreter 0x%llx\n", e, (unsigned long long)d,
                        (unsigned long long)h);
          first += line;
        }
      CHECK_MESSAGE(bad == 0, c.name << " buffer " << i << ": " << bad << " elements differ (seed " << seed << "):\n" << first);
    }
  }
}
