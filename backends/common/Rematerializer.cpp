// Rematerializer: coordinate-only tiles recomputed per thread (Rematerializer.h).
#include "Rematerializer.h"

#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace tessera::backend {

bool Rematerializer::computable(Value v, int &budget, const std::function<bool(Value)> &leafOk) {
  Operation *op = v.getDefiningOp();
  if (!isa<RankedTensorType>(v.getType()) || !op || --budget < 0)
    return false;
  if (isa<tile::ArangeOp>(op))
    return true;
  if (auto splat = dyn_cast<tile::SplatOp>(op))
    return !leafOk || leafOk(splat.getValue());
  if (auto c = dyn_cast<arith::ConstantOp>(op))
    return isa<SplatElementsAttr>(c.getValue());
  if (isa<tile::BroadcastOp, tile::ExpandDimsOp, tile::TransOp>(op))
    return computable(op->getOperand(0), budget, leafOk);
  return isa<arith::ArithDialect>(op->getDialect()) && op->hasTrait<OpTrait::Elementwise>() && op->getNumResults() == 1 &&
         llvm::all_of(op->getOperands(), [&](Value o) { return computable(o, budget, leafOk); });
}

SmallVector<Value> Rematerializer::elements(Value v, const BlockedLayout &l) {
  SmallVector<Value> out;
  for (int64_t e = 0; e < l.perThread(); ++e) {
    SmallVector<Value, 4> c;
    for (int64_t k = 0; k < l.rank(); ++k)
      c.push_back(coordinate(l, k, l.staticCoord(e, k)));
    out.push_back(at(v, c));
  }
  return out;
}

/// Coordinate threadOffset(k) + s of layout l (one Value per distinct coordinate, so that
/// elements sharing a row or column share its computation; one threadOffset per dimension).
Value Rematerializer::coordinate(const BlockedLayout &l, int64_t k, int64_t s) {
  Value &c = coords[{k, s}];
  if (!c) {
    Value &base = coords[{k, 0}];
    if (!base)
      base = lw.threadOffset(r, loc, l, k);
    c = s ? Value(arith::AddIOp::create(r, loc, base, lw.i32(r, loc, s))) : base;
  }
  return c;
}

/// The element of `v` at `coords`.
Value Rematerializer::at(Value v, ArrayRef<Value> coords) {
  std::vector<const void *> key{v.getAsOpaquePointer()};
  for (Value c : coords)
    key.push_back(c.getAsOpaquePointer());
  if (auto it = memo.find(key); it != memo.end())
    return it->second;
  Operation *op = v.getDefiningOp();
  Value result;
  if (auto arange = dyn_cast<tile::ArangeOp>(op))
    result = arange.getStart() ? Value(arith::AddIOp::create(r, loc, coords[0], lw.i32(r, loc, arange.getStart())))
                               : coords[0];
  else if (auto splat = dyn_cast<tile::SplatOp>(op))
    result = scalar ? scalar(splat.getValue()) : r.getRemappedValue(splat.getValue());
  else if (auto constant = dyn_cast<arith::ConstantOp>(op))
    result = arith::ConstantOp::create(r, loc, cast<SplatElementsAttr>(constant.getValue()).getSplatValue<TypedAttr>());
  else if (auto broadcast = dyn_cast<tile::BroadcastOp>(op)) {
    ArrayRef<int64_t> srcShape = cast<RankedTensorType>(broadcast.getSrc().getType()).getShape();
    SmallVector<Value, 4> src(coords);
    for (size_t k = 0; k < srcShape.size(); ++k)
      if (srcShape[k] == 1)
        src[k] = zero();
    result = at(broadcast.getSrc(), src);
  } else if (auto expand = dyn_cast<tile::ExpandDimsOp>(op)) {
    SmallVector<Value, 4> src(coords);
    src.erase(src.begin() + int64_t(expand.getAxis()));
    result = at(expand.getSrc(), src);
  } else if (auto trans = dyn_cast<tile::TransOp>(op)) {
    SmallVector<Value, 4> src(coords.size());
    for (auto [i, k] : llvm::enumerate(trans.getOrder()))
      src[k] = coords[i]; // result dimension i walks source dimension order[i]
    result = at(trans.getSrc(), src);
  } else { // element-wise arith
    OperationState state(loc, op->getName());
    for (Value o : op->getOperands())
      state.addOperands(at(o, coords));
    state.addTypes(getElementTypeOrSelf(op->getResult(0).getType()));
    state.addAttributes(op->getAttrs());
    result = r.create(state)->getResult(0);
  }
  return memo[key] = result;
}

Value Rematerializer::zero() {
  if (!zeroValue)
    zeroValue = lw.i32(r, loc, 0);
  return zeroValue;
}

} // namespace tessera::backend
