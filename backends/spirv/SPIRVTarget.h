// The SPIR-V backend's entry points, free of SPIR-V dialect headers.
#pragma once

#include "common/TargetInfo.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
namespace spirv {
class TargetEnvAttr;
}
} // namespace mlir

namespace tessera::backend {

std::unique_ptr<TargetInfo> createSPIRVTargetInfo(uint32_t subgroupSize);
void registerSPIRVLoweringDialects(mlir::DialectRegistry &registry);
/// Dialects, interfaces and passes the SPIR-V pipeline needs.
void registerSPIRVBackend(mlir::DialectRegistry &registry);

/// Converts the gpu.module of `module` (after convert-tile-to-gpu) into a spirv.module,
/// in place; `portable` adds NoContraction and the float controls (PortableFloatControls.cpp).
/// Diagnostics go to the context's handler.
mlir::LogicalResult lowerGPUToSPIRV(mlir::ModuleOp module, bool portable = false, bool noContraction = true);
/// Fails when a buffer's element width in the SPIR-V differs from the declared dtype (the
/// upstream conversion may widen 8/16-bit buffers when capabilities are missing).
mlir::LogicalResult checkBufferABI(mlir::ModuleOp module, const std::vector<ArgSpec> &signature, std::string &error);
/// Serializes the module's spirv.module to words.
mlir::LogicalResult serializeSPIRV(mlir::ModuleOp module, std::vector<uint32_t> &words,
                                   std::string &error);
/// Disassembly of SPIR-V words (SPIRV-Tools).
std::string disassembleSPIRV(const std::vector<uint32_t> &words);

} // namespace tessera::backend
