// The SPIR-V half of the pipeline: gpu.module -> spirv.module (upstream patterns plus the
// push-constant ABI), ABI lowering, VCE trimming and serialization to words.
#include "SPIRVTarget.h"

#include "Tile/IR/TileDialect.h"

#include "mlir/Conversion/ArithToSPIRV/ArithToSPIRV.h"
#include "mlir/Conversion/FuncToSPIRV/FuncToSPIRV.h"
#include "mlir/Conversion/GPUToSPIRV/GPUToSPIRV.h"
#include "mlir/Conversion/MathToSPIRV/MathToSPIRV.h"
#include "mlir/Conversion/MemRefToSPIRV/MemRefToSPIRV.h"
#include "mlir/Conversion/SCFToSPIRV/SCFToSPIRV.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/SPIRV/Transforms/Passes.h"
#include "mlir/Dialect/SPIRV/Transforms/SPIRVConversion.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/SPIRV/Serialization.h"

#include "spirv-tools/libspirv.hpp"

using namespace mlir;

namespace tessera::backend {
namespace {

/// tile.push_constant off of size  =>  load of word off/4 of the kernel's one push-constant
/// block (a struct of size/4 i32 words), as the runtime fills it with vkCmdPushConstants.
struct PushConstantLowering final : OpConversionPattern<tile::PushConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(tile::PushConstantOp op, OpAdaptor,
                                ConversionPatternRewriter &r) const override {
    Value v = spirv::getPushConstantValue(op, op.getBlockSize() / 4, op.getOffset() / 4,
                                          r.getI32Type(), r);
    if (!v)
      return r.notifyMatchFailure(op, "cannot create the push-constant block");
    r.replaceOp(op, v);
    return success();
  }
};

} // namespace

void registerSPIRVBackend(DialectRegistry &registry) {
  registry.insert<spirv::SPIRVDialect, math::MathDialect>();
}

LogicalResult lowerGPUToSPIRV(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
  for (gpu::GPUModuleOp gpuModule : gpuModules) {
    spirv::TargetEnvAttr targetAttr = spirv::lookupTargetEnvOrDefault(gpuModule);
    std::unique_ptr<ConversionTarget> target = SPIRVConversionTarget::get(targetAttr);
    SPIRVConversionOptions options;
    SPIRVTypeConverter typeConverter(targetAttr, options);
    RewritePatternSet patterns(ctx);
    populateGPUToSPIRVPatterns(typeConverter, patterns);
    ScfToSPIRVContext scfContext;
    populateSCFToSPIRVPatterns(typeConverter, scfContext, patterns);
    arith::populateArithToSPIRVPatterns(typeConverter, patterns);
    populateMathToSPIRVPatterns(typeConverter, patterns);
    populateMemRefToSPIRVPatterns(typeConverter, patterns);
    populateFuncToSPIRVPatterns(typeConverter, patterns);
    patterns.add<PushConstantLowering>(typeConverter, ctx);
    if (failed(applyFullConversion(gpuModule.getOperation(), *target, std::move(patterns))))
      return failure();
  }
  PassManager pm(ctx);
  OpPassManager &spv = pm.nest<spirv::ModuleOp>();
  spv.addPass(spirv::createSPIRVLowerABIAttributesPass());
  spv.addPass(spirv::createSPIRVUpdateVCEPass());
  return pm.run(module);
}

LogicalResult serializeSPIRV(ModuleOp module, std::vector<uint32_t> &words, std::string &error) {
  auto spvModules = module.getOps<spirv::ModuleOp>();
  if (std::distance(spvModules.begin(), spvModules.end()) != 1) {
    error = "expected exactly one spirv.module after lowering";
    return failure();
  }
  SmallVector<uint32_t> out;
  if (failed(spirv::serialize(*spvModules.begin(), out))) {
    error = "SPIR-V serialization failed";
    return failure();
  }
  words.assign(out.begin(), out.end());
  return success();
}

std::string disassembleSPIRV(const std::vector<uint32_t> &words) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_1);
  std::string text;
  if (!tools.Disassemble(words, &text, SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES | SPV_BINARY_TO_TEXT_OPTION_INDENT))
    return "<cannot disassemble>";
  return text;
}

} // namespace tessera::backend

namespace tessera {

Status validateSpirv(std::span<const uint32_t> words) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_1);
  std::string messages;
  tools.SetMessageConsumer([&](spv_message_level_t, const char *, const spv_position_t &pos, const char *msg) {
    messages += "word " + std::to_string(pos.index) + ": " + msg + "\n";
  });
  if (!tools.Validate(words.data(), words.size()))
    return Status(StatusCode::Internal, "generated SPIR-V does not validate (vulkan1.1):\n" + messages);
  return Status();
}

} // namespace tessera
