// Verifiers and folders of the `tile` ops.
#include "Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace tessera::tile;

#define GET_OP_CLASSES
#include "Tile/IR/TileOps.cpp.inc"

static LogicalResult verifyTileShape(Operation *op, RankedTensorType t, StringRef what);

LogicalResult ArangeOp::verify() {
  int64_t start = int32_t(getStart()), end = int32_t(getEnd());
  if (end <= start)
    return emitOpError() << "end (" << end << ") must be greater than start (" << start << ")";
  auto type = cast<RankedTensorType>(getType());
  if (type.getRank() != 1)
    return emitOpError() << "result must be 1-D, got " << type;
  int64_t length = type.getDimSize(0);
  if (length != end - start)
    return emitOpError() << "result has " << length << " elements but the range [" << start
                         << ", " << end << ") has " << end - start;
  if (!isPowerOfTwo(length))
    return emitOpError() << "length " << length << " is not a power of two";
  return success();
}

OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  // splat(constant c) => dense<c>
  if (auto value = dyn_cast_if_present<TypedAttr>(adaptor.getValue()))
    return SplatElementsAttr::get(getType(), value);
  return {};
}

/// Shared checks of load and store: the offsets, mask and data tiles all have one shape and
/// the data's element type is the pointee type.
static LogicalResult verifyAccess(Operation *op, PtrType ptr, RankedTensorType offsets,
                                  Value mask, RankedTensorType data, StringRef dataName) {
  if (offsets.getShape() != data.getShape())
    return op->emitOpError() << "offsets shape " << offsets << " differs from " << dataName
                             << " shape " << data;
  if (data.getElementType() != ptr.getElementType())
    return op->emitOpError() << dataName << " element type " << data.getElementType()
                             << " differs from the pointee type " << ptr.getElementType();
  if (mask && cast<RankedTensorType>(mask.getType()).getShape() != data.getShape())
    return op->emitOpError() << "mask shape " << mask.getType() << " differs from " << dataName
                             << " shape " << data;
  return success();
}

LogicalResult LoadOp::verify() {
  if (failed(verifyTileShape(*this, cast<RankedTensorType>(getType()), "result")))
    return failure();
  if (failed(verifyAccess(*this, getPtr().getType(), cast<RankedTensorType>(getOffsets().getType()),
                          getMask(), cast<RankedTensorType>(getType()), "result")))
    return failure();
  if (getOther() && getOther().getType() != getType())
    return emitOpError() << "other has type " << getOther().getType()
                         << " but the result has type " << getType();
  return success();
}

LogicalResult StoreOp::verify() {
  return verifyAccess(*this, getPtr().getType(), cast<RankedTensorType>(getOffsets().getType()), getMask(),
                      cast<RankedTensorType>(getValue().getType()), "value");
}

LogicalResult PushConstantOp::verify() {
  int64_t offset = getOffset(), size = getBlockSize();
  if (offset % 4 != 0 || size % 4 != 0)
    return emitOpError() << "offset " << offset << " and block size " << size
                         << " must be multiples of 4 bytes";
  if (offset + 4 > size)
    return emitOpError() << "the word at offset " << offset << " lies outside the " << size
                         << "-byte block";
  return success();
}

/// Every dimension of a tile must be a power of two.
static LogicalResult verifyTileShape(Operation *op, RankedTensorType t, StringRef what) {
  for (int64_t d : t.getShape())
    if (!isPowerOfTwo(d))
      return op->emitOpError() << what << " " << t << " has a dimension that is not a power of two";
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType()), dst = cast<RankedTensorType>(getType());
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "element types differ: " << src << " and " << dst;
  if (src.getRank() != dst.getRank())
    return emitOpError() << "rank changes from " << src.getRank() << " to " << dst.getRank()
                         << "; use tile.expand_dims first";
  for (int64_t i = 0; i < src.getRank(); ++i)
    if (src.getDimSize(i) != 1 && src.getDimSize(i) != dst.getDimSize(i))
      return emitOpError() << "dimension " << i << " of " << src << " is neither 1 nor "
                           << dst.getDimSize(i);
  return verifyTileShape(*this, dst, "result");
}

