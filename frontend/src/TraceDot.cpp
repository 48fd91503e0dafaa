// Traced matrix products: tl::dot becomes tile.dot, with the operand checks at the user's line.
#include "TraceState.hpp"

using namespace mlir;

namespace tessera::tl {
using namespace tessera::tracer;

namespace {

/// The accumulator dtype of a dot over `in`, or nothing when `in` has no dot.
std::optional<DType> accumulatorOf(DType in) {
  switch (in) {
  case DType::F32:
  case DType::F16:
  case DType::BF16: return DType::F32;
  case DType::I8: return DType::I32;
  default: return std::nullopt;
  }
}

} // namespace

Tile dot(const Tile &a, const Tile &b, const Tile &acc, SourceLoc loc) {
  auto &st = state(loc);
  TVal va = st.get(a.id(), loc), vb = st.get(b.id(), loc), vc = st.get(acc.id(), loc);
  if (va.rank() != 2 || vb.rank() != 2)
    fail(loc, "dot multiplies 2-D tiles, got " + describe(va) + " and " + describe(vb) +
                  "; reshape or expand_dims a vector into a 1 x K or K x 1 tile padded to 16");
  if (va.dtype != vb.dtype)
    fail(loc, "dot of " + describe(va) + " and " + describe(vb) + ": both operands need the same dtype (use tl::cast)");
  std::optional<DType> accType = accumulatorOf(va.dtype);
  if (!accType)
    fail(loc, std::string("dot has no ") + dtypeName(va.dtype) + " form; operands are f32, f16, bf16 or i8 (u8 and wider "
              "integers: cast to i8 or a float type)");
  const int64_t M = va.shape()[0], K = va.shape()[1], N = vb.shape()[1];
  if (vb.shape()[0] != K)
    fail(loc, "dot of " + describe(va) + " and " + describe(vb) + ": the inner dimensions differ (" + std::to_string(K) +
                  " and " + std::to_string(vb.shape()[0]) + "); a is M x K and b is K x N");
  for (int64_t d : {M, K, N})
    if (d < 16)
      fail(loc, "dot of " + describe(va) + " and " + describe(vb) + ": every dimension must be at least 16 (got " +
                    std::to_string(d) + "); pad the tile with masked loads (other = 0)");
  if (vc.dtype != *accType || vc.shape() != std::vector<int64_t>{M, N})
    fail(loc, "dot accumulator " + describe(vc) + " does not fit " + describe(va) + " x " + describe(vb) + ": it must be a tile of " +
                  std::to_string(M) + "x" + std::to_string(N) + " x " + dtypeName(*accType));
  Value r = tile::DotOp::create(st.builder, st.loc(loc), vc.value.getType(), va.value, vb.value, vc.value);
  return Tile(st.add(r, *accType));
}

Tile dot(const Tile &a, const Tile &b, SourceLoc loc) {
  auto &st = state(loc);
  TVal va = st.get(a.id(), loc), vb = st.get(b.id(), loc);
  std::optional<DType> accType = accumulatorOf(va.dtype);
  if (va.rank() != 2 || vb.rank() != 2 || !accType)
    return dot(a, b, a, loc); // the full checks, with their messages
  return dot(a, b, zeros({va.shape()[0], vb.shape()[1]}, *accType, loc), loc);
}

} // namespace tessera::tl
