// Registration of everything the compiler's pipelines use (dialects, interfaces, passes).
#pragma once

namespace mlir {
class DialectRegistry;
}

namespace tessera::backend {

/// Every dialect, interface and translation a compile needs, built once.
const mlir::DialectRegistry &compilerRegistry();
/// Adds the same to `registry` (tessera-opt).
void registerCompilerDialects(mlir::DialectRegistry &registry);

} // namespace tessera::backend
