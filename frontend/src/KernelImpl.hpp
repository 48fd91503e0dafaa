// What a traced (or parsed) kernel is inside the compiler: its MLIR context, tile module and
// signature. Shared by the front end and the backends; never included by user code.
#pragma once

#include "tessera/tl.hpp"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

namespace mlir::func {
class FuncOp;
}

namespace tessera::detail {

struct KernelImpl {
  std::shared_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module; // holds exactly one tile kernel
  std::string name;
  std::vector<ArgSpec> signature;
  uint32_t numWarps = 4;
  Numerics numerics = Numerics::Fast;

  mlir::func::FuncOp kernelFunc() const;
};

/// The function of `module` marked tile.kernel, or null.
mlir::func::FuncOp kernelFuncOf(mlir::ModuleOp module);

/// A context with the dialects tile IR is built from (tile, arith, func) loaded.
std::shared_ptr<mlir::MLIRContext> makeTileContext();

/// Letters, digits and '_', not starting with a digit: what kernel, argument (and generated C++)
/// names may be.
bool isIdentifier(std::string_view s);

/// Fills in each argument's abiSlot: buffers get consecutive Vulkan bindings in order; scalars
/// get naturally aligned byte offsets in one push-constant block, in order.
void assignAbiSlots(std::vector<ArgSpec> &signature);

/// The signature of a `tile.kernel` function (names, kinds, dtypes, ABI slots), or nothing
/// with `*error` saying what is wrong.
std::optional<std::vector<ArgSpec>> signatureOf(mlir::func::FuncOp f, std::string *error);

/// Reads the signature and options of a `tile.kernel` function; the error names what is wrong.
Result<TracedKernel> kernelFromFunc(std::shared_ptr<mlir::MLIRContext> context,
                              mlir::OwningOpRef<mlir::ModuleOp> module);

} // namespace tessera::detail
