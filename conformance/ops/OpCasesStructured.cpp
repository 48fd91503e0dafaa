// Op cases whose outputs are not element-wise: reductions, scans, shape changes, random
// numbers and atomics.
#include "OpCases.hpp"

#include <algorithm>
#include <map>

namespace tessera::optests {
namespace {

/// A launch of kernel(a, b, out, n) on host vectors, returning the three buffers' contents.
template <class A, class B, class O, class S = int32_t>
std::string launch(Device &dev, const Kernel &k, std::vector<A> &a, std::vector<B> &b, std::vector<O> &out, S n) {
  std::string err;
  auto ba = upload(dev, a, err), bb = upload(dev, b, err), bo = upload(dev, out, err);
  if (!err.empty()) return err;
  if (Status s = k.launch({1}, {*ba, *bb, *bo, n}); !s) return s.toString();
  a = download<A>(*ba, err);
  b = download<B>(*bb, err);
  out = download<O>(*bo, err);
  return err;
}

template <class T> std::string mismatch(const char *what, int i, T got, T want) {
  return std::string(what) + "[" + std::to_string(i) + "]: got " + show(got) + ", expected " + show(want);
}

// ---- reductions: axis 1 -> out[0, R), axis 0 -> out[R, R + C), whole tile -> out[R + C] ----
// The tile is loaded under a 13 x 29 mask with other = 0, so masked-off elements count as 0.

enum class Red { Sum, Max, Min, ArgMax, ArgMin };
const char *redName(Red r) {
  static const char *n[] = {"sum", "max", "min", "argmax", "argmin"};
  return n[int(r)];
}

/// Exact: small integers (float sums are exact in any order, extremes tie and the first index
/// wins). Random: floats over [-1000, 1000] with a NaN in some rows for max/min/arg*; a sum of
/// n values is within (n - 1) 2^-24 sum|x| of the exact sum (any order of f32 additions).
enum class Values { Exact, Random };

template <class T, class O> void addReduce(std::vector<OpCase> &cases, Red red, const std::string &tn, Values values = Values::Exact) {
  std::string name = std::string("reduce_") + redName(red) + "_" + tn + (values == Values::Random ? "_random" : "");
  OpCase c{name, "reduce", nullptr, std::nullopt, nullptr};
#ifndef TESSERA_OPTESTS_AOT
  c.trace = [=]() {
    auto kernel = [red](tl::Ptr<T> a, tl::Ptr<T>, tl::Ptr<O> out, tl::Scalar<int32_t>) {
      tl::Tile r = tl::arange(0, R), col = tl::arange(0, C);
      tl::Tile rows = tl::expand_dims(r, 1), cols = tl::expand_dims(col, 0);
      tl::Tile t = tl::load(a + rows * C + cols, (rows < RV) & (cols < CV), 0);
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
      tl::store(out + R + col, f(t, 0));
      tl::store(out + (R + C) + tl::arange(0, 1), f(t, std::nullopt));
    };
    return trace(name, kernel, {.numWarps = 2});
  };
#endif
  c.run = [=](Device &dev, const Kernel &k, std::mt19937 &rng) -> std::string {
    std::vector<T> a(RC), b(1);
    for (T &v : a) {
      if (values == Values::Random) v = randomValue<T>(rng);
      else v = fromFloat<T>(float(std::uniform_int_distribution<int>(0, 40)(rng) - (std::is_unsigned_v<T> ? 0 : 20)));
    }
    if constexpr (isFloatT<T>)
      if (values == Values::Random && red != Red::Sum)
        for (int i = 0; i < 4; ++i) a[(rng() % RV) * C + rng() % CV] = fromFloat<T>(NAN);
    std::vector<O> out(R + C + 1, poison<O>());
    if (std::string e = launch(dev, k, a, b, out, 0); !e.empty()) return e;
    auto element = [&](int i) { return (i / C < RV && i % C < CV) ? toDouble(a[i]) : 0.0; };
    // Returns whether `got` is right for the elements `idx`, and the expected value in `why`.
    auto check = [&](const std::vector<int> &idx, O got, std::string &why) {
      double best = element(idx[0]), sum = 0, magnitude = 0;
      int at = 0;
      for (size_t i = 0; i < idx.size(); ++i) {
        double v = element(idx[i]);
        sum += v;
        magnitude += std::fabs(v);
        if (std::isnan(best)) continue; // the first NaN is the extreme
        if (std::isnan(v) || ((red == Red::ArgMax || red == Red::Max) ? v > best : v < best)) best = v, at = int(i);
      }
      if (red == Red::Sum && isFloatT<O> && values == Values::Random) {
        double bound = double(idx.size() - 1) * 0x1p-24 * magnitude;
        why = show(sum) + " (within " + show(bound) + ")";
        return std::fabs(toDouble(got) - sum) <= bound;
      }
      O want = red == Red::Sum ? fromFloat<O>(float(sum)) : (red == Red::ArgMax || red == Red::ArgMin) ? O(at) : fromFloat<O>(float(best));
      if constexpr (!isFloatT<O>)
        if (red == Red::Sum) want = O(int64_t(sum));
      return exactly(got, want, why);
    };
    std::string why;
    for (int i = 0; i < R; ++i) {
      std::vector<int> idx;
      for (int j = 0; j < C; ++j) idx.push_back(i * C + j);
      if (!check(idx, out[i], why)) return "axis 1 [" + std::to_string(i) + "]: got " + show(out[i]) + ", expected " + why;
    }
    for (int j = 0; j < C; ++j) {
      std::vector<int> idx;
      for (int i = 0; i < R; ++i) idx.push_back(i * C + j);
      if (!check(idx, out[R + j], why)) return "axis 0 [" + std::to_string(j) + "]: got " + show(out[R + j]) + ", expected " + why;
    }
    std::vector<int> all(RC);
    for (int i = 0; i < RC; ++i) all[i] = i;
    if (!check(all, out[R + C], why)) return "whole tile: got " + show(out[R + C]) + ", expected " + why;
    return "";
  };
  cases.push_back(c);
}

/// Every reduction of T: sums widen (f16/bf16 to f32, i8/i16 to i32, u8 to u32).
template <class T, class S> void addReductions(std::vector<OpCase> &cases, const std::string &tn) {
  addReduce<T, S>(cases, Red::Sum, tn);
  addReduce<T, T>(cases, Red::Max, tn);
  addReduce<T, T>(cases, Red::Min, tn);
  addReduce<T, int32_t>(cases, Red::ArgMax, tn);
  addReduce<T, int32_t>(cases, Red::ArgMin, tn);
  if constexpr (isFloatT<T>) {
    addReduce<T, S>(cases, Red::Sum, tn, Values::Random);
    addReduce<T, T>(cases, Red::Max, tn, Values::Random);
    addReduce<T, T>(cases, Red::Min, tn, Values::Random);
    addReduce<T, int32_t>(cases, Red::ArgMax, tn, Values::Random);
    addReduce<T, int32_t>(cases, Red::ArgMin, tn, Values::Random);
  }
}

// ---- cumsum along axis 1 and axis 0 of a 2-D tile ------------------------------------------
// Exact for small integers; random floats are within (k - 1) 2^-24 sum|x| at prefix length k.

template <class T, class O> void addScan(std::vector<OpCase> &cases, int axis, const std::string &tn, Values values = Values::Exact) {
  std::string name = "cumsum_axis" + std::to_string(axis) + "_" + tn + (values == Values::Random ? "_random" : "");
  OpCase c{name, "scan", nullptr, std::nullopt, nullptr};
#ifndef TESSERA_OPTESTS_AOT
  c.trace = [=]() {
    auto kernel = [axis](tl::Ptr<T> a, tl::Ptr<T>, tl::Ptr<O> out, tl::Scalar<int32_t>) {
      tl::Tile offs = tl::expand_dims(tl::arange(0, R), 1) * C + tl::expand_dims(tl::arange(0, C), 0);
      tl::store(out + offs, tl::cumsum(tl::load(a + offs), axis));
    };
    return trace(name, kernel, {.numWarps = 2});
  };
#endif
  c.run = [=](Device &dev, const Kernel &k, std::mt19937 &rng) -> std::string {
    std::vector<T> a(RC), b(1);
    std::vector<O> out(RC, poison<O>());
    for (T &v : a)
      v = values == Values::Random ? randomValue<T>(rng)
                                   : fromFloat<T>(float(std::uniform_int_distribution<int>(std::is_unsigned_v<T> ? 0 : -50, 50)(rng)));
    if (std::string e = launch(dev, k, a, b, out, 0); !e.empty()) return e;
    for (int i = 0; i < R; ++i)
      for (int j = 0; j < C; ++j) {
        double s = 0, magnitude = 0;
        int len = (axis ? j : i) + 1;
        for (int t = 0; t < len; ++t) {
          double v = toDouble(a[axis ? i * C + t : t * C + j]);
          s += v;
          magnitude += std::fabs(v);
        }
        O got = out[i * C + j];
        std::string why;
        bool ok;
        if (values == Values::Random) {
          double bound = (len - 1) * 0x1p-24 * magnitude;
          why = show(s) + " (within " + show(bound) + ")";
          ok = std::fabs(toDouble(got) - s) <= bound;
        } else {
          O want;
          if constexpr (isFloatT<O>) want = fromFloat<O>(float(s));
          else want = O(int64_t(s));
          ok = exactly(got, want, why);
        }
        if (!ok) return "cumsum [" + std::to_string(i) + ", " + std::to_string(j) + "]: got " + show(got) + ", expected " + why;
      }
    return "";
  };
  cases.push_back(c);
}

// ---- shapes: trans, broadcast of a column and of a row, reshape ------------------------------

enum class Shape { Trans, BroadcastColumn, BroadcastRow, Reshape, Permute };

template <class T> void addShape(std::vector<OpCase> &cases, Shape shape, const std::string &sn, const std::string &tn) {
  std::string name = "shape_" + sn + "_" + tn;
  OpCase c{name, "shape", nullptr, std::nullopt, nullptr};
#ifndef TESSERA_OPTESTS_AOT
  c.trace = [=]() {
    auto kernel = [shape](tl::Ptr<T> a, tl::Ptr<T>, tl::Ptr<T> out, tl::Scalar<int32_t>) {
      tl::Tile r = tl::expand_dims(tl::arange(0, R), 1), col = tl::expand_dims(tl::arange(0, C), 0);
      tl::Tile rc = r * C + col; // [R, C] row-major offsets
      switch (shape) {
      case Shape::Trans: { // out is C x R: out[j][i] = a[i][j]
        tl::Tile cr = tl::expand_dims(tl::arange(0, C), 1) * R + tl::expand_dims(tl::arange(0, R), 0);
        tl::store(out + cr, tl::trans(tl::load(a + rc)));
        break;
      }
      case Shape::BroadcastColumn: // out[i][j] = a[i]
        tl::store(out + rc, tl::broadcast_to(tl::load(a + r), {R, C}));
        break;
      case Shape::BroadcastRow: // out[i][j] = a[j]
        tl::store(out + rc, tl::load(a + col) + tl::zeros({R, 1}, DTypeOf<T>::value));
        break;
      case Shape::Reshape: // a flat 512 tile reshaped to R x C, stored transposed: out[j][i] = a[i*C + j]
        tl::store(out + col * R + r, tl::reshape(tl::load(a + tl::arange(0, R * C)), {R, C}));
        break;
      case Shape::Permute: { // a is [2, 8, 32]; out[k][i][j] = a[i][j][k], out shaped [32, 2, 8]
        auto axisTile = [](int n, int at) { // arange(0, n) along dimension `at` of a rank-3 tile
          tl::Tile t = tl::arange(0, n);
          for (int d = 0; d < 3; ++d)
            if (d != at) t = tl::expand_dims(t, d);
          return t;
        };
        tl::Tile x = tl::load(a + axisTile(2, 0) * 256 + axisTile(8, 1) * 32 + axisTile(32, 2));
        tl::store(out + axisTile(32, 0) * 16 + axisTile(2, 1) * 8 + axisTile(8, 2), tl::permute(x, {2, 0, 1}));
        break;
      }
      }
    };
    return trace(name, kernel, {.numWarps = 2});
  };
#endif
  c.run = [=](Device &dev, const Kernel &k, std::mt19937 &rng) -> std::string {
    std::vector<T> a(RC), b(1), out(RC, poison<T>());
    for (T &v : a) v = randomValue<T>(rng);
    if (std::string e = launch(dev, k, a, b, out, 0); !e.empty()) return e;
    if (shape == Shape::Permute) {
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 8; ++j)
          for (int k = 0; k < 32; ++k)
            if (!sameBits(out[k * 16 + i * 8 + j], a[i * 256 + j * 32 + k]))
              return mismatch("out", k * 16 + i * 8 + j, out[k * 16 + i * 8 + j], a[i * 256 + j * 32 + k]);
      return "";
    }
    for (int i = 0; i < R; ++i)
      for (int j = 0; j < C; ++j) {
        int at = shape == Shape::Trans || shape == Shape::Reshape ? j * R + i : i * C + j;
        T want = shape == Shape::BroadcastColumn ? a[i] : shape == Shape::BroadcastRow ? a[j] : a[i * C + j];
        if (!sameBits(out[at], want)) return mismatch("out", at, out[at], want);
      }
    return "";
  };
  cases.push_back(c);
}

// ---- random: Philox 4x32-10, the same bits as this CPU version ------------------------------

std::array<uint32_t, 4> philox(uint64_t seed, uint32_t counter) {
  uint32_t c0 = counter, c1 = 0, c2 = 0, c3 = 0, k0 = uint32_t(seed), k1 = uint32_t(seed >> 32);
  for (int i = 0; i < 10; ++i) {
    uint64_t p0 = uint64_t(0xD2511F53u) * c0, p1 = uint64_t(0xCD9E8D57u) * c2;
    uint32_t n0 = uint32_t(p1 >> 32) ^ c1 ^ k0, n2 = uint32_t(p0 >> 32) ^ c3 ^ k1;
    c0 = n0, c1 = uint32_t(p1), c2 = n2, c3 = uint32_t(p0);
    k0 += 0x9E3779B9u, k1 += 0xBB67AE85u;
  }
  return {c0, c1, c2, c3};
}

enum class Rng { RandInt, Rand, RandN };

/// randint (into a u32 buffer), rand and randn (f32) of 256 random counters under a random
/// seed of type S, which the tracer sign- or zero-extends to the 64-bit key. randint and rand
/// are bit-exact; randn is Box-Muller through the device's log, sqrt and cos, checked within
/// 2^-16 (1 + |x|) of the exact value.
template <class S, class O> void addRandom(std::vector<OpCase> &cases, Rng kind, const std::string &sn) {
  static const char *names[] = {"randint", "rand", "randn"};
  std::string name = std::string("random_") + names[int(kind)] + "_seed_" + sn;
  OpCase c{name, "random", nullptr, std::nullopt, nullptr};
#ifndef TESSERA_OPTESTS_AOT
  c.trace = [=]() {
    auto kernel = [kind](tl::Ptr<int32_t> a, tl::Ptr<int32_t>, tl::Ptr<O> out, tl::Scalar<S> seed) {
      tl::Tile offs = tl::arange(0, 256), counters = tl::load(a + offs);
      tl::store(out + offs, kind == Rng::RandInt ? tl::randint(seed, counters)
                            : kind == Rng::Rand  ? tl::rand(seed, counters)
                                                 : tl::randn(seed, counters));
    };
    return trace(name, kernel, {.numWarps = 2});
  };
#endif
  c.run = [=](Device &dev, const Kernel &k, std::mt19937 &rng) -> std::string {
    std::vector<int32_t> a(256), b(1);
    for (int32_t &v : a) v = int32_t(rng());
    S seed = S(uint64_t(rng()) << 32 | rng());
    std::vector<O> out(256, poison<O>());
    if (std::string e = launch(dev, k, a, b, out, seed); !e.empty()) return e;
    for (int i = 0; i < 256; ++i) {
      auto bits = philox(uint64_t(int64_t(seed)), uint32_t(a[i])); // u32 seeds zero-extend here too
      if constexpr (std::is_same_v<O, uint32_t>) {
        if (out[i] != bits[0]) return mismatch("randint", i, out[i], bits[0]);
      } else if (kind == Rng::Rand) {
        float want = float(bits[0] >> 8) * 0x1p-24f;
        if (!sameBits(out[i], want)) return mismatch("rand", i, out[i], want);
      } else {
        double u1 = double(bits[0] >> 8) * 0x1p-24 + 0x1p-24, u2 = double(bits[1] >> 8) * 0x1p-24;
        double x = std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
        double err = std::fabs(double(out[i]) - x), bound = 0x1p-16 * (1 + std::fabs(x));
        MathError &m = mathErrors()[name];
        m.absolute = std::max(m.absolute, err), ++m.samples;
        if (!(err <= bound))
          return "randn [" + std::to_string(i) + "]: got " + show(out[i]) + ", expected " + show(x) + " (within " + show(bound) + ")";
      }
    }
    return "";
  };
  cases.push_back(c);
}

// ---- atomics --------------------------------------------------------------------------------

/// out[slot(i)] op= a[i] for the first n elements, slot(i) = a[i] % 16 (add) or i % 8 (max/min);
/// b receives the old values. Checks the final slots (the old values depend on the order).
template <class T> void addAtomic(std::vector<OpCase> &cases, const std::string &op, const std::string &tn) {
  std::string name = "atomic_" + op + "_" + tn;
  OpCase c{name, "atomic", nullptr, std::nullopt, nullptr};
#ifndef TESSERA_OPTESTS_AOT
  c.trace = [=]() {
    auto kernel = [op](tl::Ptr<T> a, tl::Ptr<T> b, tl::Ptr<T> out, tl::Scalar<int32_t> n) {
      tl::Tile offs = tl::arange(0, 256), mask = offs < n;
      tl::Tile v = tl::load(a + offs, mask);
      tl::Tile old;
      if (op == "add") old = tl::atomic_add(out + tl::cast(v, DType::I32) % 16, v, mask);
      else if (op == "max") old = tl::atomic_max(out + offs % 8, v, mask);
      else if (op == "min") old = tl::atomic_min(out + offs % 8, v, mask, tl::MemoryOrder::Relaxed);
      else if (op == "xchg") old = tl::atomic_xchg(out + offs, v, mask);
      else old = tl::atomic_cas(out + offs, tl::cast(offs, DTypeOf<T>::value), v, mask); // cas
      tl::store(b + offs, old, mask);
    };
    return trace(name, kernel, {.numWarps = 2});
  };
#endif
  c.run = [=](Device &dev, const Kernel &k, std::mt19937 &rng) -> std::string {
    const int n = 253;
    std::vector<T> a(256), b(256, T(0)), out(256, T(0));
    for (T &v : a) v = T(std::uniform_int_distribution<int>(0, 1000)(rng));
    if (op == "max") std::fill(out.begin(), out.end(), T(0));
    if (op == "min") std::fill(out.begin(), out.end(), T(5000));
    if (op == "xchg" || op == "cas")
      for (int i = 0; i < 256; ++i) out[i] = T(i % 2 ? i + 1 : i); // cas swaps the even slots only
    std::vector<T> before = out, input = a;
    if (std::string e = launch(dev, k, a, b, out, n); !e.empty()) return e;
    std::vector<T> want = before;
    for (int i = 0; i < n; ++i) {
      T v = input[i];
      if (op == "add") want[int(toDouble(v)) % 16] = T(toDouble(want[int(toDouble(v)) % 16]) + toDouble(v));
      else if (op == "max") want[i % 8] = std::max(want[i % 8], v);
      else if (op == "min") want[i % 8] = std::min(want[i % 8], v);
      else if (op == "xchg") want[i] = v;
      else if (before[i] == T(i)) want[i] = v;
      if ((op == "xchg" || op == "cas") && !sameBits(b[i], before[i])) return mismatch("old value", i, b[i], before[i]);
    }
    for (int i = 0; i < 256; ++i)
      if (!sameBits(out[i], want[i])) return mismatch("slot", i, out[i], want[i]);
    return "";
  };
  cases.push_back(c);
}

} // namespace

