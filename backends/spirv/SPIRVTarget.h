// The SPIR-V backend's entry points, free of SPIR-V dialect headers.
#pragma once

#include "common/TargetInfo.h"

#include "mlir/IR/BuiltinOps.h"

#include <span>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
namespace gpu {
class GPUModuleOp;
}
namespace spirv {
class TargetEnvAttr;
}
} // namespace mlir

namespace tessera::backend {

/// `coopMatrix`: SPIR-V 1.6 with cooperative matrices for fast-mode f16 dot (chip vulkan1.3+coopmat).
/// `mmaLanes`: accumulators in registers as mma.sync's C fragments (chip ...+mma-lanes).
/// `bf16`: bf16 dots on cooperative matrices too (chip vulkan1.3+coopmat+bf16...).
std::unique_ptr<TargetInfo> createSPIRVTargetInfo(uint32_t subgroupSize, bool coopMatrix, bool mmaLanes,
                                                  bool bf16 = false);
void registerSPIRVLoweringDialects(mlir::DialectRegistry &registry);
/// Dialects, interfaces and passes the SPIR-V pipeline needs.
void registerSPIRVBackend(mlir::DialectRegistry &registry);

/// Converts the gpu.module of `module` (after convert-tile-to-gpu) into a spirv.module,
/// in place; `portable` adds NoContraction and the float controls (PortableFloatControls.cpp);
/// `softF32Denormals` (portable only) keeps f32 denormals in software for drivers that flush
/// them (SoftF32Denormals.cpp). Diagnostics go to the context's handler.
mlir::LogicalResult lowerGPUToSPIRV(mlir::ModuleOp module, bool portable = false, bool noContraction = true,
                                    bool softF32Denormals = false);
/// Marks the scf.if ops whose results the SPIR-V lowering passes through OpPhi instead of
/// Function variables (GPUToSPIRV.cpp).
inline constexpr const char *kPhiBranchAttr = "tessera.phi_branch";
/// Follows every f32 float operation of `module` with a test of its result (or inputs) and a
/// branch that redoes it in f64 where a driver that flushes denormals may have got it wrong, so
/// the results are IEEE's with or without flushing (SoftF32Denormals.cpp).
mlir::LogicalResult emulateF32Denormals(mlir::gpu::GPUModuleOp module);
/// Carries each pair of 16-bit loop-carried values that one 32-bit word of a load gives on entry
/// and from the body as that word (PackHalfPairs.cpp).
void packHalfPairsAcrossLoops(mlir::gpu::GPUModuleOp module);
/// Fails when a buffer's element width in the SPIR-V differs from the declared dtype (the
/// upstream conversion may widen 8/16-bit buffers when capabilities are missing).
mlir::LogicalResult checkBufferABI(mlir::ModuleOp module, const std::vector<ArgSpec> &signature, std::string &error);
/// Reads each of `args` (i32 scalars of `signature`) from a specialization constant whose SpecId
/// is the argument's index instead of the push-constant block (SpecializeScalars.cpp): the driver
/// then compiles with their values known, and the runtime builds a pipeline per set of values.
mlir::LogicalResult specializeScalars(mlir::ModuleOp module, const std::vector<ArgSpec> &signature,
                                      std::span<const uint32_t> args, std::string &error);
/// Serializes the module's spirv.module to words.
mlir::LogicalResult serializeSPIRV(mlir::ModuleOp module, std::vector<uint32_t> &words,
                                   std::string &error);
/// Disassembly of SPIR-V words (SPIRV-Tools).
std::string disassembleSPIRV(const std::vector<uint32_t> &words);

} // namespace tessera::backend
