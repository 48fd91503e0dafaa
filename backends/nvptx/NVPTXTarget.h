// The NVPTX backend's entry points, free of NVVM/LLVM dialect headers.
#pragma once

#include "common/TargetInfo.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir {
class DialectRegistry;
}

namespace tessera::backend {

/// `chip` is "sm_90" etc.: tensor-core steps (mma.sync) need sm_80 or later.
std::unique_ptr<TargetInfo> createNVPTXTargetInfo(const std::string &chip);
void registerNVPTXLoweringDialects(mlir::DialectRegistry &registry);
/// Dialects, interfaces and translations the NVPTX pipeline needs.
void registerNVPTXBackend(mlir::DialectRegistry &registry);

/// Lowers the gpu.module of `module` (after convert-tile-to-gpu) to the NVVM/LLVM dialects,
/// attached to an NVVM target for `chip` in PTX ISA `ptxVersion` (e.g. 78 for 7.8). With
/// `fastDivision` (fast mode), f32 division is div.full.f32 (2 ULP) instead of div.rn.
mlir::LogicalResult lowerGPUToNVVM(mlir::ModuleOp module, const std::string &chip, uint32_t ptxVersion,
                                   bool fastDivision = false);
/// Translates the lowered module to PTX text through LLVM's NVPTX backend.
mlir::LogicalResult translateToPTX(mlir::ModuleOp module, std::string &ptx, std::string &error);

} // namespace tessera::backend
