// Lowering of the ops that change a tile's shape: broadcast, expand_dims, reshape, trans.
// Each is a redistribution (TileLowering::remap) with a linear map from result coordinates
// to the source's row-major index. Where that would go through shared memory and the source is
// computed from coordinates alone (the offsets and masks a kernel builds from arange), each
// thread computes its elements of the result itself (Rematerializer).
#include "Rematerializer.h"
#include "TileToGPU.h"

#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace tessera::backend {
namespace {

/// Coefficients c with  source index = Σ_k c[k] * result coordinate k.
using Coefficients = SmallVector<int64_t, 4>;

template <class Op>
struct ShapeLowering : OpConversionPattern<Op> {
  ShapeLowering(const TileLowering &l, TypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern<Op>(tc, ctx), lowering(l) {}
  virtual Coefficients coefficients(Op op, ArrayRef<int64_t> srcShape, ArrayRef<int64_t> dstShape) const = 0;

  LogicalResult matchAndRewrite(Op op, typename OpConversionPattern<Op>::OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &r) const override {
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    auto dstType = cast<RankedTensorType>(op.getType());
    Coefficients coef = coefficients(op, srcType.getShape(), dstType.getShape());
    const BlockedLayout srcLayout = lowering.layoutOf(srcType), dstLayout = lowering.layoutOf(dstType);
    int budget = Rematerializer::kBudget;
    SmallVector<Value> out;
    if (std::optional<SmallVector<Value>> local = lowering.remapInRegisters(adaptor.getSrc(), srcLayout, dstLayout, coef))
      out = std::move(*local);
    else if (Rematerializer::computable(op.getResult(), budget))
      out = Rematerializer(r, op.getLoc(), lowering).elements(op.getResult(), dstLayout);
    else
      out = lowering.remap(r, op.getLoc(), adaptor.getSrc(), srcLayout, dstLayout, coef);
    r.replaceOpWithMultiple(op, {ValueRange(out)});
    return success();
  }
  const TileLowering &lowering;
};

struct BroadcastLowering final : ShapeLowering<tile::BroadcastOp> {
  using ShapeLowering::ShapeLowering;
  Coefficients coefficients(tile::BroadcastOp, ArrayRef<int64_t> src, ArrayRef<int64_t>) const override {
    Coefficients c = stridesOf(src);
    for (size_t k = 0; k < src.size(); ++k)
      if (src[k] == 1)
        c[k] = 0; // every result index along a broadcast dimension reads source index 0
    return c;
  }
};

struct ExpandDimsLowering final : ShapeLowering<tile::ExpandDimsOp> {
  using ShapeLowering::ShapeLowering;
  Coefficients coefficients(tile::ExpandDimsOp op, ArrayRef<int64_t> src, ArrayRef<int64_t>) const override {
    Coefficients c = stridesOf(src);
    c.insert(c.begin() + int32_t(op.getAxis()), 0); // the new dimension has size 1
    return c;
  }
};

struct ReshapeLowering final : ShapeLowering<tile::ReshapeOp> {
  using ShapeLowering::ShapeLowering;
  Coefficients coefficients(tile::ReshapeOp, ArrayRef<int64_t>, ArrayRef<int64_t> dst) const override {
    return stridesOf(dst); // same row-major index
  }
};

struct TransLowering final : ShapeLowering<tile::TransOp> {
  using ShapeLowering::ShapeLowering;
  Coefficients coefficients(tile::TransOp op, ArrayRef<int64_t> src, ArrayRef<int64_t>) const override {
    Coefficients srcStrides = stridesOf(src), c;
    for (int32_t k : op.getOrder())
      c.push_back(srcStrides[k]); // result dimension i walks source dimension order[i]
    return c;
  }
};

} // namespace

void populateShapeOpToGPUPatterns(const TileLowering &lowering, TypeConverter &converter,
                                  RewritePatternSet &patterns) {
  patterns.add<BroadcastLowering, ExpandDimsLowering, ReshapeLowering, TransLowering>(lowering, converter,
                                                                                      patterns.getContext());
}

} // namespace tessera::backend
