// Op cases whose outputs are not element-wise: reductions, scans, shape changes, random
// numbers and atomics.
#include "OpCases.hpp"

#include <algorithm>
#include <map>

namespace tl = tessera::tl;
#ifndef TESSERA_OPTESTS_AOT
#define TRACE(...) [=]() -> Result<TracedKernel> { __VA_ARGS__ }
#else
#define TRACE(...) nullptr
#endif

namespace tessera::optests {
namespace {

constexpr int R = 16, C = 32, RC = R * C;

/// A launch of kernel(a, b, out, n) on host vectors, returning the three buffers' contents.
template <class A, class B, class O>
std::string launch(Device &dev, const Kernel &k, std::vector<A> &a, std::vector<B> &b, std::vector<O> &out, int32_t n) {
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

enum class Red { Sum, Max, Min, ArgMax, ArgMin };
const char *redName(Red r) {
  static const char *n[] = {"sum", "max", "min", "argmax", "argmin"};
  return n[int(r)];
}

template <class T, class O> void addReduce(std::vector<OpCase> &cases, Red red, const std::string &tn) {
  std::string name = std::string("reduce_") + redName(red) + "_" + tn;
  OpCase c{name, "reduce", nullptr, std::nullopt, nullptr};
#ifndef TESSERA_OPTESTS_AOT
  c.trace = [=]() {
    auto kernel = [red](tl::Ptr<T> a, tl::Ptr<T>, tl::Ptr<O> out, tl::Scalar<int32_t>) {
      tl::Tile r = tl::arange(0, R), col = tl::arange(0, C);
      tl::Tile t = tl::load(a + tl::expand_dims(r, 1) * C + tl::expand_dims(col, 0));
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
    // Small integers: float sums are exact in any order, and extremes tie (first index wins).
    std::vector<T> a(RC), b(1);
    for (T &v : a) v = fromFloat<T>(float(std::uniform_int_distribution<int>(0, 40)(rng) - (std::is_unsigned_v<T> ? 0 : 20)));
    std::vector<O> out(R + C + 1, poison<O>());
    if (std::string e = launch(dev, k, a, b, out, 0); !e.empty()) return e;
    auto expect = [&](std::vector<int> idx) -> O {
      double best = toDouble(a[idx[0]]), sum = 0;
      int at = 0;
      for (size_t i = 0; i < idx.size(); ++i) {
        double v = toDouble(a[idx[i]]);
        sum += v;
        if ((red == Red::ArgMax || red == Red::Max) ? v > best : v < best) best = v, at = int(i);
      }
      if (red == Red::Sum) return O(fromFloat<O>(float(sum)));
      if (red == Red::ArgMax || red == Red::ArgMin) return O(at);
      return fromFloat<O>(float(best));
    };
    for (int i = 0; i < R; ++i) {
      std::vector<int> idx;
      for (int j = 0; j < C; ++j) idx.push_back(i * C + j);
      if (!sameBits(out[i], expect(idx))) return mismatch("axis 1", i, out[i], expect(idx));
    }
    for (int j = 0; j < C; ++j) {
      std::vector<int> idx;
      for (int i = 0; i < R; ++i) idx.push_back(i * C + j);
      if (!sameBits(out[R + j], expect(idx))) return mismatch("axis 0", j, out[R + j], expect(idx));
    }
    std::vector<int> all(RC);
    for (int i = 0; i < RC; ++i) all[i] = i;
    if (!sameBits(out[R + C], expect(all))) return mismatch("whole tile", 0, out[R + C], expect(all));
    return "";
  };
  cases.push_back(c);
}

// ---- cumsum along axis 1 and axis 0 of a 2-D tile -------------------------------------------

template <class T> void addScan(std::vector<OpCase> &cases, int axis, const std::string &tn) {
  std::string name = "cumsum_axis" + std::to_string(axis) + "_" + tn;
  OpCase c{name, "scan", nullptr, std::nullopt, nullptr};
#ifndef TESSERA_OPTESTS_AOT
  c.trace = [=]() {
    auto kernel = [axis](tl::Ptr<T> a, tl::Ptr<T>, tl::Ptr<T> out, tl::Scalar<int32_t>) {
      tl::Tile offs = tl::expand_dims(tl::arange(0, R), 1) * C + tl::expand_dims(tl::arange(0, C), 0);
      tl::store(out + offs, tl::cumsum(tl::load(a + offs), axis));
    };
    return trace(name, kernel, {.numWarps = 2});
  };
#endif
  c.run = [=](Device &dev, const Kernel &k, std::mt19937 &rng) -> std::string {
    std::vector<T> a(RC), b(1), out(RC, poison<T>());
    for (T &v : a) v = T(std::uniform_int_distribution<int>(-50, 50)(rng));
    if (std::string e = launch(dev, k, a, b, out, 0); !e.empty()) return e;
    for (int i = 0; i < R; ++i)
      for (int j = 0; j < C; ++j) {
        double s = 0;
        for (int t = 0; t <= (axis ? j : i); ++t) s += toDouble(a[axis ? i * C + t : t * C + j]);
        if (!sameBits(out[i * C + j], T(s))) return mismatch("cumsum", i * C + j, out[i * C + j], T(s));
      }
    return "";
  };
  cases.push_back(c);
}

// ---- shapes: trans, broadcast of a column and of a row, reshape ------------------------------

enum class Shape { Trans, BroadcastColumn, BroadcastRow, Reshape };

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
      }
    };
    return trace(name, kernel, {.numWarps = 2});
  };
#endif
  c.run = [=](Device &dev, const Kernel &k, std::mt19937 &rng) -> std::string {
    std::vector<T> a(RC), b(1), out(RC, poison<T>());
    for (T &v : a) v = fromFloat<T>(float(std::uniform_int_distribution<int>(-100, 100)(rng)));
    if (std::string e = launch(dev, k, a, b, out, 0); !e.empty()) return e;
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

template <class O> void addRandom(std::vector<OpCase> &cases, bool uniform) {
  std::string name = uniform ? "random_rand" : "random_randint";
  OpCase c{name, "random", nullptr, std::nullopt, nullptr};
#ifndef TESSERA_OPTESTS_AOT
  c.trace = [=]() {
    auto kernel = [uniform](tl::Ptr<int32_t> a, tl::Ptr<int32_t>, tl::Ptr<O> out, tl::Scalar<int32_t> seed) {
      tl::Tile offs = tl::arange(0, 256), counters = tl::load(a + offs);
      tl::store(out + offs, uniform ? tl::rand(seed, counters) : tl::randint(seed, counters));
    };
    return trace(name, kernel, {.numWarps = 2});
  };
#endif
  c.run = [=](Device &dev, const Kernel &k, std::mt19937 &rng) -> std::string {
    std::vector<int32_t> a(256), b(1);
    for (int32_t &v : a) v = int32_t(rng());
    int32_t seed = int32_t(rng() & 0x7fffffff);
    std::vector<O> out(256, poison<O>());
    if (std::string e = launch(dev, k, a, b, out, seed); !e.empty()) return e;
    for (int i = 0; i < 256; ++i) {
      uint32_t bits = philox(uint64_t(seed), uint32_t(a[i]))[0];
      O want;
      if constexpr (std::is_same_v<O, float>) want = float(bits >> 8) * 0x1p-24f;
      else want = bits;
      if (!sameBits(out[i], want)) return mismatch("random", i, out[i], want);
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
  for (Red r : {Red::Sum, Red::Max, Red::Min}) {
    addReduce<float, float>(cases, r, "f32");
    addReduce<int32_t, int32_t>(cases, r, "i32");
    addReduce<uint32_t, uint32_t>(cases, r, "u32");
  }
  addReduce<f16, float>(cases, Red::Sum, "f16");
  addReduce<bf16, bf16>(cases, Red::Max, "bf16");
  addReduce<int8_t, int32_t>(cases, Red::Sum, "i8");
  for (Red r : {Red::ArgMax, Red::ArgMin}) {
    addReduce<float, int32_t>(cases, r, "f32");
    addReduce<int32_t, int32_t>(cases, r, "i32");
    addReduce<uint32_t, int32_t>(cases, r, "u32");
  }
  for (int axis : {0, 1}) {
    addScan<int32_t>(cases, axis, "i32");
    addScan<float>(cases, axis, "f32");
    addScan<int64_t>(cases, axis, "i64");
  }
  struct { Shape s; const char *n; } shapes[] = {{Shape::Trans, "trans"}, {Shape::BroadcastColumn, "broadcast_column"},
                                                  {Shape::BroadcastRow, "broadcast_row"}, {Shape::Reshape, "reshape"}};
  for (auto [s, n] : shapes) {
    addShape<float>(cases, s, n, "f32");
    addShape<f16>(cases, s, n, "f16");
    addShape<int8_t>(cases, s, n, "i8");
    addShape<int64_t>(cases, s, n, "i64");
  }
  addRandom<uint32_t>(cases, false);
  addRandom<float>(cases, true);
  addAtomic<int32_t>(cases, "add", "i32");
  addAtomic<float>(cases, "add", "f32");
  addAtomic<int64_t>(cases, "add", "i64");
  addAtomic<int32_t>(cases, "max", "i32");
  addAtomic<uint32_t>(cases, "max", "u32");
  addAtomic<int32_t>(cases, "min", "i32");
  addAtomic<uint32_t>(cases, "min", "u32");
  addAtomic<int32_t>(cases, "xchg", "i32");
  addAtomic<float>(cases, "xchg", "f32");
  addAtomic<int32_t>(cases, "cas", "i32");
  addAtomic<int64_t>(cases, "cas", "i64");
}

} // namespace tessera::optests
