// Fast-mode dot on f16 for the SPIR-V chip vulkan1.3+coopmat: operands and accumulator staged in
// workgroup memory, each subgroup walks its 16 x 16 blocks of the result with KHR cooperative
// matrices (two 16-deep steps for K = 32), in a SPIR-V 1.6 module that declares the capability.
// Without the chip the same kernel takes the FMA path.
// RUN: tessera-opt %s --convert-tile-to-gpu="target=spirv coop-matrix=1" | FileCheck %s --check-prefix=GPU
// RUN: %tessera compile %s --emit=spirv-mlir --coopmat=yes | FileCheck %s --check-prefix=SPV
// RUN: %tessera compile %s --emit=spirv-mlir | FileCheck %s --check-prefix=PLAIN
// RUN: %tessera compile %s -o %t.tspkg --target=spirv --coopmat=all && test -s %t.tspkg
// RUN: %tessera compile %s --emit=spirv-mlir --coopmat=lanes | FileCheck %s --check-prefix=LANES
// RUN: not %tessera compile %s --emit=spirv-mlir --coopmat=lanes --subgroup-size=16 2>&1 | FileCheck %s --check-prefix=LANES16
// RUN: not %tessera compile %s --emit=spirv-mlir --coopmat=sometimes 2>&1 | FileCheck %s --check-prefix=BAD

// GPU-LABEL: gpu.func @mm
// GPU: gpu.barrier
// GPU: scf.for
// GPU: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 32 : index} : memref<2048xf32, #spirv.storage_class<Workgroup>> -> !gpu.mma_matrix<16x16xf32, "COp">
// GPU: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 32 : index} : memref<2048xf16, #spirv.storage_class<Workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// GPU: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 32 : index} : memref<1024xf16, #spirv.storage_class<Workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
// GPU: gpu.subgroup_mma_compute
// GPU: gpu.subgroup_mma_compute
// GPU-NOT: gpu.subgroup_mma_compute
// GPU: gpu.subgroup_mma_store_matrix
// GPU: gpu.barrier

// SPV: spirv.module {{.*}} Logical GLSL450 requires #spirv.vce<v1.6, [{{.*}}CooperativeMatrixKHR{{.*}}], [{{.*}}SPV_KHR_cooperative_matrix{{.*}}]>
// SPV: spirv.KHR.CooperativeMatrixLoad {{.*}} : !spirv.ptr<f32, Workgroup>, i32 -> !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// SPV: spirv.KHR.CooperativeMatrixLoad {{.*}} -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>
// SPV: spirv.KHR.CooperativeMatrixLoad {{.*}} -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixB>
// SPV: spirv.KHR.CooperativeMatrixMulAdd
// SPV: spirv.KHR.CooperativeMatrixMulAdd
// SPV: spirv.KHR.CooperativeMatrixStore

// With the accumulator lanes as mma.sync's fragments (chip vulkan1.3+coopmat+mma-lanes) only A
// and B are staged (f16); each lane's 8 accumulator values go into and out of the matrices.
// LANES-NOT: !spirv.array<2048 x f32>
// LANES: spirv.CompositeInsert {{.*}} : f32 into !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// LANES: spirv.KHR.CooperativeMatrixMulAdd
// LANES: spirv.CompositeExtract {{.*}} : !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
// LANES16: the chip vulkan1.3+coopmat+mma-lanes places accumulators in 32 lanes; subgroup size 16 was asked
// BAD: --coopmat wants no, yes, lanes, bf16, bf16-lanes, lanes-wg, bf16-lanes-wg, both or all; got 'sometimes'

// PLAIN: spirv.module {{.*}} Logical GLSL450 requires #spirv.vce<v1.0
// PLAIN-NOT: CooperativeMatrix
func.func @mm(%x: !tile.ptr<f16>, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.numerics = "fast"} {
  %ia = tile.arange 0, 2048 : tensor<2048xi32>
  %oa = tile.reshape %ia : tensor<2048xi32> -> tensor<64x32xi32>
  %a = tile.load %x[%oa] : (!tile.ptr<f16>, tensor<64x32xi32>) -> tensor<64x32xf16>
  %ib = tile.arange 0, 1024 : tensor<1024xi32>
  %ob = tile.reshape %ib : tensor<1024xi32> -> tensor<32x32xi32>
  %b = tile.load %x[%ob] : (!tile.ptr<f16>, tensor<32x32xi32>) -> tensor<32x32xf16>
  %zero = arith.constant dense<0.0> : tensor<64x32xf32>
  %d = tile.dot %a, %b, %zero : tensor<64x32xf16>, tensor<32x32xf16> -> tensor<64x32xf32>
  tile.store %y[%oa], %d : (!tile.ptr<f32>, tensor<64x32xi32>, tensor<64x32xf32>) -> ()
  return
}
