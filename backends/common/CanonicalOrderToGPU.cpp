// Portable float scans: the canonical summation order (docs/numerics.md), the same for every
// subgroup size, warp count and layout, and the one the reference interpreter uses.
//
//   cumsum, element i:  a left fold over the aligned power-of-two blocks that make up [0, i]
//                       (the binary digits of i + 1, largest first), each block summed by the
//                       pairwise tree  v[i] <- v[2i] + v[2i+1]
//
// Through shared memory: every element is written at its row-major index, the tree is built
// level by level with a barrier between levels, and the results are read back. (Portable sums
// build the same tree in registers: ReduceOpToGPU.cpp.)
#include "TileToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace tessera::backend {
namespace {

/// One thread's view of a tile in shared memory: each of its elements' coordinates.
struct Elements {
  SmallVector<SmallVector<Value, 4>> coords; // [element][dimension], i32
};

Elements elementsOf(OpBuilder &b, Location loc, const TileLowering &l, const BlockedLayout &layout) {
  Elements out;
  for (int64_t e = 0; e < layout.perThread(); ++e) {
    SmallVector<Value, 4> c;
    for (int64_t k = 0; k < layout.rank(); ++k)
      c.push_back(l.elementCoord(b, loc, layout, e, k));
    out.coords.push_back(c);
  }
  return out;
}

/// Row-major index of `coords` in a tile of `shape`, where coordinate `axis` is first shifted
/// right by `shift` (level `shift` of a tree along that axis has shape[axis] >> shift entries).
Value levelIndex(OpBuilder &b, Location loc, const TileLowering &l, ArrayRef<int64_t> shape, ArrayRef<Value> coords,
                 int64_t axis, int64_t shift, Value axisCoord = {}) {
  SmallVector<int64_t, 4> levelShape(shape);
  levelShape[axis] >>= shift;
  SmallVector<int64_t, 4> strides = stridesOf(levelShape);
  Value index;
  for (size_t k = 0; k < coords.size(); ++k) {
    Value c = int64_t(k) == axis ? (axisCoord ? axisCoord : coords[k]) : coords[k];
    if (int64_t(k) == axis && !axisCoord && shift)
      c = arith::ShRUIOp::create(b, loc, c, l.i32(b, loc, shift));
    if (strides[k] != 1)
      c = arith::MulIOp::create(b, loc, c, l.i32(b, loc, strides[k]));
    index = index ? Value(arith::AddIOp::create(b, loc, index, c)) : c;
  }
  return index ? index : l.i32(b, loc, 0);
}

/// Runs `body` only where `pred` holds (and everywhere when it is null).
void guarded(OpBuilder &b, Location loc, Value pred, function_ref<void(OpBuilder &, Location)> body) {
  if (!pred) {
    body(b, loc);
    return;
  }
  scf::IfOp::create(b, loc, pred, [&](OpBuilder &nb, Location nl) {
    body(nb, nl);
    scf::YieldOp::create(nb, nl);
  });
}

Value andOf(OpBuilder &b, Location loc, Value a, Value c) {
  if (!a)
    return c;
  return c ? Value(arith::AndIOp::create(b, loc, a, c)) : a;
}

/// The levels of the pairwise tree along `axis`, in one shared buffer: level k (k = 0 holds
/// the elements) at levelBase[k], with shape[axis] >> k entries along the axis.
struct Tree {
  SharedBuffer buf;
  SmallVector<int64_t> levelBase;
  int64_t levels = 0; // log2(shape[axis])
};

/// Writes the tile and builds every level of the tree (the caller reads what it needs).
Tree buildTree(OpBuilder &b, Location loc, const TileLowering &l, RankedTensorType type, ValueRange src, int64_t axis,
               const Elements &el) {
  Type elem = type.getElementType();
  BlockedLayout layout = l.layoutOf(type);
  int64_t total = type.getNumElements(), n = type.getDimSize(axis);
  Tree t;
  t.levels = llvm::Log2_64(n);
  int64_t size = 0;
  for (int64_t k = 0; k <= t.levels; ++k) {
    t.levelBase.push_back(size);
    size += total >> k;
  }
  t.buf = l.allocShared(b, loc, elem, size);
  Value owner = l.ownerPredicate(b, loc, layout);
  auto at = [&](OpBuilder &nb, Location nl, int64_t level, Value index) {
    return t.levelBase[level] ? Value(arith::AddIOp::create(nb, nl, index, l.i32(nb, nl, t.levelBase[level]))) : index;
  };

  l.barrier(b, loc);
  guarded(b, loc, owner, [&](OpBuilder &nb, Location nl) {
    for (size_t e = 0; e < src.size(); ++e)
      l.storeShared(nb, nl, t.buf, at(nb, nl, 0, levelIndex(nb, nl, l, type.getShape(), el.coords[e], axis, 0)), src[e]);
  });
  for (int64_t k = 1; k <= t.levels; ++k) {
    l.barrier(b, loc);
    // Entry j of level k is made by the thread holding element 2^k * j: its children are
    // entries 2j and 2j + 1 of level k - 1.
    for (size_t e = 0; e < src.size(); ++e) {
      Value c = el.coords[e][axis];
      Value low = arith::AndIOp::create(b, loc, c, l.i32(b, loc, (int64_t(1) << k) - 1));
      Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, low, l.i32(b, loc, 0));
      guarded(b, loc, andOf(b, loc, first, owner), [&](OpBuilder &nb, Location nl) {
        Value left = levelIndex(nb, nl, l, type.getShape(), el.coords[e], axis, k - 1);
        SmallVector<int64_t, 4> childShape(type.getShape());
        childShape[axis] >>= (k - 1);
        Value right = arith::AddIOp::create(nb, nl, left, l.i32(nb, nl, stridesOf(childShape)[axis]));
        Value a = l.loadShared(nb, nl, t.buf, at(nb, nl, k - 1, left), elem);
        Value c2 = l.loadShared(nb, nl, t.buf, at(nb, nl, k - 1, right), elem);
        Value sum = arith::AddFOp::create(nb, nl, a, c2);
        l.storeShared(nb, nl, t.buf, at(nb, nl, k, levelIndex(nb, nl, l, type.getShape(), el.coords[e], axis, k)), sum);
      });
    }
  }
  l.barrier(b, loc);
  return t;
}

} // namespace

