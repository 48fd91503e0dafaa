// Scalar arguments as Vulkan specialization constants (SPIR-V). In a kernel whose block matmul
// runs on workgroup-scope cooperative matrices (WorkgroupMatmulToSPIRV.cpp), NVIDIA's driver
// stages the matrices well only where it knows their strides when it compiles the pipeline:
// run 76b (H100, docs/bench.md) timed 05_matmul's 128 x 256 x 64 code at 45 TFLOP/s with M, N
// and K read from push constants and at 297 with them as specialization constants (304 as
// literal constants; N and K are what count). specializeScalars turns each named argument's
// push-constant load into a reference to a specialization constant whose SpecId is the
// argument's index: the runtime reads the SpecId decorations and compiles a pipeline for each set
// of values the launches pass (docs/runtime.md).
#include "SPIRVTarget.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <map>

using namespace mlir;

namespace tessera::backend {

LogicalResult specializeScalars(ModuleOp module, const std::vector<ArgSpec> &signature, std::span<const uint32_t> args,
                                std::string &error) {
  std::map<uint32_t, uint32_t> argAtWord; // push-constant word => argument index
  for (uint32_t i : args) {
    if (i >= signature.size() || signature[i].kind != ArgKind::Scalar || signature[i].dtype != DType::I32) {
      error = "argument " + std::to_string(i) + " is not an i32 scalar: only those become specialization constants";
      return failure();
    }
    argAtWord[signature[i].abiSlot / 4] = i;
  }
  LogicalResult result = success();
  module.walk([&](spirv::ModuleOp spv) {
    OpBuilder b(spv.getBody(), spv.getBody()->begin());
    std::map<uint32_t, spirv::SpecConstantOp> specs; // argument index => its constant
    spv.walk([&](spirv::LoadOp load) {
      auto chain = load.getPtr().getDefiningOp<spirv::AccessChainOp>();
      auto base = chain ? chain.getBasePtr().getDefiningOp<spirv::AddressOfOp>() : nullptr;
      auto ptr = base ? dyn_cast<spirv::PointerType>(base.getPointer().getType()) : nullptr;
      if (!ptr || ptr.getStorageClass() != spirv::StorageClass::PushConstant || chain.getIndices().size() != 2)
        return;
      auto word = chain.getIndices()[1].getDefiningOp<spirv::ConstantOp>();
      auto index = word ? dyn_cast<IntegerAttr>(word.getValue()) : nullptr;
      auto it = index ? argAtWord.find(uint32_t(index.getInt())) : argAtWord.end();
      if (it == argAtWord.end()) return;
      if (!load.getType().isSignlessInteger(32)) {
        load.emitError("push-constant word of argument ") << it->second << " is not loaded as i32";
        result = failure();
        return;
      }
      auto &spec = specs[it->second];
      if (!spec) {
        spec = spirv::SpecConstantOp::create(b, load.getLoc(), ("tessera_arg" + std::to_string(it->second)),
                                             b.getI32IntegerAttr(0));
        spec->setAttr("spec_id", b.getI32IntegerAttr(int32_t(it->second)));
      }
      OpBuilder at(load);
      Value value = spirv::ReferenceOfOp::create(at, load.getLoc(), at.getI32Type(), SymbolRefAttr::get(spec));
      load.replaceAllUsesWith(value);
      load.erase();
    });
  });
  if (failed(result)) error = "specialization constants: a push-constant load of an unexpected type";
  return result;
}

} // namespace tessera::backend
