// Which dot operand loads a tensor map can describe: a load of a window of a row-major matrix,
// its offsets (row0 + i) * stride + col0 + j and its mask row0 + i < rows & col0 + j < cols
// (and row0 + i >= 0, col0 + j >= 0 where asked), as
// the tile IR spells them (tensorWindowOf). The warpgroup lowering copies such operands with the
// target's bulk tensor copies (DotOpToGPU.cpp); the runtime builds the maps at launch from the
// kernel's arguments (hostScalarOf).
#include "TileToGPU.h"

#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace tessera::backend {

Value stripBroadcast(Value v) {
  while (auto b = v.getDefiningOp<tile::BroadcastOp>())
    v = b.getSrc();
  return v;
}

bool sameScalar(Value a, Value b) {
  APInt x, y;
  return a == b || (matchPattern(a, m_ConstantInt(&x)) && matchPattern(b, m_ConstantInt(&y)) && x == y);
}

namespace {

/// A coordinate range along dimension `dim` of a 2-D tile: expand_dims(splat(s) + arange(a, a + n))
/// (either order) or expand_dims(arange(a, a + n)), its other dimension 1. Gives s (null for 0),
/// a and n.
struct Range {
  Value start; // null: 0
  int64_t offset = 0;
  int64_t length = 0;
  bool operator==(const Range &o) const { return start == o.start && offset == o.offset && length == o.length; }
};

std::optional<Range> rangeAlong(Value v, int64_t dim) {
  auto expand = stripBroadcast(v).getDefiningOp<tile::ExpandDimsOp>();
  if (!expand || expand.getAxis() != 1 - dim)
    return std::nullopt;
  auto arangeOf = [](Value x) -> std::optional<Range> {
    auto a = x.getDefiningOp<tile::ArangeOp>();
    if (!a)
      return std::nullopt;
    return Range{Value(), int64_t(int32_t(a.getStart())), int64_t(int32_t(a.getEnd())) - int64_t(int32_t(a.getStart()))};
  };
  Value src = expand.getSrc();
  if (std::optional<Range> r = arangeOf(src))
    return r;
  auto add = src.getDefiningOp<arith::AddIOp>();
  if (!add)
    return std::nullopt;
  for (auto [x, y] : {std::pair(add.getLhs(), add.getRhs()), std::pair(add.getRhs(), add.getLhs())}) {
    auto splat = x.getDefiningOp<tile::SplatOp>();
    std::optional<Range> r = arangeOf(y);
    if (splat && r && splat.getValue().getType().isInteger(32)) {
      r->start = splat.getValue();
      return r;
    }
  }
  return std::nullopt;
}

/// The scalar a tile splats (through broadcasts), or null.
Value splatScalar(Value v) {
  auto splat = stripBroadcast(v).getDefiningOp<tile::SplatOp>();
  return splat && splat.getValue().getType().isInteger(32) ? splat.getValue() : Value();
}

/// rowRange * splat(stride) (either order) along dimension 0: the range and the stride.
std::optional<std::pair<Range, Value>> scaledRows(Value v) {
  auto mul = stripBroadcast(v).getDefiningOp<arith::MulIOp>();
  if (!mul)
    return std::nullopt;
  for (auto [x, y] : {std::pair(mul.getLhs(), mul.getRhs()), std::pair(mul.getRhs(), mul.getLhs())}) {
    std::optional<Range> rows = rangeAlong(x, 0);
    Value stride = splatScalar(y);
    if (rows && stride)
      return std::pair(*rows, stride);
  }
  return std::nullopt;
}

/// range < splat(bound) (signed) along dimension `dim`: the range and the bound.
std::optional<std::pair<Range, Value>> boundOf(Value v, int64_t dim) {
  auto cmp = stripBroadcast(v).getDefiningOp<arith::CmpIOp>();
  if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::slt)
    return std::nullopt;
  std::optional<Range> range = rangeAlong(cmp.getLhs(), dim);
  Value bound = splatScalar(cmp.getRhs());
  if (!range || !bound)
    return std::nullopt;
  return std::pair(*range, bound);
}

/// range >= 0 (signed) along dimension `dim`: the range. (A tensor copy writes zeros at negative
/// coordinates, as such a mask does.)
std::optional<Range> lowerBoundOf(Value v, int64_t dim) {
  auto cmp = stripBroadcast(v).getDefiningOp<arith::CmpIOp>();
  if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::sge)
    return std::nullopt;
  APInt zero;
  Value rhs = stripBroadcast(cmp.getRhs());
  if (auto splat = rhs.getDefiningOp<tile::SplatOp>())
    rhs = splat.getValue();
  if (!matchPattern(rhs, m_ConstantInt(&zero)) || !zero.isZero())
    return std::nullopt;
  return rangeAlong(cmp.getLhs(), dim);
}

/// The terms of a tree of `and`s of masks.
void conjunctsOf(Value v, SmallVectorImpl<Value> &out) {
  if (auto andi = stripBroadcast(v).getDefiningOp<arith::AndIOp>()) {
    conjunctsOf(andi.getLhs(), out);
    conjunctsOf(andi.getRhs(), out);
    return;
  }
  out.push_back(v);
}

/// The factors of a product of i32 scalars (nested muli), in order.
void factorsOf(Value v, SmallVectorImpl<Value> &out) {
  if (auto mul = v.getDefiningOp<arith::MulIOp>(); mul && v.getType().isInteger(32)) {
    factorsOf(mul.getLhs(), out);
    factorsOf(mul.getRhs(), out);
    return;
  }
  out.push_back(v);
}

