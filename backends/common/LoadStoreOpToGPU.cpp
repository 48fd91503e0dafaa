// Lowering of tile.load and tile.store: one guarded access per element a thread holds.
#include "TileToGPU.h"

#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace tessera::backend {
namespace {

Value zeroOf(OpBuilder &b, Location loc, Type t) {
  return arith::ConstantOp::create(b, loc, b.getZeroAttr(t));
}

struct LoadLowering final : OpConversionPattern<tile::LoadOp> {
  LoadLowering(const TileLowering &l, TypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern(tc, ctx), lowering(l) {}
  LogicalResult matchAndRewrite(tile::LoadOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    Type elem = cast<RankedTensorType>(op.getType()).getElementType();
    Value buffer = adaptor.getPtr().front();
    ValueRange offsets = adaptor.getOffsets(), mask = adaptor.getMask(), other = adaptor.getOther();
    Value zero = other.empty() ? zeroOf(r, loc, elem) : Value();
    SmallVector<Value> elems;
    for (size_t j = 0; j < offsets.size(); ++j) {
      if (mask.empty()) {
        elems.push_back(lowering.target.loadElement(r, loc, buffer, offsets[j], elem));
        continue;
      }
      // Masked-off offsets may be out of bounds: they must not be read at all.
      auto branch = scf::IfOp::create(
          r, loc, mask[j],
          [&](OpBuilder &b, Location l) {
            scf::YieldOp::create(b, l, lowering.target.loadElement(b, l, buffer, offsets[j], elem));
          },
          [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, other.empty() ? zero : other[j]); });
      elems.push_back(branch.getResult(0));
    }
    r.replaceOpWithMultiple(op, {ValueRange(elems)});
    return success();
  }
  const TileLowering &lowering;
};

struct StoreLowering final : OpConversionPattern<tile::StoreOp> {
  StoreLowering(const TileLowering &l, TypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern(tc, ctx), lowering(l) {}
  LogicalResult matchAndRewrite(tile::StoreOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    BlockedLayout layout = lowering.layoutOf(cast<RankedTensorType>(op.getValue().getType()));
    Value buffer = adaptor.getPtr().front();
    ValueRange offsets = adaptor.getOffsets(), values = adaptor.getValue(), mask = adaptor.getMask();
    // Threads holding copies of another thread's elements do not store them again.
    Value owner = lowering.ownerPredicate(r, loc, layout);
    for (size_t j = 0; j < offsets.size(); ++j) {
      Value cond = mask.empty() ? owner : mask[j];
      if (owner && !mask.empty())
        cond = arith::AndIOp::create(r, loc, cond, owner);
      if (!cond) {
        lowering.target.storeElement(r, loc, buffer, offsets[j], values[j]);
        continue;
      }
      scf::IfOp::create(r, loc, cond, [&](OpBuilder &b, Location l) {
        lowering.target.storeElement(b, l, buffer, offsets[j], values[j]);
        scf::YieldOp::create(b, l);
      });
    }
    r.eraseOp(op);
    return success();
  }
  const TileLowering &lowering;
};

} // namespace

void populateLoadStoreOpToGPUPatterns(const TileLowering &lowering, TypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns.add<LoadLowering, StoreLowering>(lowering, converter, patterns.getContext());
}

} // namespace tessera::backend