LogicalResult ExpandDimsOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType()), dst = cast<RankedTensorType>(getType());
  int64_t axis = int32_t(getAxis());
  if (axis < 0 || axis > src.getRank())
    return emitOpError() << "axis " << axis << " is outside [0, " << src.getRank() << "]";
  SmallVector<int64_t> shape(src.getShape());
  shape.insert(shape.begin() + axis, 1);
  if (ArrayRef<int64_t>(shape) != dst.getShape() || src.getElementType() != dst.getElementType())
    return emitOpError() << "result " << dst << " is not " << src << " with a 1 inserted at " << axis;
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType()), dst = cast<RankedTensorType>(getType());
  if (src.getNumElements() != dst.getNumElements() || src.getElementType() != dst.getElementType())
    return emitOpError() << "cannot reshape " << src << " into " << dst;
  return verifyTileShape(*this, dst, "result");
}

LogicalResult TransOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType()), dst = cast<RankedTensorType>(getType());
  ArrayRef<int32_t> order = getOrder();
  if (int64_t(order.size()) != src.getRank())
    return emitOpError() << "order has " << order.size() << " entries for a rank-" << src.getRank() << " tile";
  SmallVector<bool> seen(order.size(), false);
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i] < 0 || order[i] >= int32_t(order.size()) || seen[order[i]])
      return emitOpError() << "order is not a permutation";
    seen[order[i]] = true;
    if (dst.getDimSize(i) != src.getDimSize(order[i]))
      return emitOpError() << "result dimension " << i << " should be " << src.getDimSize(order[i]);
  }
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "element types differ";
  return success();
}

/// A 16-byte run of `buffer`'s elements as `types`: that many of the element type.
static LogicalResult verifyRun(Operation *op, Type buffer, TypeRange types) {
  Type elem = cast<MemRefType>(buffer).getElementType();
  if (!elem.isIntOrFloat() || types.empty() || elem.getIntOrFloatBitWidth() * types.size() != 128)
    return op->emitOpError() << "needs 16 bytes of " << elem << ", got " << types.size() << " values";
  for (Type t : types)
    if (t != elem)
      return op->emitOpError() << "values must be the buffer's element type " << elem << ", got " << t;
  return success();
}

LogicalResult BufferLoadRunOp::verify() {
  if (failed(verifyRun(*this, getBuffer().getType(), getValues().getTypes())))
    return failure();
  if (!getCond() && !getOtherwise().empty())
    return emitOpError() << "has `otherwise` values but no condition";
  if (getCond() && TypeRange(getOtherwise().getTypes()) != TypeRange(getValues().getTypes()))
    return emitOpError() << "needs one `otherwise` value of the result's type per element, got " << getOtherwise().size();
  return success();
}
LogicalResult BufferStoreRunOp::verify() { return verifyRun(*this, getBuffer().getType(), getValues().getTypes()); }

LogicalResult StoreComponentOp::verify() {
  auto vec = dyn_cast<VectorType>(cast<MemRefType>(getBuffer().getType()).getElementType());
  if (!vec || vec.getRank() != 1 || vec.getElementType() != getValue().getType())
    return emitOpError() << "needs an array of vectors of " << getValue().getType() << ", got "
                         << getBuffer().getType();
  return success();
}

LogicalResult WorkgroupMatmulOp::verify() {
  for (int64_t block : {getBlockM(), getBlockN(), getBlockK()})
    if (block <= 0 || block % 16)
      return emitOpError() << "needs blocks that are positive multiples of 16, got " << getBlockM() << " x "
                           << getBlockN() << " x " << getBlockK();
  Type in = getInType();
  if (!in.isF16() && !in.isBF16())
    return emitOpError() << "multiplies f16 or bf16 matrices, not " << in;
  if (bool(getBias()) != bool(getBiasOffset()))
    return emitOpError() << "needs a bias offset exactly when it has a bias";
  return success();
}

