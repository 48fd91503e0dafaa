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
using portable_math::MathBuilder;

/// The expansion of `op`, or a null function when the pass leaves `op` alone.
using Expansion = Value (*)(MathBuilder &, ValueRange);

Expansion expansionFor(Operation *op, bool basics) {
  return llvm::TypeSwitch<Operation *, Expansion>(op)
      .Case([](math::ExpOp) { return +[](MathBuilder &m, ValueRange v) { return portable_math::expandExp(m, v[0]); }; })
      .Case([](math::Exp2Op) { return +[](MathBuilder &m, ValueRange v) { return portable_math::expandExp2(m, v[0]); }; })
      .Case([](math::LogOp) { return +[](MathBuilder &m, ValueRange v) { return portable_math::expandLog(m, v[0]); }; })
      .Case([](math::Log2Op) { return +[](MathBuilder &m, ValueRange v) { return portable_math::expandLog2(m, v[0]); }; })
      .Case([](math::RsqrtOp) { return +[](MathBuilder &m, ValueRange v) { return portable_math::expandRsqrt(m, v[0]); }; })
      .Case([](math::SinOp) { return +[](MathBuilder &m, ValueRange v) { return portable_math::expandSin(m, v[0]); }; })
      .Case([](math::CosOp) { return +[](MathBuilder &m, ValueRange v) { return portable_math::expandCos(m, v[0]); }; })
      .Case([](math::TanhOp) { return +[](MathBuilder &m, ValueRange v) { return portable_math::expandTanh(m, v[0]); }; })
      .Case([](math::ErfOp) { return +[](MathBuilder &m, ValueRange v) { return portable_math::expandErf(m, v[0]); }; })
      .Case([](math::PowFOp) { return +[](MathBuilder &m, ValueRange v) { return portable_math::expandPow(m, v[0], v[1]); }; })
      .Case([basics](arith::DivFOp) -> Expansion {
        if (!basics)
          return nullptr;
        return +[](MathBuilder &m, ValueRange v) { return portable_math::expandDiv(m, v[0], v[1]); };
      })
      .Case([basics](math::SqrtOp) -> Expansion {
        if (!basics)
          return nullptr;
        return +[](MathBuilder &m, ValueRange v) { return portable_math::expandSqrt(m, v[0]); };
      })
      .Case([basics](math::FmaOp) -> Expansion {
        if (!basics)
          return nullptr;
        return +[](MathBuilder &m, ValueRange v) { return portable_math::expandFma(m, v[0], v[1], v[2]); };
      })
      .Default([](Operation *) { return nullptr; });
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
    SmallVector<std::pair<Operation *, Expansion>> work;
    getOperation().walk([&](func::FuncOp func) {
      func.walk([&](Operation *op) {
        if (Expansion expansion = expansionFor(op, correctlyRoundedBasics))
          work.emplace_back(op, expansion);
      });
    });
    IRRewriter rewriter(&getContext());
    for (auto [op, expansion] : work) {
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
      rewriter.replaceOp(op, expansion(builder, op->getOperands()));
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
