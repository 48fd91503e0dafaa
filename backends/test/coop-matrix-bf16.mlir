// Fast-mode dot on bf16 for the SPIR-V chips vulkan1.3+coopmat+bf16[+mma-lanes]
// (VK_KHR_shader_bfloat16): the gpu dialect's matrices have no bf16, so A and B are staged as
// their bits in f16 arrays and loaded as f16 matrices marked tessera.bf16_matrix; the SPIR-V
// lowering loads them as bf16 matrices (SPV_KHR_bfloat16) and the module declares
// BFloat16CooperativeMatrixKHR. Without +bf16 the same kernel takes the FMA path.
// RUN: tessera-opt %s --convert-tile-to-gpu="target=spirv coop-matrix=1 coop-bf16=1" | FileCheck %s --check-prefix=GPU
// RUN: %tessera compile %s --emit=spirv-mlir --coopmat=bf16 | FileCheck %s --check-prefix=SPV
// RUN: %tessera compile %s --emit=spirv-mlir --coopmat=bf16-lanes | FileCheck %s --check-prefix=LANES
// RUN: %tessera compile %s --emit=spirv-mlir --coopmat=lanes | FileCheck %s --check-prefix=NOBF16
// RUN: %tessera compile %s -o %t.tspkg --target=spirv --coopmat=all && test -s %t.tspkg

// GPU-LABEL: gpu.func @mm
// GPU: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 32 : index} : memref<2048xf32, #spirv.storage_class<Workgroup>> -> !gpu.mma_matrix<16x16xf32, "COp">
// GPU-NOT: tessera.bf16_matrix
// GPU: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 32 : index, tessera.bf16_matrix} : memref<2048xf16, #spirv.storage_class<Workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// GPU: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 32 : index, tessera.bf16_matrix} : memref<1024xf16, #spirv.storage_class<Workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// GPU: gpu.subgroup_mma_compute

// SPV: spirv.module {{.*}} requires #spirv.vce<v1.6, [{{.*}}BFloat16TypeKHR{{.*}}BFloat16CooperativeMatrixKHR{{.*}}], [{{.*}}SPV_KHR_bfloat16{{.*}}]>
// SPV: spirv.KHR.CooperativeMatrixLoad {{.*}} : !spirv.ptr<f32, Workgroup>, i32 -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// SPV: spirv.KHR.CooperativeMatrixLoad {{.*}} : !spirv.ptr<f16, Workgroup>, i32 -> !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixA>
// SPV: spirv.KHR.CooperativeMatrixLoad {{.*}} : !spirv.ptr<f16, Workgroup>, i32 -> !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixB>
// SPV: spirv.KHR.CooperativeMatrixMulAdd {{.*}} : !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixA>, !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixB> -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// SPV-NOT: coopmatrix<16x16xf16
// SPV-NOT: tessera.bf16_matrix

// LANES: BFloat16CooperativeMatrixKHR
// LANES: spirv.KHR.CooperativeMatrixMulAdd {{.*}} : !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixA>, !spirv.coopmatrix<16x16xbf16, Subgroup, MatrixB>
// LANES: spirv.CompositeExtract {{.*}} : !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>

// NOBF16-NOT: BFloat16
// NOBF16-NOT: spirv.KHR.CooperativeMatrix
func.func @mm(%x: !tile.ptr<bf16>, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.numerics = "fast"} {
  %ia = tile.arange 0, 2048 : tensor<2048xi32>
  %oa = tile.reshape %ia : tensor<2048xi32> -> tensor<64x32xi32>
  %a = tile.load %x[%oa] : (!tile.ptr<bf16>, tensor<64x32xi32>) -> tensor<64x32xbf16>
  %ib = tile.arange 0, 1024 : tensor<1024xi32>
  %ob = tile.reshape %ib : tensor<1024xi32> -> tensor<32x32xi32>
  %b = tile.load %x[%ob] : (!tile.ptr<bf16>, tensor<32x32xi32>) -> tensor<32x32xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x32xf32>
  %d = tile.dot %a, %b, %zero : tensor<64x32xbf16>, tensor<32x32xbf16> -> tensor<64x32xf32>
  tile.store %y[%oa], %d : (!tile.ptr<f32>, tensor<64x32xi32>, tensor<64x32xf32>) -> ()
  return
}
