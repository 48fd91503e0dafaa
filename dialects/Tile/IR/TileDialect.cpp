// Registration of the `tile` dialect and its types.
#include "Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessera::tile;

#include "Tile/IR/TileDialect.cpp.inc"
#include "Tile/IR/TileEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "Tile/IR/TileTypes.cpp.inc"

void TileDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "Tile/IR/TileTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "Tile/IR/TileOps.cpp.inc"
      >();
}

LogicalResult PtrType::verify(function_ref<InFlightDiagnostic()> emitError, Type elementType) {
  bool ok = elementType.isF32() || elementType.isF16() || elementType.isBF16();
  for (unsigned w : {8, 16, 32, 64})
    ok |= elementType.isSignlessInteger(w);
  if (!ok)
    return emitError() << "pointee type must be f32, f16, bf16, i8, i16, i32 or i64, got " << elementType;
  return success();
}
