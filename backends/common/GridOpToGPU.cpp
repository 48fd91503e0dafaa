// Lowering of the tile ops that make values from the launch grid and constants:
// program_id, num_programs, arange, splat and splat constants.
#include "TileToGPU.h"

#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;

namespace tessera::backend {
namespace {

Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(v)));
}

template <class SourceOp, class GpuOp>
struct GridQueryLowering final : OpConversionPattern<SourceOp> {
  using OpConversionPattern<SourceOp>::OpConversionPattern;
  LogicalResult matchAndRewrite(SourceOp op, typename SourceOp::Adaptor,
                                ConversionPatternRewriter &r) const override {
    auto dim = static_cast<gpu::Dimension>(op.getAxis());
    Value v = GpuOp::create(r, op.getLoc(), dim);
    r.replaceOpWithNewOp<arith::IndexCastOp>(op, r.getI32Type(), v);
    return success();
  }
};

struct ArangeLowering final : OpConversionPattern<tile::ArangeOp> {
  ArangeLowering(const TileLowering &l, TypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern(tc, ctx), lowering(l) {}
  LogicalResult matchAndRewrite(tile::ArangeOp op, OneToNOpAdaptor,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    BlockedLayout layout = lowering.layoutOf(cast<RankedTensorType>(op.getType()));
    // Element e of this thread is start + its coordinate.
    Value first = lowering.threadOffset(r, loc, layout, 0);
    first = arith::AddIOp::create(r, loc, first, i32Const(r, loc, int32_t(op.getStart())));
    SmallVector<Value> elems;
    for (int64_t e = 0; e < layout.perThread(); ++e) {
      int64_t off = layout.staticCoord(e, 0);
      elems.push_back(off == 0 ? first : Value(arith::AddIOp::create(r, loc, first, i32Const(r, loc, off))));
    }
    r.replaceOpWithMultiple(op, {ValueRange(elems)});
    return success();
  }
  const TileLowering &lowering;
};

struct SplatLowering final : OpConversionPattern<tile::SplatOp> {
  SplatLowering(const TileLowering &l, TypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern(tc, ctx), lowering(l) {}
  LogicalResult matchAndRewrite(tile::SplatOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &r) const override {
    BlockedLayout layout = lowering.layoutOf(cast<RankedTensorType>(op.getType()));
    Value scalar = adaptor.getValue().front();
    SmallVector<Value> elems(layout.perThread(), scalar);
    r.replaceOpWithMultiple(op, {ValueRange(elems)});
    return success();
  }
  const TileLowering &lowering;
};

/// arith.constant dense<c> : tensor<N x T>  =>  arith.constant c : T, once per element.
struct SplatConstantLowering final : OpConversionPattern<arith::ConstantOp> {
  SplatConstantLowering(const TileLowering &l, TypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern(tc, ctx), lowering(l) {}
  LogicalResult matchAndRewrite(arith::ConstantOp op, OneToNOpAdaptor,
                                ConversionPatternRewriter &r) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type)
      return failure();
    auto dense = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!dense)
      return r.notifyMatchFailure(op, "only splat tile constants are supported");
    Value scalar = arith::ConstantOp::create(r, op.getLoc(), dense.getSplatValue<TypedAttr>());
    SmallVector<Value> elems(lowering.layoutOf(type).perThread(), scalar);
    r.replaceOpWithMultiple(op, {ValueRange(elems)});
    return success();
  }
  const TileLowering &lowering;
};

} // namespace

void populateGridOpToGPUPatterns(const TileLowering &lowering, TypeConverter &converter,
                                 RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<GridQueryLowering<tile::ProgramIdOp, gpu::BlockIdOp>,
               GridQueryLowering<tile::NumProgramsOp, gpu::GridDimOp>>(converter, ctx);
  patterns.add<ArangeLowering, SplatLowering, SplatConstantLowering>(lowering, converter, ctx);
}

} // namespace tessera::backend
