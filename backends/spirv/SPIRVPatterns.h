// Conversion patterns of the SPIR-V backend kept in files of their own (one op family per file),
// for GPUToSPIRV.cpp's conversion.
#pragma once

namespace mlir {
class RewritePatternSet;
class SPIRVTypeConverter;
} // namespace mlir

namespace tessera::backend {

/// tile.workgroup_matmul => workgroup-scope cooperative matrices (WorkgroupMatmulToSPIRV.cpp).
void populateWorkgroupMatmulToSPIRVPatterns(mlir::SPIRVTypeConverter &converter, mlir::RewritePatternSet &patterns);

} // namespace tessera::backend
