// The NVPTX half of the pipeline: gpu.module -> NVVM/LLVM dialects -> PTX text (in memory).
#include "NVPTXTarget.h"
#include "Registration.h"
#include "common/TileToGPU.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

#include <cstdlib>
#include <filesystem>

using namespace mlir;

namespace tessera::backend {

void registerNVPTXBackend(DialectRegistry &registry) {
  registry.insert<NVVM::NVVMDialect, cf::ControlFlowDialect>();
  // convert-gpu-to-nvvm lowers other dialects through their ConvertToLLVM interfaces.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

/// Fast mode's f32 division: `div.full.f32` (llvm.nvvm.div.full), at most 2 ULP from the quotient
/// over the whole range, inside fast mode's budget of 3 (docs/numerics.md). The default, div.rn,
/// rounds correctly through a refinement and a slow path per division (portable mode keeps it).
static void approximateDivisions(ModuleOp module) {
  module.walk([](arith::DivFOp op) {
    if (!op.getType().isF32())
      return;
    OpBuilder b(op);
    auto full = LLVM::CallIntrinsicOp::create(b, op.getLoc(), b.getF32Type(), b.getStringAttr("llvm.nvvm.div.full"),
                                              ValueRange{op.getLhs(), op.getRhs()});
    op.replaceAllUsesWith(full.getResult(0));
    op.erase();
  });
}

/// A kernel's tensor maps (kTensorMapsAttr) are 128-byte parameters, 64-byte aligned, whose
/// address the bulk tensor copies take: byval + nvvm.grid_constant make them
/// `.param .align 64 .b8 [128]`, read in place through cvta.param.
static void markTensorMapParams(ModuleOp module) {
  module.walk([](LLVM::LLVMFuncOp func) {
    auto maps = func->getAttrOfType<ArrayAttr>(kTensorMapsAttr);
    if (!maps)
      return;
    MLIRContext *ctx = func.getContext();
    Builder b(ctx);
    for (Attribute a : maps) {
      const unsigned param = unsigned(cast<IntegerAttr>(cast<DictionaryAttr>(a).get("param")).getInt());
      func.setArgAttr(param, LLVM::LLVMDialect::getByValAttrName(),
                      TypeAttr::get(LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), 128)));
      func.setArgAttr(param, LLVM::LLVMDialect::getAlignAttrName(), b.getI64IntegerAttr(64));
      func.setArgAttr(param, NVVM::NVVMDialect::getGridConstantAttrName(), UnitAttr::get(ctx));
    }
  });
}

LogicalResult lowerGPUToNVVM(ModuleOp module, const std::string &chip, uint32_t ptxVersion, bool fastDivision) {
  if (fastDivision)
    approximateDivisions(module);
  PassManager pm(module.getContext());
  GpuNVVMAttachTargetOptions attach;
  attach.chip = chip;
  attach.features = "+ptx" + std::to_string(ptxVersion);
  attach.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(attach));
  OpPassManager &gpu = pm.nest<gpu::GPUModuleOp>();
  gpu.addPass(createSCFToControlFlowPass());
  gpu.addPass(createConvertGpuOpsToNVVMOps());
  gpu.addPass(createConvertNVVMToLLVMPass()); // NVVM ops written as inline PTX (wgmma)
  gpu.addPass(createCanonicalizerPass());
  gpu.addPass(createCSEPass());
  gpu.addPass(createReconcileUnrealizedCastsPass());
  if (failed(runPasses(pm, module)))
    return failure();
  markTensorMapParams(module);
  return success();
}

/// The CUDA toolkit, when present, supplies libdevice for math functions; kernels without
/// math compile to PTX without it.
static std::string cudaToolkitPath() {
  if (const char *home = std::getenv("CUDA_HOME"); home && *home)
    return home;
  if (std::filesystem::exists("/usr/local/cuda/nvvm/libdevice"))
    return "/usr/local/cuda";
  return "";
}

LogicalResult translateToPTX(ModuleOp module, std::string &ptx, std::string &error) {
  PassManager pm(module.getContext());
  GpuModuleToBinaryPassOptions options;
  options.compilationTarget = "isa";
  options.toolkitPath = cudaToolkitPath();
  pm.addPass(createGpuModuleToBinaryPass(options));
  if (failed(runPasses(pm, module))) {
    error = "PTX generation failed";
    return failure();
  }
  for (auto binary : module.getOps<gpu::BinaryOp>()) {
    for (Attribute a : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(a);
      if (!object)
        continue;
      ptx = object.getObject().str();
      return success();
    }
  }
  error = "PTX generation produced no object";
  return failure();
}

} // namespace tessera::backend
