// tessera-opt: runs Tessera's dialect and passes (and upstream MLIR passes) on .mlir files.
#include "Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

namespace tessera::backend {
void registerBackendPasses();
}
namespace tessera::tile {
void registerTileTransformsPasses();
}

int main(int argc, char **argv) {
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  tessera::backend::registerBackendPasses();
  tessera::tile::registerTileTransformsPasses();
  mlir::DialectRegistry registry;
  tessera::backend::registerCompilerDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, "Tessera optimizer driver\n", registry));
}
