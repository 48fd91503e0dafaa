// Lowering of element-wise arith and math ops on tiles: the same op on each element a thread holds.
#include "TileToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace tessera::backend {
namespace {

/// arith.<op> %a, %b : tensor<N x T>  =>  arith.<op> %a_j, %b_j : T  for each element j.
struct ElementwiseLowering final : ConversionPattern {
  ElementwiseLowering(TypeConverter &tc, MLIRContext *ctx)
      : ConversionPattern(tc, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op, ArrayRef<ValueRange> operands,
                                ConversionPatternRewriter &r) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) || isa<arith::ConstantOp>(op) ||
        !op->hasTrait<OpTrait::Elementwise>() || !touchesTiles(op))
      return failure();
    size_t n = 0;
    for (ValueRange v : operands)
      n = std::max(n, v.size());
    SmallVector<SmallVector<Value>> results(op->getNumResults());
    for (size_t j = 0; j < n; ++j) {
      OperationState state(op->getLoc(), op->getName());
      for (ValueRange v : operands)
        state.addOperands(v.size() == 1 ? v.front() : v[j]);
      for (Type t : op->getResultTypes())
        state.addTypes(getElementTypeOrSelf(t));
      state.addAttributes(op->getAttrs());
      Operation *clone = r.create(state);
      for (unsigned i = 0; i < clone->getNumResults(); ++i)
        results[i].push_back(clone->getResult(i));
    }
    SmallVector<ValueRange> replacements(results.begin(), results.end());
    r.replaceOpWithMultiple(op, replacements);
    return success();
  }
};

} // namespace

void populateElementwiseOpToGPUPatterns(const TileLowering &, TypeConverter &converter,
                                        RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering>(converter, patterns.getContext());
}

} // namespace tessera::backend
