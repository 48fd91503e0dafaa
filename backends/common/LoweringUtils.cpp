// Code-building helpers shared by the TileToGPU patterns: thread coordinates in the blocked
// layout, shared-memory scratch, and moving tiles between layouts.
#include "TileToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace tessera::backend {

llvm::SmallVector<int64_t, 4> stridesOf(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t, 4> strides(shape.size(), 1);
  for (int64_t k = int64_t(shape.size()) - 2; k >= 0; --k)
    strides[k] = strides[k + 1] * shape[k + 1];
  return strides;
}

Value TileLowering::i32(OpBuilder &b, Location loc, int64_t v) const {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(v)));
}

/// (tid >> log2(stride)) & (count - 1), without the mask where nothing lies above.
static Value digit(OpBuilder &b, Location loc, const TileLowering &lw, Value tid, int64_t stride, int64_t count,
                   int64_t total) {
  Value t = tid;
  if (stride > 1)
    t = arith::ShRUIOp::create(b, loc, t, lw.i32(b, loc, llvm::Log2_64(stride)));
  if (stride * count < total)
    t = arith::AndIOp::create(b, loc, t, lw.i32(b, loc, count - 1));
  return t;
}

Value TileLowering::threadOffset(OpBuilder &b, Location loc, const BlockedLayout &l, int64_t k) const {
  if (l.threadsPer[k] == 1)
    return i32(b, loc, 0);
  Value t;
  if (!l.hasWarpGrid()) {
    t = digit(b, loc, *this, threadId, l.replicaLanes * l.threadStride(k), l.threadsPer[k], threads);
  } else { // lane[k] + lanesPer(k) * warp[k]
    if (l.lanesPer(k) > 1)
      t = digit(b, loc, *this, threadId, l.laneStride(k), l.lanesPer(k), threads);
    if (l.warpsPer[k] > 1) {
      Value w = digit(b, loc, *this, threadId, l.laneCount * l.warpStride(k), l.warpsPer[k], threads);
      if (l.lanesPer(k) > 1)
        w = arith::MulIOp::create(b, loc, w, i32(b, loc, l.lanesPer(k)));
      t = t ? Value(arith::AddIOp::create(b, loc, t, w)) : w;
    }
  }
  if (l.size(k) > 1)
    t = arith::MulIOp::create(b, loc, t, i32(b, loc, l.size(k)));
  return t;
}

Value TileLowering::elementCoord(OpBuilder &b, Location loc, const BlockedLayout &l, int64_t e, int64_t k) const {
  Value base = threadOffset(b, loc, l, k);
  int64_t s = l.staticCoord(e, k);
  return s == 0 ? base : Value(arith::AddIOp::create(b, loc, base, i32(b, loc, s)));
}

Value TileLowering::threadLinear(OpBuilder &b, Location loc, const BlockedLayout &l, ArrayRef<int64_t> coef) const {
  Value sum;
  for (int64_t k = 0; k < l.rank(); ++k) {
    if (coef[k] == 0 || l.threadsPer[k] == 1)
      continue;
    Value term = threadOffset(b, loc, l, k);
    if (coef[k] != 1)
      term = arith::MulIOp::create(b, loc, term, i32(b, loc, coef[k]));
    sum = sum ? Value(arith::AddIOp::create(b, loc, sum, term)) : term;
  }
  return sum ? sum : i32(b, loc, 0);
}

Value TileLowering::ownerPredicate(OpBuilder &b, Location loc, const BlockedLayout &l) const {
  if (!l.hasReplicas())
    return {};
  Value owner;
  if (l.replicaLanes > 1) // the first of each group of neighbours
    owner = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                  arith::AndIOp::create(b, loc, threadId, i32(b, loc, l.replicaLanes - 1)), i32(b, loc, 0));
  if (l.owners() * l.replicaLanes < threads) {
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, threadId, i32(b, loc, l.owners() * l.replicaLanes));
    owner = owner ? Value(arith::AndIOp::create(b, loc, owner, first)) : first;
  }
  return owner;
}

/// Shared memory holds 32-bit (or 64-bit) words: narrower types are widened on the way in,
/// exactly (f16/bf16 -> f32, i1/i8/i16 -> i32), and narrowed on the way out.
static Type storedTypeOf(Type elem) {
  MLIRContext *ctx = elem.getContext();
  if (isa<FloatType>(elem))
    return elem.getIntOrFloatBitWidth() <= 32 ? Type(Float32Type::get(ctx)) : elem;
  return elem.getIntOrFloatBitWidth() <= 32 ? Type(IntegerType::get(ctx, 32)) : elem;
}

SharedBuffer TileLowering::allocShared(OpBuilder &b, Location loc, Type elem, int64_t count) const {
  Type stored = storedTypeOf(elem);
  sharedBytes += count * (stored.getIntOrFloatBitWidth() / 8);
  return {target.allocShared(b, loc, cast<gpu::GPUFuncOp>(kernel), stored, count), stored};
}

