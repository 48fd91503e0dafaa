// Lowering of tile.atomic_rmw and tile.atomic_cas: one guarded atomic per element a thread
// owns (threads holding copies never repeat an atomic).
#include "TileToGPU.h"

#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace tessera::backend {
namespace {

template <class Op> struct AtomicLowering final : OpConversionPattern<Op> {
  AtomicLowering(const TileLowering &l, TypeConverter &tc, MLIRContext *ctx) : OpConversionPattern<Op>(tc, ctx), lowering(l) {}

  LogicalResult matchAndRewrite(Op op, typename OpConversionPattern<Op>::OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &r) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type elem = type.getElementType();
    BlockedLayout layout = lowering.layoutOf(type);
    Value buffer = adaptor.getPtr().front();
    ValueRange offsets = adaptor.getOffsets(), values = adaptor.getValue(), mask = adaptor.getMask();
    ValueRange cmp;
    tile::AtomicKind kind = tile::AtomicKind::Cas;
    if constexpr (std::is_same_v<Op, tile::AtomicCASOp>)
      cmp = adaptor.getCmp();
    else
      kind = op.getKind();
    Value owner = lowering.ownerPredicate(r, loc, layout);
    Value zero = arith::ConstantOp::create(r, loc, r.getZeroAttr(elem));
    SmallVector<Value> old;
    for (size_t j = 0; j < offsets.size(); ++j) {
      Value cond = mask.empty() ? owner : mask[j];
      if (owner && !mask.empty())
        cond = arith::AndIOp::create(r, loc, cond, owner);
      auto emit = [&](OpBuilder &b, Location l) {
        return lowering.target.atomic(b, l, kind, op.getOrder(), buffer, offsets[j], values[j], cmp.empty() ? Value() : cmp[j]);
      };
      if (!cond) {
        old.push_back(emit(r, loc));
        continue;
      }
      auto branch = scf::IfOp::create(
          r, loc, cond, [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, emit(b, l)); },
          [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, zero); });
      old.push_back(branch.getResult(0));
    }
    r.replaceOpWithMultiple(op, {ValueRange(old)});
    return success();
  }
  const TileLowering &lowering;
};

} // namespace

void populateAtomicOpToGPUPatterns(const TileLowering &lowering, TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<AtomicLowering<tile::AtomicRMWOp>, AtomicLowering<tile::AtomicCASOp>>(lowering, converter,
                                                                                       patterns.getContext());
}

} // namespace tessera::backend
