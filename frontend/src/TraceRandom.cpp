// Counter-based random numbers (Philox 4x32-10) built from integer tile ops, so every
// backend and the CPU produce the same bits for the same (seed, offset).
#include "TraceState.hpp"

#include <numbers>

using namespace mlir;

namespace tessera::tl {
using namespace tessera::tracer;

namespace {

constexpr int64_t kPhiloxM0 = 0xD2511F53, kPhiloxM1 = 0xCD9E8D57;
constexpr int64_t kPhiloxW0 = 0x9E3779B9, kPhiloxW1 = 0xBB67AE85;

/// The four 32-bit outputs of Philox4x32-10 for counter (offsets, 0, 0, 0) and key (seed).
std::array<Value, 4> philox(TraceState &st, TVal seed, TVal offsets, SourceLoc loc) {
  Location l = st.loc(loc);
  OpBuilder &b = st.builder;
  std::vector<int64_t> shape = offsets.shape();
  auto u32 = [&](int64_t v) { return constant(st, DType::U32, Number(v), shape, loc).value; };
  if (!isInteger(seed.dtype) || !seed.isScalar())
    fail(loc, "random numbers need an integer scalar seed (a tl::Scalar argument or a constant), got " + describe(seed));
  if (offsets.dtype != DType::I32 || offsets.isScalar())
    fail(loc, "random numbers need an i32 tile of offsets (e.g. pid * BLOCK + tl::arange(0, BLOCK)), got " + describe(offsets));
  TVal s64 = convert(st, seed, DType::I64, loc);
  Value lo = arith::TruncIOp::create(b, l, b.getI32Type(), s64.value);
  Value hi = arith::TruncIOp::create(b, l, b.getI32Type(),
                                     arith::ShRUIOp::create(b, l, s64.value, constant(st, DType::I64, Number(32), {}, loc).value));
  Value k0 = broadcastTo(st, {lo, DType::U32}, shape, loc, "random").value;
  Value k1 = broadcastTo(st, {hi, DType::U32}, shape, loc, "random").value;
  Value c0 = offsets.value, c1 = u32(0), c2 = u32(0), c3 = u32(0);
  for (int round = 0; round < 10; ++round) {
    auto p0 = arith::MulUIExtendedOp::create(b, l, u32(kPhiloxM0), c0);
    auto p1 = arith::MulUIExtendedOp::create(b, l, u32(kPhiloxM1), c2);
    Value n0 = arith::XOrIOp::create(b, l, arith::XOrIOp::create(b, l, p1.getHigh(), c1), k0);
    Value n2 = arith::XOrIOp::create(b, l, arith::XOrIOp::create(b, l, p0.getHigh(), c3), k1);
    c0 = n0;
    c1 = p1.getLow();
    c2 = n2;
    c3 = p0.getLow();
    k0 = arith::AddIOp::create(b, l, k0, u32(kPhiloxW0));
    k1 = arith::AddIOp::create(b, l, k1, u32(kPhiloxW1));
  }
  return {c0, c1, c2, c3};
}

/// A u32 tile of random bits to a float in [0, 1): the top 24 bits times 2^-24 (exact).
Value uniform(TraceState &st, Value bits, const std::vector<int64_t> &shape, SourceLoc loc) {
  Location l = st.loc(loc);
  Value top = arith::ShRUIOp::create(st.builder, l, bits, constant(st, DType::U32, Number(8), shape, loc).value);
  Value f = arith::UIToFPOp::create(st.builder, l, tileType(st.ctx(), shape, DType::F32), top);
  return arith::MulFOp::create(st.builder, l, f, constant(st, DType::F32, Number(0x1p-24), shape, loc).value);
}

TVal seedOf(TraceState &st, Number n, SourceLoc loc) {
  if (n.isFloat)
    fail(loc, "the random seed must be an integer; pass an integer constant (42, not 42.0) or an integer tl::Scalar "
              "argument");
  return constant(st, DType::I64, n, {}, loc);
}

} // namespace

Tile randint(const Tile &seed, const Tile &offsets, SourceLoc loc) {
  auto &st = state(loc);
  auto c = philox(st, st.get(seed.id(), loc), st.get(offsets.id(), loc), loc);
  return Tile(st.add(c[0], DType::U32));
}

Tile rand(const Tile &seed, const Tile &offsets, SourceLoc loc) {
  auto &st = state(loc);
  TVal o = st.get(offsets.id(), loc);
  auto c = philox(st, st.get(seed.id(), loc), o, loc);
  return Tile(st.add(uniform(st, c[0], o.shape(), loc), DType::F32));
}

Tile randn(const Tile &seed, const Tile &offsets, SourceLoc loc) {
  auto &st = state(loc);
  TVal o = st.get(offsets.id(), loc);
  std::vector<int64_t> shape = o.shape();
  auto c = philox(st, st.get(seed.id(), loc), o, loc);
  Location l = st.loc(loc);
  OpBuilder &b = st.builder;
  // Box-Muller: u1 in (0, 1] keeps the logarithm finite.
  Value u1 = arith::AddFOp::create(b, l, uniform(st, c[0], shape, loc), constant(st, DType::F32, Number(0x1p-24), shape, loc).value);
  Value u2 = uniform(st, c[1], shape, loc);
  Value r = math::SqrtOp::create(b, l, arith::MulFOp::create(b, l, constant(st, DType::F32, Number(-2.0), shape, loc).value,
                                                              math::LogOp::create(b, l, u1)));
  Value theta = arith::MulFOp::create(b, l, constant(st, DType::F32, Number(2 * std::numbers::pi), shape, loc).value, u2);
  return Tile(st.add(arith::MulFOp::create(b, l, r, math::CosOp::create(b, l, theta)), DType::F32));
}

Tile randint(Number seed, const Tile &offsets, SourceLoc loc) {
  auto &st = state(loc);
  return randint(Tile(st.add(seedOf(st, seed, loc))), offsets, loc);
}
Tile rand(Number seed, const Tile &offsets, SourceLoc loc) {
  auto &st = state(loc);
  return rand(Tile(st.add(seedOf(st, seed, loc))), offsets, loc);
}
Tile randn(Number seed, const Tile &offsets, SourceLoc loc) {
  auto &st = state(loc);
  return randn(Tile(st.add(seedOf(st, seed, loc))), offsets, loc);
}

} // namespace tessera::tl
