// Op cases on comparisons and masks: the six comparisons on every dtype, mask algebra,
// where, casts to and from bool, and loads and stores under masks (with `other`).
#include "OpCases.hpp"

namespace tessera::optests {
namespace {

enum class Cmp { Lt, Le, Gt, Ge, Eq, Ne };
constexpr Cmp kComparisons[] = {Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge, Cmp::Eq, Cmp::Ne};
const char *cmpName(Cmp c) {
  static const char *n[] = {"lt", "le", "gt", "ge", "eq", "ne"};
  return n[int(c)];
}

#ifndef TESSERA_OPTESTS_AOT
tl::Tile compareTiles(Cmp c, const tl::Tile &a, const tl::Tile &b) {
  switch (c) {
  case Cmp::Lt: return a < b;
  case Cmp::Le: return a <= b;
  case Cmp::Gt: return a > b;
  case Cmp::Ge: return a >= b;
  case Cmp::Eq: return a == b;
  default: return a != b;
  }
}
#endif

/// C++ semantics, which are the language's: ordered for floats (false with a NaN) except !=.
template <class T> bool compareHost(Cmp c, T x, T y) {
  if constexpr (isFloatT<T>) {
    double a = toDouble(x), b = toDouble(y);
    return c == Cmp::Lt ? a < b : c == Cmp::Le ? a <= b : c == Cmp::Gt ? a > b : c == Cmp::Ge ? a >= b : c == Cmp::Eq ? a == b : a != b;
  } else {
    return c == Cmp::Lt ? x < y : c == Cmp::Le ? x <= y : c == Cmp::Gt ? x > y : c == Cmp::Ge ? x >= y : c == Cmp::Eq ? x == y : x != y;
  }
}

/// Equal pairs one time in four, NaNs one in eight (floats), full-range values otherwise (so
/// unsigned compares see the top bit set).
template <class T> void comparable(std::mt19937 &rng, T &a, T &b) {
  a = randomValue<T>(rng, rng() % 2);
  b = rng() % 4 == 0 ? a : randomValue<T>(rng, rng() % 2);
  if constexpr (isFloatT<T>)
    if (rng() % 8 == 0) (rng() % 2 ? a : b) = fromFloat<T>(NAN);
}

template <class T> void addComparisons(std::vector<OpCase> &cases, const std::string &tn) {
  for (Cmp cmp : kComparisons)
    for (Layout layout : {Layout::Tail, Layout::TwoD}) {
      std::string name = std::string("cmp_") + cmpName(cmp) + "_" + tn + suffix(layout);
      cases.push_back(elementwise<T, T, int32_t>(
          name, "compare", layout,
          TRACE(return traceBinary<T, T, int32_t>(name, layout, [cmp](tl::Tile a, tl::Tile b) {
            return tl::cast(compareTiles(cmp, a, b), DType::I32);
          });),
          comparable<T>, [cmp](T a, T b, int32_t got, std::string &why) { return exactly(got, int32_t(compareHost(cmp, a, b)), why); }));
    }
}

/// where on every dtype (the operands' dtype is the result's), with a tile and a number branch.
template <class T> void addWhere(std::vector<OpCase> &cases, const std::string &tn) {
  std::string name = "where_" + tn;
  cases.push_back(elementwise<T, T, T>(
      name, "compare", Layout::Tail,
      TRACE(return traceBinary<T, T, T>(name, Layout::Tail, [](tl::Tile a, tl::Tile b) {
        return tl::where(a < b, tl::where(a == b, 1, a), b); // nested: a number branch too
      });),
      comparable<T>, [](T a, T b, T got, std::string &why) {
        return exactly(got, compareHost(Cmp::Lt, a, b) ? a : b, why); // a < b excludes a == b
      }));
}

/// cast(mask, T) (0 or 1) and cast(x, Bool) (x != 0; NaN is true), both through i32 storage
/// where the mask must be observed.
template <class T> void addBoolCasts(std::vector<OpCase> &cases, const std::string &tn) {
  std::string from = "cast_bool_to_" + tn, to = "cast_" + tn + "_to_bool";
  cases.push_back(elementwise<T, T, T>(
      from, "cast", Layout::Tail,
      TRACE(return traceBinary<T, T, T>(from, Layout::Tail, [](tl::Tile a, tl::Tile b) { return tl::cast(a < b, DTypeOf<T>::value); });),
      comparable<T>, [](T a, T b, T got, std::string &why) { return exactly(got, fromFloat<T>(compareHost(Cmp::Lt, a, b) ? 1.f : 0.f), why); }));
  cases.push_back(elementwise<T, T, int32_t>(
      to, "cast", Layout::Tail,
      TRACE(return traceBinary<T, T, int32_t>(to, Layout::Tail, [](tl::Tile a, tl::Tile) {
        return tl::cast(tl::cast(a, DType::Bool), DType::I32);
      });),
      [](std::mt19937 &rng, T &a, T &b) {
        comparable<T>(rng, a, b);
        if (rng() % 3 == 0) a = fromFloat<T>(rng() % 2 ? 0.f : -0.f);
      },
      [](T a, T, int32_t got, std::string &why) { return exactly(got, int32_t(!(toDouble(a) == 0)), why); }));
}

/// Mask algebra on masks made from two i32 tiles: each bit of the output is one expression.
void addMaskAlgebra(std::vector<OpCase> &cases) {
  for (Layout layout : {Layout::Tail, Layout::One, Layout::TwoD}) {
    std::string name = "mask_algebra" + suffix(layout);
    cases.push_back(elementwise<int32_t, int32_t, int32_t>(
        name, "compare", layout,
        TRACE(return traceBinary<int32_t, int32_t, int32_t>(name, layout, [](tl::Tile a, tl::Tile b) {
          tl::Tile p = a > 0, q = b > 0;
          tl::Tile bits[] = {p & q, p | q, p ^ q, !p, p == q, p != q, !(p & !q) | (a == b)};
          tl::Tile out = tl::cast(bits[0], DType::I32);
          for (int i = 1; i < 7; ++i)
            out = out | (tl::cast(bits[i], DType::I32) << i);
          return out;
        });),
        [](std::mt19937 &rng, int32_t &a, int32_t &b) {
          a = int32_t(rng() % 5) - 2;
          b = rng() % 4 ? int32_t(rng() % 5) - 2 : a;
        },
        [](int32_t a, int32_t b, int32_t got, std::string &why) {
          bool p = a > 0, q = b > 0;
          bool bits[] = {p && q, p || q, p != q, !p, p == q, p != q, !(p && !q) || a == b};
          int32_t want = 0;
          for (int i = 0; i < 7; ++i) want |= int32_t(bits[i]) << i;
          return exactly(got, want, why);
        }));
  }
}

/// A case whose expected output covers the whole block: `expect` gives the value of element
/// i, or nothing where the poison must survive.
template <class A, class B, class O>
OpCase blockCase(std::string name, std::function<Result<TracedKernel>()> trace, std::function<void(std::mt19937 &, A &, B &)> gen,
                 std::function<std::optional<O>(int, A, B)> expect) {
  OpCase c{name, "memory", trace, std::nullopt, nullptr};
  c.run = [=](Device &dev, const Kernel &k, std::mt19937 &rng) -> std::string {
    std::vector<A> a(BLOCK);
    std::vector<B> b(BLOCK);
    for (int i = 0; i < BLOCK; ++i) gen(rng, a[i], b[i]);
    std::vector<O> out(BLOCK, poison<O>());
    std::string err;
    auto ba = upload(dev, a, err), bb = upload(dev, b, err), bo = upload(dev, out, err);
    if (!err.empty()) return err;
    if (Status s = k.launch({1}, {*ba, *bb, *bo, int32_t(N)}); !s) return s.toString();
    out = download<O>(*bo, err);
    if (!err.empty()) return err;
    for (int i = 0; i < BLOCK; ++i) {
      std::optional<O> want = expect(i, a[i], b[i]);
      O w = want ? *want : poison<O>();
      if (!sameBits(out[i], w))
        return "element " + std::to_string(i) + ": a = " + show(a[i]) + ", b = " + show(b[i]) + ": got " + show(out[i]) +
               ", expected " + (want ? show(w) : "the poison (no store)");
    }
    return "";
  };
  return c;
}

/// load with `other` (a number and a tile), and a store under a data-dependent mask.
template <class T> void addMemory(std::vector<OpCase> &cases, const std::string &tn) {
  auto gen = [](std::mt19937 &rng, T &a, T &b) { a = randomValue<T>(rng), b = randomValue<T>(rng); };
  std::string n1 = "load_other_number_" + tn, n2 = "load_other_tile_" + tn, n3 = "store_masked_" + tn;
#ifndef TESSERA_OPTESTS_AOT
  auto kernel = [](std::string name, int which) {
    return [name, which]() {
      auto k = [which](tl::Ptr<T> a, tl::Ptr<T> b, tl::Ptr<T> out, tl::Scalar<int32_t> n) {
        tl::Tile offs = tl::arange(0, BLOCK), mask = offs < n;
        if (which == 0) tl::store(out + offs, tl::load(a + offs, mask, 7));
        if (which == 1) tl::store(out + offs, tl::load(a + offs, mask, tl::load(b + offs)));
        if (which == 2) {
          tl::Tile x = tl::load(a + offs, mask), y = tl::load(b + offs, mask);
          tl::store(out + offs, x, mask & (x > y));
        }
      };
      return trace(name, k, {.numWarps = 2});
    };
  };
  cases.push_back(blockCase<T, T, T>(n1, kernel(n1, 0), gen, [](int i, T a, T) -> std::optional<T> { return i < N ? a : fromFloat<T>(7); }));
  cases.push_back(blockCase<T, T, T>(n2, kernel(n2, 1), gen, [](int i, T a, T b) -> std::optional<T> { return i < N ? a : b; }));
  cases.push_back(blockCase<T, T, T>(n3, kernel(n3, 2), gen, [](int i, T a, T b) -> std::optional<T> {
    if (i < N && compareHost(Cmp::Gt, a, b)) return a;
    return std::nullopt;
  }));
#else
  cases.push_back(blockCase<T, T, T>(n1, nullptr, gen, [](int i, T a, T) -> std::optional<T> { return i < N ? a : fromFloat<T>(7); }));
  cases.push_back(blockCase<T, T, T>(n2, nullptr, gen, [](int i, T a, T b) -> std::optional<T> { return i < N ? a : b; }));
  cases.push_back(blockCase<T, T, T>(n3, nullptr, gen, [](int i, T a, T b) -> std::optional<T> {
    if (i < N && compareHost(Cmp::Gt, a, b)) return a;
    return std::nullopt;
  }));
#endif
}

template <class T> void addAll(std::vector<OpCase> &cases, const std::string &tn) {
  addComparisons<T>(cases, tn);
  addWhere<T>(cases, tn);
  addBoolCasts<T>(cases, tn);
  addMemory<T>(cases, tn);
}

} // namespace

void addLogicCases(std::vector<OpCase> &cases) {
  addAll<float>(cases, "f32");
  addAll<f16>(cases, "f16");
  addAll<bf16>(cases, "bf16");
  addAll<int8_t>(cases, "i8");
  addAll<int16_t>(cases, "i16");
  addAll<int32_t>(cases, "i32");
  addAll<int64_t>(cases, "i64");
  addAll<uint8_t>(cases, "u8");
  addAll<uint32_t>(cases, "u32");
  addMaskAlgebra(cases);
}

} // namespace tessera::optests
