// Registration of everything the compiler's pipelines use (dialects, interfaces, passes).
#pragma once

namespace mlir {
class DialectRegistry;
class OpPassManager;
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
/// Deliberate breakage of the portable lowering, for the suite's self-test (docs/numerics.md):
/// TESSERA_FAULT=contraction allows contraction of every float op (and leaves NoContraction off
/// on SPIR-V), =reduce-order sums portable tiles in the fast order. True when TESSERA_FAULT names `fault`.
bool faultInjected(const char *fault);

} // namespace tessera::backend
