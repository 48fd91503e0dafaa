// Lowering of the ops that change a tile's shape: broadcast, expand_dims, reshape, trans.
// Each is a redistribution (TileLowering::remap) with a linear map from result coordinates
// to the source's row-major index. Where that would go through shared memory and the source is
// computed from coordinates alone (the offsets and masks a kernel builds from arange), each
// thread computes its elements of the result itself (Rematerializer).
#include "TileToGPU.h"

#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"

#include <map>

using namespace mlir;

namespace tessera::backend {
namespace {

/// Coefficients c with  source index = Σ_k c[k] * result coordinate k.
using Coefficients = SmallVector<int64_t, 4>;

/// Tiles whose elements are functions of their coordinates alone: arange, splat, splat
/// constants, and element-wise arith ops, broadcast, expand_dims and trans over them. A thread
/// computes any element of such a tile where it needs it, in any layout, with no shared memory
/// or barrier (what Triton's slice layouts give its offsets and masks).
class Rematerializer {
public:
  /// Most ops of a tile's definition to recompute per element.
  static constexpr int kBudget = 24;

  Rematerializer(ConversionPatternRewriter &r, Location loc, const TileLowering &lw) : r(r), loc(loc), lw(lw) {}

  /// Is `v` such a tile, defined by at most `budget` ops (counted along every path)?
  static bool computable(Value v, int &budget) {
    Operation *op = v.getDefiningOp();
    if (!isa<RankedTensorType>(v.getType()) || !op || --budget < 0)
      return false;
    if (isa<tile::ArangeOp, tile::SplatOp>(op))
      return true;
    if (auto c = dyn_cast<arith::ConstantOp>(op))
      return isa<SplatElementsAttr>(c.getValue());
    if (isa<tile::BroadcastOp, tile::ExpandDimsOp, tile::TransOp>(op))
      return computable(op->getOperand(0), budget);
    return isa<arith::ArithDialect>(op->getDialect()) && op->hasTrait<OpTrait::Elementwise>() &&
           op->getNumResults() == 1 &&
           llvm::all_of(op->getOperands(), [&](Value o) { return computable(o, budget); });
  }

  /// This thread's elements of `v` (computable) in layout `l`.
  SmallVector<Value> elements(Value v, const BlockedLayout &l) {
    SmallVector<Value> out;
    for (int64_t e = 0; e < l.perThread(); ++e) {
      SmallVector<Value, 4> coords;
      for (int64_t k = 0; k < l.rank(); ++k)
        coords.push_back(coordinate(l, k, l.staticCoord(e, k)));
      out.push_back(at(v, coords));
    }
    return out;
  }

private:
  /// Coordinate threadOffset(k) + s of layout l (one Value per distinct coordinate, so that
  /// elements sharing a row or column share its computation; one threadOffset per dimension).
  Value coordinate(const BlockedLayout &l, int64_t k, int64_t s) {
    Value &c = coords[{k, s}];
    if (!c) {
      Value &base = coords[{k, 0}];
      if (!base)
        base = lw.threadOffset(r, loc, l, k);
      c = s ? Value(arith::AddIOp::create(r, loc, base, lw.i32(r, loc, s))) : base;
    }
    return c;
  }

  /// The element of `v` at `coords`.
  Value at(Value v, ArrayRef<Value> coords) {
    std::vector<const void *> key{v.getAsOpaquePointer()};
    for (Value c : coords)
      key.push_back(c.getAsOpaquePointer());
    if (auto it = memo.find(key); it != memo.end())
      return it->second;
    Operation *op = v.getDefiningOp();
    Value result;
    if (auto arange = dyn_cast<tile::ArangeOp>(op))
      result = arange.getStart() ? Value(arith::AddIOp::create(r, loc, coords[0], lw.i32(r, loc, arange.getStart())))
                                 : coords[0];
    else if (auto splat = dyn_cast<tile::SplatOp>(op))
      result = r.getRemappedValue(splat.getValue());
    else if (auto constant = dyn_cast<arith::ConstantOp>(op))
      result = arith::ConstantOp::create(r, loc, cast<SplatElementsAttr>(constant.getValue()).getSplatValue<TypedAttr>());
    else if (auto broadcast = dyn_cast<tile::BroadcastOp>(op)) {
      ArrayRef<int64_t> srcShape = cast<RankedTensorType>(broadcast.getSrc().getType()).getShape();
      SmallVector<Value, 4> src(coords);
      for (size_t k = 0; k < srcShape.size(); ++k)
        if (srcShape[k] == 1)
          src[k] = zero();
      result = at(broadcast.getSrc(), src);
    } else if (auto expand = dyn_cast<tile::ExpandDimsOp>(op)) {
      SmallVector<Value, 4> src(coords);
      src.erase(src.begin() + int64_t(expand.getAxis()));
      result = at(expand.getSrc(), src);
    } else if (auto trans = dyn_cast<tile::TransOp>(op)) {
      SmallVector<Value, 4> src(coords.size());
      for (auto [i, k] : llvm::enumerate(trans.getOrder()))
        src[k] = coords[i]; // result dimension i walks source dimension order[i]
      result = at(trans.getSrc(), src);
    } else { // element-wise arith
      OperationState state(loc, op->getName());
      for (Value o : op->getOperands())
        state.addOperands(at(o, coords));
      state.addTypes(getElementTypeOrSelf(op->getResult(0).getType()));
      state.addAttributes(op->getAttrs());
      result = r.create(state)->getResult(0);
    }
    return memo[key] = result;
  }

  Value zero() {
    if (!zeroValue)
      zeroValue = lw.i32(r, loc, 0);
    return zeroValue;
  }

  ConversionPatternRewriter &r;
  Location loc;
  const TileLowering &lw;
  std::map<std::pair<int64_t, int64_t>, Value> coords;
  std::map<std::vector<const void *>, Value> memo;
  Value zeroValue;
};

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