SmallVector<Value> lowerCanonicalScan(OpBuilder &b, Location loc, const TileLowering &l, RankedTensorType type,
                                      ValueRange src, int64_t axis) {
  Elements el = elementsOf(b, loc, l, l.layoutOf(type));
  Tree t = buildTree(b, loc, l, type, src, axis, el);
  Type elem = type.getElementType();
  SmallVector<Value> out;
  for (size_t e = 0; e < src.size(); ++e) {
    // Element i: the blocks of [0, i] are the set bits of m = i + 1, largest first; the block
    // for bit k starts at `start` (the sum of the larger bits) and is entry start >> k of level k.
    Value m = arith::AddIOp::create(b, loc, el.coords[e][axis], l.i32(b, loc, 1));
    Value start = l.i32(b, loc, 0);
    Value acc = arith::ConstantOp::create(b, loc, b.getZeroAttr(elem));
    Value started = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
    for (int64_t k = t.levels; k >= 0; --k) {
      Value bit = arith::AndIOp::create(b, loc, m, l.i32(b, loc, int64_t(1) << k));
      Value has = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, bit, l.i32(b, loc, 0));
      Value j = arith::ShRUIOp::create(b, loc, start, l.i32(b, loc, k));
      j = arith::SelectOp::create(b, loc, has, j, l.i32(b, loc, 0)); // stays in bounds when unused
      Value index = levelIndex(b, loc, l, type.getShape(), el.coords[e], axis, k, j);
      index = arith::AddIOp::create(b, loc, index, l.i32(b, loc, t.levelBase[k]));
      Value block = l.loadShared(b, loc, t.buf, index, elem);
      Value sum = arith::AddFOp::create(b, loc, acc, block);
      Value next = arith::SelectOp::create(b, loc, started, sum, block); // the first block is not added to 0
      acc = arith::SelectOp::create(b, loc, has, next, acc);
      started = arith::OrIOp::create(b, loc, started, has);
      start = arith::AddIOp::create(b, loc, start, bit);
    }
    out.push_back(acc);
  }
  return out;
}

} // namespace tessera::backend
