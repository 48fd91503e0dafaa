// tile-scalarize-uniform: an elementwise op whose operands are each the same in every element
// of the tile (splats and splat constants), or each the broadcast of one smaller tile of the
// same shape, computed once on the scalars (or the smaller tiles) and splat (broadcast) after;
// see Passes.td for why and why results are unchanged.
#include "Tile/IR/TileDialect.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tessera::tile {

#define GEN_PASS_DEF_TILESCALARIZEUNIFORM
#include "Tile/Transforms/Passes.h.inc"

namespace {

using namespace mlir;

/// The splat value of a splat constant tile, or null.
Attribute splatConstant(Value v) {
  DenseElementsAttr dense;
  if (matchPattern(v, m_Constant(&dense)) && dense.isSplat())
    return dense.getSplatValue<Attribute>();
  return {};
}

/// An op that maps a scalar op over every element, with tile operands and results only.
bool isElementwiseOnTiles(Operation *op) {
  if (!op->hasTrait<OpTrait::Elementwise>() || !op->hasTrait<OpTrait::Scalarizable>() || op->getNumRegions() ||
      op->getNumOperands() == 0 || op->getNumResults() == 0 || !isMemoryEffectFree(op))
    return false;
  auto tile = [](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return tensor && tensor.hasStaticShape();
  };
  return llvm::all_of(op->getOperandTypes(), tile) && llvm::all_of(op->getResultTypes(), tile);
}

/// Does every operand of `op` come as a splat or splat constant (`small` null), or as a
/// broadcast of a tile of `small`'s shape, a splat or a splat constant?
bool uniformOperands(Operation *op, RankedTensorType small) {
  return llvm::all_of(op->getOperands(), [&](Value v) {
    if (splatConstant(v) || v.getDefiningOp<SplatOp>())
      return true;
    if (!small)
      return false;
    auto broadcast = v.getDefiningOp<BroadcastOp>();
    return broadcast && cast<RankedTensorType>(broadcast.getSrc().getType()).getShape() == small.getShape();
  });
}

/// The operand as a scalar (a splat's value, a constant's splat value) or as a tile of
/// `small`'s shape (a broadcast's source, the splat or the constant at that shape).
Value narrowOperand(OpBuilder &b, Location loc, Value v, RankedTensorType small) {
  // (The operand's element type at `small`'s shape.)
  auto shape = [&] { return RankedTensorType::get(small.getShape(), cast<RankedTensorType>(v.getType()).getElementType()); };
  if (Attribute value = splatConstant(v))
    return small ? arith::ConstantOp::create(b, loc, DenseElementsAttr::get(shape(), value))
                 : arith::ConstantOp::create(b, loc, cast<TypedAttr>(value));
  if (auto splat = v.getDefiningOp<SplatOp>())
    return small ? Value(SplatOp::create(b, loc, shape(), splat.getValue())) : splat.getValue();
  return v.getDefiningOp<BroadcastOp>().getSrc();
}

/// Rewrites `op` where its operands allow.
void scalarize(Operation *op) {
  // Broadcasts: the shape of the first one's source. Otherwise splats (null).
  RankedTensorType small;
  for (Value v : op->getOperands())
    if (auto broadcast = v.getDefiningOp<BroadcastOp>()) {
      small = cast<RankedTensorType>(broadcast.getSrc().getType());
      break;
    }
  // All constants: the canonicalizer folds what can be folded.
  if (llvm::all_of(op->getOperands(), [](Value v) { return bool(splatConstant(v)); }) || !uniformOperands(op, small))
    return;
  OpBuilder b(op);
  Location loc = op->getLoc();
  SmallVector<Value> operands;
  for (Value v : op->getOperands())
    operands.push_back(narrowOperand(b, loc, v, small));
  SmallVector<Type> types;
  for (Type t : op->getResultTypes()) {
    Type elem = cast<RankedTensorType>(t).getElementType();
    types.push_back(small ? Type(RankedTensorType::get(small.getShape(), elem)) : elem);
  }
  OperationState state(loc, op->getName(), operands, types, op->getAttrs());
  Operation *narrowOp = b.create(state);
  for (auto [old, now] : llvm::zip(op->getResults(), narrowOp->getResults())) {
    Value wide = small ? Value(BroadcastOp::create(b, loc, old.getType(), now))
                       : Value(SplatOp::create(b, loc, old.getType(), now));
    old.replaceAllUsesWith(wide);
  }
  op->erase();
}

struct ScalarizeUniform : impl::TileScalarizeUniformBase<ScalarizeUniform> {
  void runOnOperation() override {
    getOperation().walk([](func::FuncOp f) {
      // In order, so that a chain of such ops narrows from its first to its last.
      SmallVector<Operation *> ops;
      f.walk([&](Operation *op) {
        if (isElementwiseOnTiles(op))
          ops.push_back(op);
      });
      for (Operation *op : ops)
        scalarize(op);
    });
  }
};

} // namespace

} // namespace tessera::tile
