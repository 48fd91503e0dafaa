// Portable numerics on SPIR-V, applied to the spirv.module after the conversion: no
// contraction anywhere, and float controls that keep denormals, signed zeros, infinities and
// NaNs (a driver is otherwise free to flush the first and assume away the rest).
//
//   spirv.FAdd/FSub/FMul            => the same op with {no_contraction} (OpDecorate NoContraction)
//   each entry point, each float width W the module uses (16, 32, 64)
//                                   => OpExecutionMode DenormPreserve W, SignedZeroInfNanPreserve W
//
// The runtime refuses the module on a device without the matching float-controls property
// (shaderDenormPreserveFloat32, ...), naming it. With software f32 denormals
// (SoftF32Denormals.cpp) every f32 float instruction is checked for what a flush could change,
// so DenormPreserve 32 is not declared.
#include "SPIRVTarget.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/IR/TypeUtilities.h"

#include <set>

using namespace mlir;

namespace tessera::backend {

void applyPortableFloatControls(spirv::ModuleOp module, bool noContraction, bool softF32Denormals) {
  MLIRContext *ctx = module.getContext();
  std::set<unsigned> widths;
  module.walk([&](Operation *op) {
    if (noContraction && isa<spirv::FAddOp, spirv::FSubOp, spirv::FMulOp>(op))
      op->setAttr("no_contraction", UnitAttr::get(ctx));
    for (Type t : op->getResultTypes()) {
      Type e = getElementTypeOrSelf(t);
      if (auto v = dyn_cast<VectorType>(t))
        e = v.getElementType();
      if (isa<FloatType>(e))
        widths.insert(e.getIntOrFloatBitWidth());
    }
  });
  if (widths.empty())
    return;
  OpBuilder b(ctx);
  bool denormPreserve = false;
  SmallVector<spirv::EntryPointOp> entries(module.getOps<spirv::EntryPointOp>());
  for (spirv::EntryPointOp entry : entries) {
    auto fn = module.lookupSymbol<spirv::FuncOp>(entry.getFn());
    if (!fn)
      continue;
    b.setInsertionPointAfter(entry);
    for (unsigned w : widths) {
      if (!(softF32Denormals && w == 32)) {
        spirv::ExecutionModeOp::create(b, entry.getLoc(), fn, spirv::ExecutionMode::DenormPreserve,
                                       ArrayRef<int32_t>{int32_t(w)});
        denormPreserve = true;
      }
      spirv::ExecutionModeOp::create(b, entry.getLoc(), fn, spirv::ExecutionMode::SignedZeroInfNanPreserve,
                                     ArrayRef<int32_t>{int32_t(w)});
    }
  }
  auto vce = module.getVceTriple();
  if (!vce)
    return;
  SmallVector<spirv::Capability> caps(vce->getCapabilities());
  // A bare DenormPreserve capability would be checked as 32-bit by the runtime: only with a mode.
  for (spirv::Capability c : {spirv::Capability::DenormPreserve, spirv::Capability::SignedZeroInfNanPreserve})
    if (!llvm::is_contained(caps, c) && (denormPreserve || c != spirv::Capability::DenormPreserve))
      caps.push_back(c);
  SmallVector<spirv::Extension> exts(vce->getExtensions());
  if (!llvm::is_contained(exts, spirv::Extension::SPV_KHR_float_controls))
    exts.push_back(spirv::Extension::SPV_KHR_float_controls);
  module.setVceTripleAttr(spirv::VerCapExtAttr::get(vce->getVersion(), caps, exts, ctx));
}

} // namespace tessera::backend