void TileLowering::storeShared(OpBuilder &b, Location loc, const SharedBuffer &buf, Value index, Value value) const {
  Type t = value.getType();
  if (t != buf.storedType) {
    if (isa<FloatType>(t))
      value = arith::ExtFOp::create(b, loc, buf.storedType, value);
    else // masks as 0/1; integers keep their bits (the way back truncates)
      value = arith::ExtUIOp::create(b, loc, buf.storedType, value);
  }
  target.storeShared(b, loc, buf.handle, index, value);
}

/// A value read from shared memory as `stored`, narrowed back to `elem` (exact: it came from one).
static Value narrowFromShared(OpBuilder &b, Location loc, Value v, Type elem, Type stored) {
  if (elem == stored)
    return v;
  if (isa<FloatType>(elem))
    return arith::TruncFOp::create(b, loc, elem, v);
  return arith::TruncIOp::create(b, loc, elem, v);
}

Value TileLowering::loadShared(OpBuilder &b, Location loc, const SharedBuffer &buf, Value index, Type elem) const {
  return narrowFromShared(b, loc, target.loadShared(b, loc, buf.handle, index, buf.storedType), elem, buf.storedType);
}

SmallVector<Value> TileLowering::loadSharedRun(OpBuilder &b, Location loc, const SharedBuffer &buf, Value index,
                                              Type elem, int64_t count) const {
  SmallVector<Value> out = target.loadSharedRun(b, loc, buf.handle, index, buf.storedType, count);
  for (Value &v : out)
    v = narrowFromShared(b, loc, v, elem, buf.storedType);
  return out;
}

void TileLowering::barrier(OpBuilder &b, Location loc) const { gpu::BarrierOp::create(b, loc); }

std::optional<SmallVector<Value>> TileLowering::remapInRegisters(ValueRange src, const BlockedLayout &srcL,
                                                                 const BlockedLayout &dstL,
                                                                 ArrayRef<int64_t> coef) const {
  int64_t n = dstL.perThread();
  auto srcIndexOf = [&](int64_t tid, int64_t e) {
    int64_t idx = 0;
    for (int64_t k = 0; k < dstL.rank(); ++k)
      idx += coef[k] * dstL.coord(tid, e, k);
    return idx;
  };
  // In registers: the needed source element sits at one position p(e) for every thread.
  SmallVector<int64_t> position(n, -1);
  bool local = true;
  for (int64_t e = 0; e < n && local; ++e) {
    int64_t want = srcIndexOf(0, e);
    for (int64_t p = 0; p < srcL.perThread(); ++p)
      if (srcL.linear(0, p) == want) {
        position[e] = p;
        break;
      }
    local = position[e] >= 0;
  }
  for (int64_t tid = 1; tid < threads && local; ++tid)
    for (int64_t e = 0; e < n && local; ++e)
      local = srcL.linear(tid, position[e]) == srcIndexOf(tid, e);
  if (!local)
    return std::nullopt;
  SmallVector<Value> out;
  for (int64_t e = 0; e < n; ++e)
    out.push_back(src[position[e]]);
  return out;
}

SmallVector<Value> TileLowering::remap(OpBuilder &b, Location loc, ValueRange src, const BlockedLayout &srcL,
                                       const BlockedLayout &dstL, ArrayRef<int64_t> coef) const {
  if (std::optional<SmallVector<Value>> local = remapInRegisters(src, srcL, dstL, coef))
    return *local;
  // Through shared memory: owners write the whole source tile row-major, everyone reads.
  const int64_t n = dstL.perThread();
  SmallVector<Value> out;
  Type elem = src.front().getType();
  int64_t count = 1;
  for (int64_t d : srcL.shape)
    count *= d;
  SharedBuffer buf = allocShared(b, loc, elem, count);
  SmallVector<int64_t, 4> srcStrides = stridesOf(srcL.shape);
  auto writeAll = [&](OpBuilder &wb, Location wl) {
    Value base = threadLinear(wb, wl, srcL, srcStrides);
    for (int64_t e = 0; e < srcL.perThread(); ++e) {
      int64_t offset = 0;
      for (int64_t k = 0; k < srcL.rank(); ++k)
        offset += srcL.staticCoord(e, k) * srcStrides[k];
      Value idx = offset ? Value(arith::AddIOp::create(wb, wl, base, i32(wb, wl, offset))) : base;
      storeShared(wb, wl, buf, idx, src[e]);
    }
  };
  barrier(b, loc); // earlier readers of any scratch are done
  if (Value owner = ownerPredicate(b, loc, srcL))
    scf::IfOp::create(b, loc, owner, [&](OpBuilder &ib, Location il) {
      writeAll(ib, il);
      scf::YieldOp::create(ib, il);
    });
  else
    writeAll(b, loc);
  barrier(b, loc);
  Value base = threadLinear(b, loc, dstL, coef);
  for (int64_t e = 0; e < n; ++e) {
    int64_t offset = 0;
    for (int64_t k = 0; k < dstL.rank(); ++k)
      offset += coef[k] * dstL.staticCoord(e, k);
    Value idx = offset ? Value(arith::AddIOp::create(b, loc, base, i32(b, loc, offset))) : base;
    out.push_back(loadShared(b, loc, buf, idx, elem));
  }
  return out;
}

} // namespace tessera::backend
