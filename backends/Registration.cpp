// Builds the dialect registry of the compiler and registers its passes for tessera-opt.
#include "Registration.h"

#include "Tile/IR/TileDialect.h"
#include "common/TileToGPU.h"
#include "nvptx/NVPTXTarget.h"
#include "spirv/SPIRVTarget.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

#include <cstdlib>
#include <string_view>

namespace tessera::backend {

#define GEN_PASS_REGISTRATION
#include "common/Passes.h.inc"

void registerBackendPasses() { registerBackendsPasses(); }

void registerCompilerDialects(mlir::DialectRegistry &registry) {
  registry.insert<tile::TileDialect, mlir::arith::ArithDialect, mlir::func::FuncDialect,
                  mlir::gpu::GPUDialect, mlir::scf::SCFDialect, mlir::memref::MemRefDialect>();
  registerNVPTXLoweringDialects(registry);
  registerSPIRVLoweringDialects(registry);
  registerNVPTXBackend(registry);
  registerSPIRVBackend(registry);
}

mlir::LogicalResult runPasses(mlir::PassManager &pm, mlir::Operation *op) {
  static const bool eachPass = [] {
    const char *env = std::getenv("TESSERA_VERIFY_EACH_PASS");
    return env && *env && std::string_view(env) != "0";
  }();
  pm.enableVerifier(eachPass);
  if (mlir::failed(pm.run(op)))
    return mlir::failure();
  return mlir::verify(op);
}

const mlir::DialectRegistry &compilerRegistry() {
  static const mlir::DialectRegistry *registry = [] {
    auto *r = new mlir::DialectRegistry();
    registerCompilerDialects(*r);
    return r;
  }();
  return *registry;
}

} // namespace tessera::backend