LogicalResult DotOp::verify() {
  auto a = cast<RankedTensorType>(getA().getType()), b = cast<RankedTensorType>(getB().getType());
  auto acc = cast<RankedTensorType>(getAcc().getType());
  if (a.getRank() != 2 || b.getRank() != 2 || acc.getRank() != 2)
    return emitOpError() << "needs 2-D tiles, got " << a << ", " << b << " and " << acc;
  const bool t = getTransposeB();
  const int64_t bK = b.getDimSize(t ? 1 : 0), bN = b.getDimSize(t ? 0 : 1);
  if (a.getDimSize(1) != bK || acc.getDimSize(0) != a.getDimSize(0) || acc.getDimSize(1) != bN)
    return emitOpError() << "shapes do not chain: " << a << " x " << b << " -> " << acc
                         << (t ? " (M x K, N x K with transpose_b, M x N)" : " (M x K, K x N, M x N)");
  for (int64_t d : {a.getDimSize(0), a.getDimSize(1), bN})
    if (d < 16 || !llvm::isPowerOf2_64(uint64_t(d)))
      return emitOpError() << "dimension " << d << " is not a power of two of at least 16";
  Type in = a.getElementType(), out = acc.getElementType();
  if (b.getElementType() != in)
    return emitOpError() << "operands have different element types: " << in << " and " << b.getElementType();
  bool ok = (in.isF32() && out.isF32()) || ((in.isF16() || in.isBF16()) && out.isF32()) ||
            (in.isInteger(8) && out.isInteger(32));
  if (!ok)
    return emitOpError() << in << " x " << in << " -> " << out
                         << " is not a dot type; use f32 -> f32, f16 or bf16 -> f32, i8 -> i32";
  return success();
}

LogicalResult ReduceOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  int64_t axis = int32_t(getAxis());
  if (axis < 0 || axis >= src.getRank())
    return emitOpError() << "axis " << axis << " is out of range for a rank-" << src.getRank() << " tile";
  bool isArg = getKind() == ReduceKind::ArgMax || getKind() == ReduceKind::ArgMin;
  Type elem = isArg ? Type(IntegerType::get(getContext(), 32)) : src.getElementType();
  SmallVector<int64_t> shape(src.getShape());
  shape.erase(shape.begin() + axis);
  Type expected = shape.empty() ? elem : Type(RankedTensorType::get(shape, elem));
  if (getType() != expected)
    return emitOpError() << "result type should be " << expected << ", got " << getType();
  return success();
}

LogicalResult ScanOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  int64_t axis = int32_t(getAxis());
  if (axis < 0 || axis >= src.getRank())
    return emitOpError() << "axis " << axis << " is out of range for a rank-" << src.getRank() << " tile";
  return success();
}

LogicalResult AtomicRMWOp::verify() {
  auto value = cast<RankedTensorType>(getValue().getType());
  if (failed(verifyAccess(*this, getPtr().getType(), cast<RankedTensorType>(getOffsets().getType()), getMask(), value,
                          "value")))
    return failure();
  if (getType() != value)
    return emitOpError() << "result type " << getType() << " differs from the value type " << value;
  Type e = value.getElementType();
  if (getKind() == AtomicKind::Cas)
    return emitOpError() << "use tile.atomic_cas for compare-and-swap";
  if (!e.isSignlessInteger(32) && !e.isSignlessInteger(64) && !e.isF32())
    return emitOpError() << "atomics work on i32, i64 and f32 elements, got " << e;
  if (e.isF32() && getKind() != AtomicKind::Add && getKind() != AtomicKind::Xchg)
    return emitOpError() << "f32 atomics are add and xchg (the front end builds max/min from integer atomics)";
  return success();
}

LogicalResult AtomicCASOp::verify() {
  auto value = cast<RankedTensorType>(getValue().getType());
  if (failed(verifyAccess(*this, getPtr().getType(), cast<RankedTensorType>(getOffsets().getType()), getMask(), value,
                          "value")))
    return failure();
  if (getCmp().getType() != value || getType() != value)
    return emitOpError() << "cmp, value and result must have one type";
  Type e = value.getElementType();
  if (!e.isSignlessInteger(32) && !e.isSignlessInteger(64))
    return emitOpError() << "compare-and-swap works on i32 and i64 elements (bitcast f32), got " << e;
  return success();
}