/// `head` as slice * rows * stride (the factors in any order and grouping): the slice, else null.
Value sliceOf(Value head, Value rows, Value stride) {
  SmallVector<Value> factors;
  factorsOf(head, factors);
  for (Value want : {rows, stride}) {
    auto it = llvm::find_if(factors, [&](Value f) { return sameScalar(f, want); });
    if (it == factors.end())
      return Value();
    factors.erase(it);
  }
  return factors.size() == 1 ? factors.front() : Value();
}

} // namespace

namespace {

/// The window a masked access of a 2-D tile of type `type` reaches through `ptr[offsets]` under
/// `mask` (tensorWindowOf).
std::optional<TensorWindow> windowOf(Value ptr, Value offsets, Value mask, RankedTensorType type) {
  if (!mask || type.getRank() != 2)
    return std::nullopt;
  auto add = stripBroadcast(offsets).getDefiningOp<arith::AddIOp>();
  if (!add)
    return std::nullopt;
  // The mask: rows < bound & cols < bound (in any order), or rows < bound alone for columns
  // from 0 (the window is then as wide as the tile); each range may also be asked to be >= 0
  // (which a range starting below its scalar needs: a copy reads nothing at negative coordinates).
  SmallVector<Value> terms;
  conjunctsOf(mask, terms);
  for (auto [x, y] : {std::pair(add.getLhs(), add.getRhs()), std::pair(add.getRhs(), add.getLhs())}) {
    // Rows: rows * stride, or splat(head) + rows * stride (a slice of `head` elements further).
    Value head;
    std::optional<std::pair<Range, Value>> rows = scaledRows(x);
    if (!rows)
      if (auto inner = stripBroadcast(x).getDefiningOp<arith::AddIOp>())
        for (auto [h, r] : {std::pair(inner.getLhs(), inner.getRhs()), std::pair(inner.getRhs(), inner.getLhs())})
          if (Value scalar = splatScalar(h); scalar && (rows = scaledRows(r))) {
            head = scalar;
            break;
          }
    std::optional<Range> cols = rangeAlong(y, 1);
    if (!rows || !cols || rows->first.length != type.getDimSize(0) || cols->length != type.getDimSize(1))
      continue;
    Value rowBound, colBound;
    bool rowLower = false, colLower = false, all = true;
    for (Value term : terms) {
      if (auto b = boundOf(term, 0); b && b->first == rows->first && !rowBound)
        rowBound = b->second;
      else if (auto b = boundOf(term, 1); b && b->first == *cols && !colBound)
        colBound = b->second;
      else if (auto l = lowerBoundOf(term, 0); l && *l == rows->first)
        rowLower = true;
      else if (auto l = lowerBoundOf(term, 1); l && *l == *cols)
        colLower = true;
      else
        all = false;
    }
    if (!all || !rowBound || (rows->first.offset < 0 && !rowLower) || (cols->offset < 0 && !colLower))
      continue;
    TensorWindow w;
    if (colBound)
      w.cols = colBound;
    else if (cols->start || cols->offset)
      continue;
    else
      w.colsExtent = cols->length;
    w.buffer = ptr;
    w.row0 = rows->first.start;
    w.rowOffset = rows->first.offset;
    w.col0 = cols->start;
    w.colOffset = cols->offset;
    w.stride = rows->second;
    w.rows = rowBound;
    w.rowLower = rowLower;
    w.colLower = colLower;
    if (head && !(w.slice = sliceOf(head, w.rows, w.stride)))
      continue;
    return w;
  }
  return std::nullopt;
}

} // namespace

std::optional<TensorWindow> tensorWindowOf(Operation *op) {
  if (auto load = dyn_cast<tile::LoadOp>(op)) {
    if (load.getOther() && !isZeroSplat(load.getOther()))
      return std::nullopt;
    return windowOf(load.getPtr(), load.getOffsets(), load.getMask(), cast<RankedTensorType>(load.getType()));
  }
  if (auto store = dyn_cast<tile::StoreOp>(op))
    return windowOf(store.getPtr(), store.getOffsets(), store.getMask(),
                    cast<RankedTensorType>(store.getValue().getType()));
  return std::nullopt;
}

std::optional<std::pair<int64_t, int64_t>> hostScalarOf(Value v, Operation *kernel) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto func = dyn_cast<gpu::GPUFuncOp>(kernel);
    if (func && arg.getOwner() == &func.getBody().front() && arg.getType().isInteger(32))
      return std::pair<int64_t, int64_t>(arg.getArgNumber(), 0);
    return std::nullopt;
  }
  APInt c;
  if (v.getType().isInteger(32) && matchPattern(v, m_ConstantInt(&c)))
    return std::pair<int64_t, int64_t>(-1, c.getSExtValue());
  return std::nullopt;
}

/// A splat of +0.0 or integer 0 (through broadcasts): what a tensor copy writes outside the
/// matrix, and what a copy that reads no bytes leaves (not -0.0).
bool isZeroSplat(Value v) {
  auto splat = stripBroadcast(v).getDefiningOp<tile::SplatOp>();
  if (!splat)
    return false;
  APFloat f(0.0);
  APInt i;
  if (matchPattern(splat.getValue(), m_ConstantFloat(&f)))
    return f.isPosZero();
  return matchPattern(splat.getValue(), m_ConstantInt(&i)) && i.isZero();
}

} // namespace tessera::backend
