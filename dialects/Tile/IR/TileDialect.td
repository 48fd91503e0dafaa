// The `tile` dialect: Tessera's target-independent tile IR, produced by the tracing front end.
#ifndef TESSERA_TILE_DIALECT
#define TESSERA_TILE_DIALECT

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::tessera::tile";
  let summary = "Tile-level kernels: programs over a grid, tiles of values, masked loads and stores";
  let description = [{
    A kernel is a `func.func` marked `tile.kernel`. Its body describes one *program* of a
    grid; every value is either a scalar or a statically shaped tile (a builtin ranked
    tensor), and element-wise math on tiles uses the `arith` dialect directly. Memory is
    reached only through kernel arguments of type `!tile.ptr<T>` plus integer offset tiles,
    so every target can keep logical addressing.
  }];
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
                           "::mlir::math::MathDialect"];
}

#endif // TESSERA_TILE_DIALECT