void addStructuredCases(std::vector<OpCase> &cases) {
  addReductions<float, float>(cases, "f32");
  addReductions<f16, float>(cases, "f16");
  addReductions<bf16, float>(cases, "bf16");
  addReductions<int8_t, int32_t>(cases, "i8");
  addReductions<int16_t, int32_t>(cases, "i16");
  addReductions<int32_t, int32_t>(cases, "i32");
  addReductions<int64_t, int64_t>(cases, "i64"); // not supported yet: a known failure
  addReductions<uint8_t, uint32_t>(cases, "u8");
  addReductions<uint32_t, uint32_t>(cases, "u32");
  for (int axis : {0, 1}) {
    addScan<float, float>(cases, axis, "f32");
    addScan<float, float>(cases, axis, "f32", Values::Random);
    addScan<f16, float>(cases, axis, "f16");
    addScan<bf16, float>(cases, axis, "bf16", Values::Random);
    addScan<int8_t, int32_t>(cases, axis, "i8");
    addScan<int16_t, int32_t>(cases, axis, "i16");
    addScan<int32_t, int32_t>(cases, axis, "i32");
    addScan<int64_t, int64_t>(cases, axis, "i64");
    addScan<uint8_t, uint32_t>(cases, axis, "u8");
    addScan<uint32_t, uint32_t>(cases, axis, "u32");
  }
  struct { Shape s; const char *n; } shapes[] = {{Shape::Trans, "trans"}, {Shape::BroadcastColumn, "broadcast_column"},
                                                  {Shape::BroadcastRow, "broadcast_row"}, {Shape::Reshape, "reshape"},
                                                  {Shape::Permute, "permute"}};
  for (auto [s, n] : shapes) {
    addShape<float>(cases, s, n, "f32");
    addShape<f16>(cases, s, n, "f16");
    addShape<bf16>(cases, s, n, "bf16");
    addShape<int8_t>(cases, s, n, "i8");
    addShape<int16_t>(cases, s, n, "i16");
    addShape<int32_t>(cases, s, n, "i32");
    addShape<int64_t>(cases, s, n, "i64");
    addShape<uint8_t>(cases, s, n, "u8");
    addShape<uint32_t>(cases, s, n, "u32");
  }
  addRandom<int32_t, uint32_t>(cases, Rng::RandInt, "i32");
  addRandom<uint32_t, uint32_t>(cases, Rng::RandInt, "u32");
  addRandom<int64_t, uint32_t>(cases, Rng::RandInt, "i64");
  addRandom<int64_t, float>(cases, Rng::Rand, "i64");
  addRandom<int32_t, float>(cases, Rng::Rand, "i32");
  addRandom<int64_t, float>(cases, Rng::RandN, "i64");
  addAtomic<int32_t>(cases, "add", "i32");
  addAtomic<uint32_t>(cases, "add", "u32");
  addAtomic<float>(cases, "add", "f32");
  addAtomic<int64_t>(cases, "add", "i64");
  addAtomic<int32_t>(cases, "max", "i32");
  addAtomic<uint32_t>(cases, "max", "u32");
  addAtomic<int32_t>(cases, "min", "i32");
  addAtomic<uint32_t>(cases, "min", "u32");
  addAtomic<int32_t>(cases, "xchg", "i32");
  addAtomic<uint32_t>(cases, "xchg", "u32");
  addAtomic<int64_t>(cases, "xchg", "i64");
  addAtomic<float>(cases, "xchg", "f32");
  addAtomic<int32_t>(cases, "cas", "i32");
  addAtomic<uint32_t>(cases, "cas", "u32");
  addAtomic<int64_t>(cases, "cas", "i64");
}

} // namespace tessera::optests
