// Lowering of tile.load and tile.store: a thread's runs of contiguous elements as one wide access
// when they are whole, else one guarded access per element.
#include "TileToGPU.h"

#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace tessera::backend {

/// Elements a thread holds come in runs of `vec` neighbours along the last dimension
/// (BlockedLayout): element j of the thread is position j % vec of its run. A run can be read or
/// written as one wide access when, at run time, its offsets are contiguous, its first offset is
/// a multiple of the run length (alignment) and every mask bit is set (a load takes its wide
/// accesses where this holds for all the thread's runs, a store run by run):
///   all(mask[j..j+vec)) && o[j+k] == o[j] + k && o[j] % vec == 0
/// The compiler folds what it can prove (offsets from arange plus a multiple of BLOCK: all of it).
Value wholeRunCondition(OpBuilder &b, Location loc, ValueRange offsets, ValueRange mask, size_t j, int64_t vec) {
  Type i32 = offsets[j].getType();
  auto c = [&](int64_t v) { return arith::ConstantOp::create(b, loc, b.getIntegerAttr(i32, v)).getResult(); };
  Value cond = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                     arith::AndIOp::create(b, loc, offsets[j], c(vec - 1)), c(0));
  for (int64_t k = 1; k < vec; ++k) {
    Value next = arith::AddIOp::create(b, loc, offsets[j], c(k));
    cond = arith::AndIOp::create(b, loc, cond, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, offsets[j + k], next));
  }
  if (!mask.empty())
    for (int64_t k = 0; k < vec; ++k)
      cond = arith::AndIOp::create(b, loc, cond, mask[j + k]);
  return cond;
}

Value allRunsWhole(OpBuilder &b, Location loc, ValueRange offsets, ValueRange mask, int64_t vec) {
  Value whole;
  for (size_t j = 0; j < offsets.size(); j += size_t(vec)) {
    Value run = wholeRunCondition(b, loc, offsets, mask, j, vec);
    whole = whole ? Value(arith::AndIOp::create(b, loc, whole, run)) : run;
  }
  return whole;
}

Value loadMaskedElement(OpBuilder &b, Location loc, const TargetInfo &target, Value buffer, Value offset, Value mask,
                        Value otherwise, Type elem) {
  if (!mask)
    return target.loadElement(b, loc, buffer, offset, elem);
  return scf::IfOp::create(
             b, loc, mask,
             [&](OpBuilder &nb, Location nl) { scf::YieldOp::create(nb, nl, target.loadElement(nb, nl, buffer, offset, elem)); },
             [&](OpBuilder &nb, Location nl) { scf::YieldOp::create(nb, nl, otherwise); })
      .getResult(0);
}

namespace {

Value zeroOf(OpBuilder &b, Location loc, Type t) {
  return arith::ConstantOp::create(b, loc, b.getZeroAttr(t));
}

/// Runs worth a wide access: the thread's runs of `layout.vec` elements cut into pieces of at most
/// 16 bytes (both powers of two, so every piece stays aligned to its length); 1 when the elements
/// are narrower than a byte or the run holds one element.
int64_t runLength(const BlockedLayout &layout, Type elem, size_t elements) {
  if (layout.vec < 2 || !elem.isIntOrFloat() || elem.getIntOrFloatBitWidth() < 8 ||
      elements % size_t(layout.vec) != 0)
    return 1;
  const int64_t run = std::min<int64_t>(layout.vec, 128 / elem.getIntOrFloatBitWidth());
  return run < 2 ? 1 : run;
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
    const int64_t vec = runLength(lowering.layoutOf(cast<RankedTensorType>(op.getType())), elem, offsets.size());
    // One element at a time, each behind its own mask bit (masked-off offsets may be out of
    // bounds: they must not be read at all).
    auto elementwise = [&](OpBuilder &b, Location l, size_t j, int64_t count) {
      SmallVector<Value> out;
      for (size_t e = j; e < j + size_t(count); ++e)
        out.push_back(loadMaskedElement(b, l, lowering.target, buffer, offsets[e], mask.empty() ? Value() : mask[e],
                                        other.empty() ? zero : other[e], elem));
      return out;
    };
    if (vec == 1) {
      r.replaceOpWithMultiple(op, {ValueRange(elementwise(r, loc, 0, int64_t(offsets.size())))});
      return success();
    }
    // One branch for all the thread's runs: where every run is whole, their wide loads sit in one
    // block and are all in flight at once (a branch per run kept each load behind the previous
    // one's merge on NVIDIA's Vulkan driver); otherwise every element on its own.
    auto branch = scf::IfOp::create(r, loc, SmallVector<Type>(offsets.size(), elem), allRunsWhole(r, loc, offsets, mask, vec),
                                    true);
    {
      OpBuilder::InsertionGuard guard(r);
      r.setInsertionPointToStart(branch.thenBlock());
      SmallVector<Value> elems;
      for (size_t j = 0; j < offsets.size(); j += size_t(vec)) {
        SmallVector<Value> run = lowering.target.loadRun(r, loc, buffer, offsets.slice(j, size_t(vec)), elem);
        elems.append(run.begin(), run.end());
      }
      scf::YieldOp::create(r, loc, elems);
      r.setInsertionPointToStart(branch.elseBlock());
      scf::YieldOp::create(r, loc, elementwise(r, loc, 0, int64_t(offsets.size())));
    }
    r.replaceOpWithMultiple(op, {ValueRange(branch.getResults())});
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
    auto elementwise = [&](OpBuilder &b, Location l, size_t j, int64_t count) {
      for (size_t e = j; e < j + size_t(count); ++e) {
        Value cond = mask.empty() ? owner : mask[e];
        if (owner && !mask.empty())
          cond = arith::AndIOp::create(b, l, cond, owner);
        if (!cond) {
          lowering.target.storeElement(b, l, buffer, offsets[e], values[e]);
          continue;
        }
        scf::IfOp::create(b, l, cond, [&](OpBuilder &nb, Location nl) {
          lowering.target.storeElement(nb, nl, buffer, offsets[e], values[e]);
          scf::YieldOp::create(nb, nl);
        });
      }
    };
    const int64_t vec = runLength(layout, values.empty() ? Type() : values[0].getType(), offsets.size());
    // A branch per run: a store has nothing to wait for, and one condition over all the runs kept
    // every offset live at once (an f32 matmul's epilogue took 188 registers instead of 124).
    for (size_t j = 0; j < offsets.size(); j += size_t(vec)) {
      if (vec == 1) {
        elementwise(r, loc, j, 1);
        continue;
      }
      Value whole = wholeRunCondition(r, loc, offsets, mask, j, vec);
      auto branch = scf::IfOp::create(r, loc, TypeRange{}, whole, true);
      OpBuilder::InsertionGuard guard(r);
      r.setInsertionPointToStart(branch.thenBlock());
      // Replica threads skip the whole run as they skip its elements.
      if (owner) {
        auto owned = scf::IfOp::create(r, loc, TypeRange{}, owner, false);
        r.setInsertionPointToStart(owned.thenBlock());
      }
      lowering.target.storeRun(r, loc, buffer, offsets.slice(j, size_t(vec)), values.slice(j, size_t(vec)));
      r.setInsertionPointToStart(branch.elseBlock());
      elementwise(r, loc, j, vec);
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
