// Registration of the `tile` dialect and its types.
#include "Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessera::tile;

#include "Tile/IR/TileDialect.cpp.inc"

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
  if (!elementType.isF32() && !elementType.isSignlessInteger(32))
    return emitError() << "pointee type must be f32 or i32, got " << elementType;
  return success();
}
