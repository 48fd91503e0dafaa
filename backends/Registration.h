// Registration of everything the compiler's pipelines use (dialects, interfaces, passes).
#pragma once

#include "mlir/Support/LogicalResult.h"

namespace mlir {
class DialectRegistry;
class OpPassManager;
class Operation;
class PassManager;
}

namespace tessera::backend {

/// Every dialect, interface and translation a compile needs, built once.
const mlir::DialectRegistry &compilerRegistry();
/// Adds the same to `registry` (tessera-opt).
void registerCompilerDialects(mlir::DialectRegistry &registry);
/// The tile-level passes every compile runs before the target split, and the interpreter runs
/// for golden bits: in portable mode the expansion of math into basic operations, then
/// canonicalization. f32 `sqrt` expands too, into a correctly rounded sequence, and so do `/`
/// and `fma` unless `nativeDivFma` (PTX, whose div.rn and fma.rn are correctly rounded: the bits
/// are the same either way; SPIR-V does not pin them).
void addTilePasses(mlir::OpPassManager &pm, bool portable, bool nativeDivFma = false);
/// Runs `pm` on `op`, verifying the IR once at the end instead of after every pass (which cost a
/// tenth of a compile: each verification walks the whole module); TESSERA_VERIFY_EACH_PASS=1
/// (set by scripts/test.sh) verifies after every pass, to name the pass that broke the IR. A
/// failed verification reports its diagnostics like a failed pass.
mlir::LogicalResult runPasses(mlir::PassManager &pm, mlir::Operation *op);
/// Deliberate breakage of the portable lowering, for the suite's self-test (docs/numerics.md):
/// TESSERA_FAULT=contraction allows contraction of every float op (and leaves NoContraction off
/// on SPIR-V), =reduce-order sums portable tiles in the fast order. True when TESSERA_FAULT names `fault`.
bool faultInjected(const char *fault);

} // namespace tessera::backend
