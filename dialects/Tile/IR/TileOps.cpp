// Verifiers and folders of the `tile` ops.
#include "Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace tessera::tile;

#define GET_OP_CLASSES
#include "Tile/IR/TileOps.cpp.inc"

LogicalResult ArangeOp::verify() {
  int64_t start = int32_t(getStart()), end = int32_t(getEnd());
  if (end <= start)
    return emitOpError() << "end (" << end << ") must be greater than start (" << start << ")";
  int64_t length = cast<RankedTensorType>(getType()).getDimSize(0);
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
