// tile-expand-portable-math: replaces f32 math ops by the pinned sequences of
// PortableMathFunctions.cpp, so portable kernels give the same bits on every backend.
#include "Tile/Transforms/Passes.h"

#include "PortableMathFunctions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

#include "llvm/ADT/TypeSwitch.h"

namespace tessera::tile {

#define GEN_PASS_DEF_TILEEXPANDPORTABLEMATH
#include "Tile/Transforms/Passes.h.inc"

namespace {

using namespace mlir;
using namespace portable_math;

/// The ops the pass rewrites: the transcendentals always, divf/sqrt/fma with the option.
bool isExpanded(Operation *op, bool basics, bool nativeDivFma) {
  if (isa<math::ExpOp, math::Exp2Op, math::LogOp, math::Log2Op, math::RsqrtOp, math::SinOp,
          math::CosOp, math::TanhOp, math::ErfOp, math::PowFOp>(op))
    return true;
  if (nativeDivFma && isa<arith::DivFOp, math::FmaOp>(op))
    return false;
  return basics && isa<arith::DivFOp, math::SqrtOp, math::FmaOp>(op);
}

/// The expansion of an op that isExpanded() accepts.
Value expand(MathBuilder &m, Operation *op) {
  OperandRange v = op->getOperands();
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case([&](math::ExpOp) { return expandExp(m, v[0]); })
      .Case([&](math::Exp2Op) { return expandExp2(m, v[0]); })
      .Case([&](math::LogOp) { return expandLog(m, v[0]); })
      .Case([&](math::Log2Op) { return expandLog2(m, v[0]); })
      .Case([&](math::RsqrtOp) { return expandRsqrt(m, v[0]); })
      .Case([&](math::SinOp) { return expandSin(m, v[0]); })
      .Case([&](math::CosOp) { return expandCos(m, v[0]); })
      .Case([&](math::TanhOp) { return expandTanh(m, v[0]); })
      .Case([&](math::ErfOp) { return expandErf(m, v[0]); })
      .Case([&](math::PowFOp) { return expandPow(m, v[0], v[1]); })
      .Case([&](arith::DivFOp) { return expandDiv(m, v[0], v[1]); })
      .Case([&](math::SqrtOp) { return expandSqrt(m, v[0]); })
      .Case([&](math::FmaOp) { return expandFma(m, v[0], v[1], v[2]); });
}

/// f32 or a statically shaped tensor of f32: the shapes the expansions build constants for.
bool isF32Tile(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.hasStaticShape() && tensor.getElementType().isF32();
  return type.isF32();
}

struct TileExpandPortableMath final
    : impl::TileExpandPortableMathBase<TileExpandPortableMath> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> work;
    getOperation().walk([&](Operation *op) {
      if (isExpanded(op, correctlyRoundedBasics, nativeDivFma) && op->getParentOfType<func::FuncOp>())
        work.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : work) {
      Type type = op->getResult(0).getType();
      if (!isF32Tile(type) ||
          !llvm::all_of(op->getOperandTypes(), [&](Type t) { return t == type; })) {
        op->emitOpError() << "portable math supports f32 scalars and statically shaped f32 "
                             "tiles, got "
                          << type << " (compute f16/bf16 math in f32)";
        return signalPassFailure();
      }
      rewriter.setInsertionPoint(op);
      MathBuilder builder(rewriter, op->getLoc(), type);
      rewriter.replaceOp(op, expand(builder, op));
    }
  }
};

} // namespace

namespace generated {
#define GEN_PASS_REGISTRATION
#include "Tile/Transforms/Passes.h.inc"
} // namespace generated

void registerTileTransformsPasses() { generated::registerTileTransformsPasses(); }

} // namespace tessera::tile
