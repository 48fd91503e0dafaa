// Traced loops: tl::for_range becomes an scf.for over i32 whose iter_args are the carried tiles.
#include "TraceState.hpp"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace tessera::tl {
using namespace tessera::tracer;

namespace {

Value boundValue(TraceState &st, const Bound &b, const char *what, SourceLoc loc) {
  if (!b.isTile) {
    if (b.value < INT32_MIN || b.value > INT32_MAX)
      fail(loc, std::string("for_range ") + what + " bound " + std::to_string(b.value) + " does not fit in i32");
    return constant(st, DType::I32, Number(b.value), {}, loc).value;
  }
  TVal v = st.get(b.tile, loc);
  if (!v.isScalar() || v.dtype != DType::I32)
    fail(loc, std::string("for_range ") + what + " bound must be an i32 scalar (or a C++ integer), got " + describe(v) +
                  (v.isScalar() ? "; convert it with tl::cast(x, tessera::DType::I32)" : "; reduce the tile to a scalar first"));
  return v.value;
}

} // namespace

std::vector<Tile> for_range(Bound lo, Bound hi, int64_t step, const std::vector<Tile> &init, const LoopBody &body,
                            SourceLoc loc) {
  auto &st = state(loc);
  if (step <= 0 || step > INT32_MAX)
    fail(loc, "for_range step " + std::to_string(step) + " must be a positive i32 (the loop counts up from lo to hi)");
  if (!body)
    fail(loc, "for_range needs a body");
  Value lb = boundValue(st, lo, "lower", loc), ub = boundValue(st, hi, "upper", loc);
  Value stepValue = constant(st, DType::I32, Number(step), {}, loc).value;
  SmallVector<Value> inits;
  std::vector<TVal> initVals;
  for (const Tile &t : init) {
    initVals.push_back(st.get(t.id(), loc));
    inits.push_back(initVals.back().value);
  }
  auto loop = scf::ForOp::create(st.builder, st.loc(loc), lb, ub, stepValue, inits);
  Block *block = loop.getBody();
  if (!block->empty() && isa<scf::YieldOp>(block->back()))
    block->back().erase();
  std::vector<Tile> next;
  {
    OpBuilder::InsertionGuard guard(st.builder);
    st.builder.setInsertionPointToEnd(block);
    Tile i(st.add(loop.getInductionVar(), DType::I32));
    std::vector<Tile> carried;
    for (size_t k = 0; k < initVals.size(); ++k)
      carried.push_back(Tile(st.add(loop.getRegionIterArgs()[k], initVals[k].dtype)));
    next = body(i, carried);
    if (next.size() != init.size())
      fail(loc, "the for_range body returned " + std::to_string(next.size()) + " tiles for a state of " +
                    std::to_string(init.size()) + "; return the next value of every state tile, in order");
    SmallVector<Value> yielded;
    for (size_t k = 0; k < next.size(); ++k) {
      TVal v = st.get(next[k].id(), loc);
      if (v.value.getType() != initVals[k].value.getType() || v.dtype != initVals[k].dtype)
        fail(loc, "the for_range body returned " + describe(v) + " as state " + std::to_string(k) + ", which started as " +
                      describe(initVals[k]) + "; the state keeps its shape and dtype (use tl::cast or broadcast_to)");
      yielded.push_back(v.value);
    }
    scf::YieldOp::create(st.builder, st.loc(loc), yielded);
  }
  std::vector<Tile> out;
  for (size_t k = 0; k < initVals.size(); ++k)
    out.push_back(Tile(st.add(loop.getResult(unsigned(k)), initVals[k].dtype)));
  return out;
}

Tile for_range(Bound lo, Bound hi, int64_t step, const Tile &init,
               const std::function<Tile(const Tile &i, const Tile &state)> &body, SourceLoc loc) {
  if (!body)
    fail(loc, "for_range needs a body");
  return for_range(
      lo, hi, step, std::vector<Tile>{init},
      [&](const Tile &i, const std::vector<Tile> &s) { return std::vector<Tile>{body(i, s[0])}; }, loc)[0];
}

} // namespace tessera::tl
