// Lowering of tile.dot on every target without matrix units: both operands staged through shared
// memory, then each thread accumulates its own elements of the result over k in a loop, loading
// each row of `a` and each column of `b` it needs once per k (register blocking).
//
// Portable mode keeps the order of docs/numerics.md: per element, from acc, k = 0, 1, ... adds
// the product rounded to the accumulator type with separate mul and add (the targets keep them
// apart: mul.rn/add.rn, NoContraction). Fast mode uses one fused multiply-add per product.
#include "TileToGPU.h"

#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <map>

using namespace mlir;

namespace tessera::backend {
namespace {

/// Writes this thread's elements of a tile (layout `l`, row-major) into shared `buf`. Operands
/// of a dot are stored in the accumulator's type: floats widened exactly, i8 sign-extended.
void writeTile(OpBuilder &b, Location loc, const TileLowering &lw, const BlockedLayout &l, ValueRange values,
               const SharedBuffer &buf, Type accElem) {
  SmallVector<int64_t, 4> strides = stridesOf(l.shape);
  auto writeAll = [&](OpBuilder &wb, Location wl) {
    Value base = lw.threadLinear(wb, wl, l, strides);
    for (int64_t e = 0; e < l.perThread(); ++e) {
      int64_t offset = l.staticCoord(e, 0) * strides[0] + l.staticCoord(e, 1) * strides[1];
      Value idx = offset ? Value(arith::AddIOp::create(wb, wl, base, lw.i32(wb, wl, offset))) : base;
      Value v = values[e];
      if (v.getType() != accElem)
        v = isa<FloatType>(accElem) ? Value(arith::ExtFOp::create(wb, wl, accElem, v))
                                    : Value(arith::ExtSIOp::create(wb, wl, accElem, v));
      lw.storeShared(wb, wl, buf, idx, v);
    }
  };
  if (Value owner = lw.ownerPredicate(b, loc, l))
    scf::IfOp::create(b, loc, owner, [&](OpBuilder &ib, Location il) {
      writeAll(ib, il);
      scf::YieldOp::create(ib, il);
    });
  else
    writeAll(b, loc);
}

struct DotLowering final : OpConversionPattern<tile::DotOp> {
  DotLowering(const TileLowering &l, TypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern(tc, ctx), lowering(l) {}

  LogicalResult matchAndRewrite(tile::DotOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &r) const override {
    const TileLowering &lw = lowering;
    Location loc = op.getLoc();
    auto aType = cast<RankedTensorType>(op.getA().getType()), bType = cast<RankedTensorType>(op.getB().getType());
    auto cType = cast<RankedTensorType>(op.getType());
    const int64_t K = aType.getDimSize(1), N = bType.getDimSize(1);
    Type accElem = cType.getElementType();
    const bool isFloat = isa<FloatType>(accElem);
    BlockedLayout la = lw.layoutOf(aType), lb = lw.layoutOf(bType), lc = lw.layoutOf(cType);

    // Stage a (M x K) and b (K x N) row-major; the first barrier keeps the writes of a dot in a
    // loop from overtaking the reads of the previous iteration.
    SharedBuffer sa = lw.allocShared(r, loc, accElem, aType.getNumElements());
    SharedBuffer sb = lw.allocShared(r, loc, accElem, bType.getNumElements());
    lw.barrier(r, loc);
    writeTile(r, loc, lw, la, adaptor.getA(), sa, accElem);
    writeTile(r, loc, lw, lb, adaptor.getB(), sb, accElem);
    lw.barrier(r, loc);

    // This thread's distinct rows and columns of the result, and which each element uses.
    const int64_t n = lc.perThread();
    std::map<int64_t, unsigned> rowOf, colOf;
    SmallVector<unsigned> elemRow(n), elemCol(n);
    for (int64_t e = 0; e < n; ++e) {
      elemRow[e] = rowOf.try_emplace(lc.staticCoord(e, 0), unsigned(rowOf.size())).first->second;
      elemCol[e] = colOf.try_emplace(lc.staticCoord(e, 1), unsigned(colOf.size())).first->second;
    }
    Value rowBase = lw.threadOffset(r, loc, lc, 0), colBase = lw.threadOffset(r, loc, lc, 1);
    SmallVector<Value> rowStart(rowOf.size()), colStart(colOf.size()); // a: row * K; b: column
    for (auto [coord, i] : rowOf)
      rowStart[i] = arith::MulIOp::create(r, loc, arith::AddIOp::create(r, loc, rowBase, lw.i32(r, loc, coord)),
                                          lw.i32(r, loc, K));
    for (auto [coord, i] : colOf)
      colStart[i] = arith::AddIOp::create(r, loc, colBase, lw.i32(r, loc, coord));

    auto loop = scf::ForOp::create(
        r, loc, lw.i32(r, loc, 0), lw.i32(r, loc, K), lw.i32(r, loc, 1), adaptor.getAcc(),
        [&](OpBuilder &b, Location l, Value k, ValueRange acc) {
          SmallVector<Value> av, bv;
          Value kN = arith::MulIOp::create(b, l, k, lw.i32(b, l, N));
          for (Value s : rowStart)
            av.push_back(lw.loadShared(b, l, sa, arith::AddIOp::create(b, l, s, k), accElem));
          for (Value s : colStart)
            bv.push_back(lw.loadShared(b, l, sb, arith::AddIOp::create(b, l, kN, s), accElem));
          SmallVector<Value> next;
          for (int64_t e = 0; e < n; ++e) {
            Value x = av[elemRow[e]], y = bv[elemCol[e]];
            if (!isFloat)
              next.push_back(arith::AddIOp::create(b, l, acc[e], arith::MulIOp::create(b, l, x, y)));
            else if (lw.portable)
              next.push_back(arith::AddFOp::create(b, l, acc[e], arith::MulFOp::create(b, l, x, y)));
            else
              next.push_back(math::FmaOp::create(b, l, x, y, acc[e]));
          }
          scf::YieldOp::create(b, l, next);
        });
    r.replaceOpWithMultiple(op, {ValueRange(loop.getResults())});
    return success();
  }
  const TileLowering &lowering;
};

} // namespace

void populateDotOpToGPUPatterns(const TileLowering &lowering, TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<DotLowering>(lowering, converter, patterns.getContext());
}

} // namespace tessera::backend
