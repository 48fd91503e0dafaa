// Block matmuls on workgroup-scope cooperative matrices (chips ...+wgmat, VK_NV_cooperative_matrix2):
// the k loop of dot(load(A window), load(B window)) and its epilogue (a row bias, the conversion,
// one masked store) become one tile.workgroup_matmul under `row0 < M && col0 < N`, its offsets and
// strides rounded down to multiples of 8 (they are: the kernel notes M, N, K divisible by 64, 64,
// 32, which makes them so; the runtime runs this code only for such sizes); what computed offsets
// and masks alone is gone. The SPIR-V loads 64 x 32 and 32 x 64 workgroup-scope matrices straight
// from the buffers in a structured loop carrying the accumulator, adds the bias loaded with stride
// 0, converts to f16 and stores. Not formed: an epilogue with anything else (relu), or a program of
// more than 256 invocations (16 warps).
// RUN: tessera-opt %s --convert-tile-to-gpu="target=spirv coop-matrix=1 mma-lanes=1 workgroup-matrices=1" | FileCheck %s
// RUN: %tessera compile %s --emit=spirv-mlir --coopmat=lanes-wg | FileCheck %s --check-prefix=SPV
// RUN: tessera-opt %s --convert-tile-to-gpu="target=spirv coop-matrix=1 mma-lanes=1" | FileCheck %s --check-prefix=PLAIN

// CHECK-LABEL: gpu.func @mm(
// CHECK-SAME: tessera.shared_bytes = 0 : i32, tessera.workgroup_divisors = array<i64: 4, 64, 5, 64, 6, 32>
// CHECK-NOT: tile.load
// CHECK: %[[INR:.*]] = arith.cmpi slt
// CHECK: %[[INC:.*]] = arith.cmpi slt
// CHECK: %[[IN:.*]] = arith.andi %[[INR]], %[[INC]] : i1
// CHECK: scf.if %[[IN]] {
// CHECK: arith.andi %{{.*}}, %c-8_i32 : i32
// CHECK: tile.workgroup_matmul %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}] steps %{{.*}} -> %{{.*}}[%{{.*}}, %{{.*}}] bias %{{.*}}[%{{.*}}] {block_k = 32 : i64, block_m = 64 : i64, block_n = 64 : i64, in_type = f16} : memref<?xf16, #spirv.storage_class<StorageBuffer>>, memref<?xf16, #spirv.storage_class<StorageBuffer>>, memref<?xf16, #spirv.storage_class<StorageBuffer>>, memref<?xf32, #spirv.storage_class<StorageBuffer>>
// CHECK-NOT: scf.for
// CHECK-NOT: gpu.subgroup_mma
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @relu(
// CHECK-NOT: tessera.workgroup_divisors
// CHECK-NOT: tile.workgroup_matmul
// CHECK: gpu.subgroup_mma_compute
// CHECK-LABEL: gpu.func @wide(
// CHECK-NOT: tessera.workgroup_divisors
// CHECK-NOT: tile.workgroup_matmul
// CHECK: gpu.subgroup_mma_compute

// SPV-LABEL: spirv.func @mm(
// SPV: spirv.CompositeConstruct %{{.*}} : (f32) -> !spirv.coopmatrix<64x64xf32, Workgroup, MatrixAcc>
// SPV: spirv.mlir.loop -> !spirv.coopmatrix<64x64xf32, Workgroup, MatrixAcc> {
// SPV: spirv.KHR.CooperativeMatrixLoad %{{.*}}, %{{.*}}, <RowMajor> : !spirv.ptr<f16, StorageBuffer>, i32 -> !spirv.coopmatrix<64x32xf16, Workgroup, MatrixA>
// SPV: spirv.KHR.CooperativeMatrixLoad %{{.*}}, %{{.*}}, <RowMajor> : !spirv.ptr<f16, StorageBuffer>, i32 -> !spirv.coopmatrix<32x64xf16, Workgroup, MatrixB>
// SPV: spirv.KHR.CooperativeMatrixMulAdd
// SPV: spirv.mlir.merge
// SPV: spirv.KHR.CooperativeMatrixLoad %{{.*}}, %cst0_i32{{.*}}, <RowMajor> : !spirv.ptr<f32, StorageBuffer>, i32 -> !spirv.coopmatrix<64x64xf32, Workgroup, MatrixAcc>
// SPV: spirv.FAdd %{{.*}}, %{{.*}} : !spirv.coopmatrix<64x64xf32, Workgroup, MatrixAcc>
// SPV: spirv.FConvert %{{.*}} : !spirv.coopmatrix<64x64xf32, Workgroup, MatrixAcc> to !spirv.coopmatrix<64x64xf16, Workgroup, MatrixAcc>
// SPV: spirv.KHR.CooperativeMatrixStore
// SPV-LABEL: spirv.func @relu(
// SPV-NOT: Workgroup, MatrixA
// SPV: spirv.KHR.CooperativeMatrixMulAdd

// Without +wgmat nothing changes.
// PLAIN-NOT: tile.workgroup_matmul
// PLAIN-NOT: tessera.workgroup_divisors

module {
  func.func @mm(%arg0: !tile.ptr<f16> {tile.name = "a"}, %arg1: !tile.ptr<f16> {tile.name = "b"}, %arg2: !tile.ptr<f32> {tile.name = "bias"}, %arg3: !tile.ptr<f16> {tile.name = "c"}, %arg4: i32 {tile.name = "M"}, %arg5: i32 {tile.name = "N"}, %arg6: i32 {tile.name = "K"}) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.numerics = "fast"} {
    %0 = tile.program_id 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %1 = arith.muli %0, %c64_i32 : i32
    %2 = tile.arange 0, 64 : tensor<64xi32>
    %3 = tile.splat %1 : tensor<64xi32>
    %4 = arith.addi %3, %2 : tensor<64xi32>
    %5 = tile.expand_dims %4, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %6 = tile.program_id 1 : i32
    %c64_i32_0 = arith.constant 64 : i32
    %7 = arith.muli %6, %c64_i32_0 : i32
    %8 = tile.arange 0, 64 : tensor<64xi32>
    %9 = tile.splat %7 : tensor<64xi32>
    %10 = arith.addi %9, %8 : tensor<64xi32>
    %11 = tile.expand_dims %10, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %cst = arith.constant 0.000000e+00 : f32
    %12 = tile.splat %cst : tensor<64x64xf32>
    %c0_i32 = arith.constant 0 : i32
    %c32_i32 = arith.constant 32 : i32
    %13 = scf.for %arg7 = %c0_i32 to %arg6 step %c32_i32 iter_args(%arg8 = %12) -> (tensor<64x64xf32>)  : i32 {
      %33 = tile.arange 0, 32 : tensor<32xi32>
      %34 = tile.splat %arg7 : tensor<32xi32>
      %35 = arith.addi %34, %33 : tensor<32xi32>
      %36 = tile.expand_dims %35, 0 : tensor<32xi32> -> tensor<1x32xi32>
      %37 = tile.arange 0, 32 : tensor<32xi32>
      %38 = tile.splat %arg7 : tensor<32xi32>
      %39 = arith.addi %38, %37 : tensor<32xi32>
      %40 = tile.expand_dims %39, 1 : tensor<32xi32> -> tensor<32x1xi32>
      %41 = tile.splat %arg6 : tensor<64x1xi32>
      %42 = arith.muli %5, %41 : tensor<64x1xi32>
      %43 = tile.broadcast %42 : tensor<64x1xi32> -> tensor<64x32xi32>
      %44 = tile.broadcast %36 : tensor<1x32xi32> -> tensor<64x32xi32>
      %45 = arith.addi %43, %44 : tensor<64x32xi32>
      %46 = tile.splat %arg4 : tensor<64x1xi32>
      %47 = arith.cmpi slt, %5, %46 : tensor<64x1xi32>
      %48 = tile.splat %arg6 : tensor<1x32xi32>
      %49 = arith.cmpi slt, %36, %48 : tensor<1x32xi32>
      %50 = tile.broadcast %47 : tensor<64x1xi1> -> tensor<64x32xi1>
      %51 = tile.broadcast %49 : tensor<1x32xi1> -> tensor<64x32xi1>
      %52 = arith.andi %50, %51 : tensor<64x32xi1>
      %cst_2 = arith.constant 0.000000e+00 : f16
      %53 = tile.splat %cst_2 : tensor<64x32xf16>
      %54 = tile.load %arg0[%45] mask %52 other %53 : (!tile.ptr<f16>, tensor<64x32xi32>, tensor<64x32xi1>, tensor<64x32xf16>) -> tensor<64x32xf16>
      %55 = tile.splat %arg5 : tensor<32x1xi32>
      %56 = arith.muli %40, %55 : tensor<32x1xi32>
      %57 = tile.broadcast %56 : tensor<32x1xi32> -> tensor<32x64xi32>
      %58 = tile.broadcast %11 : tensor<1x64xi32> -> tensor<32x64xi32>
      %59 = arith.addi %57, %58 : tensor<32x64xi32>
      %60 = tile.splat %arg6 : tensor<32x1xi32>
      %61 = arith.cmpi slt, %40, %60 : tensor<32x1xi32>
      %62 = tile.splat %arg5 : tensor<1x64xi32>
      %63 = arith.cmpi slt, %11, %62 : tensor<1x64xi32>
      %64 = tile.broadcast %61 : tensor<32x1xi1> -> tensor<32x64xi1>
      %65 = tile.broadcast %63 : tensor<1x64xi1> -> tensor<32x64xi1>
      %66 = arith.andi %64, %65 : tensor<32x64xi1>
      %cst_3 = arith.constant 0.000000e+00 : f16
      %67 = tile.splat %cst_3 : tensor<32x64xf16>
      %68 = tile.load %arg1[%59] mask %66 other %67 : (!tile.ptr<f16>, tensor<32x64xi32>, tensor<32x64xi1>, tensor<32x64xf16>) -> tensor<32x64xf16>
      %69 = tile.dot %54, %68, %arg8 : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
      scf.yield %69 : tensor<64x64xf32>
    }
    %14 = tile.splat %arg5 : tensor<1x64xi32>
    %15 = arith.cmpi slt, %11, %14 : tensor<1x64xi32>
    %cst_1 = arith.constant 0.000000e+00 : f32
    %16 = tile.splat %cst_1 : tensor<1x64xf32>
    %17 = tile.load %arg2[%11] mask %15 other %16 : (!tile.ptr<f32>, tensor<1x64xi32>, tensor<1x64xi1>, tensor<1x64xf32>) -> tensor<1x64xf32>
    %18 = tile.broadcast %17 : tensor<1x64xf32> -> tensor<64x64xf32>
    %19 = arith.addf %13, %18 : tensor<64x64xf32>
    %20 = tile.splat %arg5 : tensor<64x1xi32>
    %21 = arith.muli %5, %20 : tensor<64x1xi32>
    %22 = tile.broadcast %21 : tensor<64x1xi32> -> tensor<64x64xi32>
    %23 = tile.broadcast %11 : tensor<1x64xi32> -> tensor<64x64xi32>
    %24 = arith.addi %22, %23 : tensor<64x64xi32>
    %25 = arith.truncf %19 : tensor<64x64xf32> to tensor<64x64xf16>
    %26 = tile.splat %arg4 : tensor<64x1xi32>
    %27 = arith.cmpi slt, %5, %26 : tensor<64x1xi32>
    %28 = tile.splat %arg5 : tensor<1x64xi32>
    %29 = arith.cmpi slt, %11, %28 : tensor<1x64xi32>
    %30 = tile.broadcast %27 : tensor<64x1xi1> -> tensor<64x64xi1>
    %31 = tile.broadcast %29 : tensor<1x64xi1> -> tensor<64x64xi1>
    %32 = arith.andi %30, %31 : tensor<64x64xi1>
    tile.store %arg3[%24], %25 mask %32 : (!tile.ptr<f16>, tensor<64x64xi32>, tensor<64x64xf16>, tensor<64x64xi1>) -> ()
    return
  }
  func.func @relu(%arg0: !tile.ptr<f16> {tile.name = "a"}, %arg1: !tile.ptr<f16> {tile.name = "b"}, %arg2: !tile.ptr<f32> {tile.name = "bias"}, %arg3: !tile.ptr<f16> {tile.name = "c"}, %arg4: i32 {tile.name = "M"}, %arg5: i32 {tile.name = "N"}, %arg6: i32 {tile.name = "K"}) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.numerics = "fast"} {
    %0 = tile.program_id 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %1 = arith.muli %0, %c64_i32 : i32
    %2 = tile.arange 0, 64 : tensor<64xi32>
    %3 = tile.splat %1 : tensor<64xi32>
    %4 = arith.addi %3, %2 : tensor<64xi32>
    %5 = tile.expand_dims %4, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %6 = tile.program_id 1 : i32
    %c64_i32_0 = arith.constant 64 : i32
    %7 = arith.muli %6, %c64_i32_0 : i32
    %8 = tile.arange 0, 64 : tensor<64xi32>
    %9 = tile.splat %7 : tensor<64xi32>
    %10 = arith.addi %9, %8 : tensor<64xi32>
    %11 = tile.expand_dims %10, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %cst = arith.constant 0.000000e+00 : f32
    %12 = tile.splat %cst : tensor<64x64xf32>
    %c0_i32 = arith.constant 0 : i32
    %c32_i32 = arith.constant 32 : i32
    %13 = scf.for %arg7 = %c0_i32 to %arg6 step %c32_i32 iter_args(%arg8 = %12) -> (tensor<64x64xf32>)  : i32 {
      %33 = tile.arange 0, 32 : tensor<32xi32>
      %34 = tile.splat %arg7 : tensor<32xi32>
      %35 = arith.addi %34, %33 : tensor<32xi32>
      %36 = tile.expand_dims %35, 0 : tensor<32xi32> -> tensor<1x32xi32>
      %37 = tile.arange 0, 32 : tensor<32xi32>
      %38 = tile.splat %arg7 : tensor<32xi32>
      %39 = arith.addi %38, %37 : tensor<32xi32>
      %40 = tile.expand_dims %39, 1 : tensor<32xi32> -> tensor<32x1xi32>
      %41 = tile.splat %arg6 : tensor<64x1xi32>
      %42 = arith.muli %5, %41 : tensor<64x1xi32>
      %43 = tile.broadcast %42 : tensor<64x1xi32> -> tensor<64x32xi32>
      %44 = tile.broadcast %36 : tensor<1x32xi32> -> tensor<64x32xi32>
      %45 = arith.addi %43, %44 : tensor<64x32xi32>
      %46 = tile.splat %arg4 : tensor<64x1xi32>
      %47 = arith.cmpi slt, %5, %46 : tensor<64x1xi32>
      %48 = tile.splat %arg6 : tensor<1x32xi32>
      %49 = arith.cmpi slt, %36, %48 : tensor<1x32xi32>
      %50 = tile.broadcast %47 : tensor<64x1xi1> -> tensor<64x32xi1>
      %51 = tile.broadcast %49 : tensor<1x32xi1> -> tensor<64x32xi1>
      %52 = arith.andi %50, %51 : tensor<64x32xi1>
      %cst_2 = arith.constant 0.000000e+00 : f16
      %53 = tile.splat %cst_2 : tensor<64x32xf16>
      %54 = tile.load %arg0[%45] mask %52 other %53 : (!tile.ptr<f16>, tensor<64x32xi32>, tensor<64x32xi1>, tensor<64x32xf16>) -> tensor<64x32xf16>
      %55 = tile.splat %arg5 : tensor<32x1xi32>
      %56 = arith.muli %40, %55 : tensor<32x1xi32>
      %57 = tile.broadcast %56 : tensor<32x1xi32> -> tensor<32x64xi32>
      %58 = tile.broadcast %11 : tensor<1x64xi32> -> tensor<32x64xi32>
      %59 = arith.addi %57, %58 : tensor<32x64xi32>
      %60 = tile.splat %arg6 : tensor<32x1xi32>
      %61 = arith.cmpi slt, %40, %60 : tensor<32x1xi32>
      %62 = tile.splat %arg5 : tensor<1x64xi32>
      %63 = arith.cmpi slt, %11, %62 : tensor<1x64xi32>
      %64 = tile.broadcast %61 : tensor<32x1xi1> -> tensor<32x64xi1>
      %65 = tile.broadcast %63 : tensor<1x64xi1> -> tensor<32x64xi1>
      %66 = arith.andi %64, %65 : tensor<32x64xi1>
      %cst_3 = arith.constant 0.000000e+00 : f16
      %67 = tile.splat %cst_3 : tensor<32x64xf16>
      %68 = tile.load %arg1[%59] mask %66 other %67 : (!tile.ptr<f16>, tensor<32x64xi32>, tensor<32x64xi1>, tensor<32x64xf16>) -> tensor<32x64xf16>
      %69 = tile.dot %54, %68, %arg8 : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
      scf.yield %69 : tensor<64x64xf32>
    }
    %14 = tile.splat %arg5 : tensor<1x64xi32>
    %15 = arith.cmpi slt, %11, %14 : tensor<1x64xi32>
    %cst_1 = arith.constant 0.000000e+00 : f32
    %16 = tile.splat %cst_1 : tensor<1x64xf32>
    %17 = tile.load %arg2[%11] mask %15 other %16 : (!tile.ptr<f32>, tensor<1x64xi32>, tensor<1x64xi1>, tensor<1x64xf32>) -> tensor<1x64xf32>
    %18 = tile.broadcast %17 : tensor<1x64xf32> -> tensor<64x64xf32>
    %19 = arith.addf %13, %18 : tensor<64x64xf32>
    %20 = tile.splat %arg5 : tensor<64x1xi32>
    %21 = arith.muli %5, %20 : tensor<64x1xi32>
    %22 = tile.broadcast %21 : tensor<64x1xi32> -> tensor<64x64xi32>
    %23 = tile.broadcast %11 : tensor<1x64xi32> -> tensor<64x64xi32>
    %24 = arith.addi %22, %23 : tensor<64x64xi32>
    %cz = arith.constant 0.000000e+00 : f32
    %zs = tile.splat %cz : tensor<64x64xf32>
    %rl = arith.maximumf %19, %zs : tensor<64x64xf32>
    %25 = arith.truncf %rl : tensor<64x64xf32> to tensor<64x64xf16>
    %26 = tile.splat %arg4 : tensor<64x1xi32>
    %27 = arith.cmpi slt, %5, %26 : tensor<64x1xi32>
    %28 = tile.splat %arg5 : tensor<1x64xi32>
    %29 = arith.cmpi slt, %11, %28 : tensor<1x64xi32>
    %30 = tile.broadcast %27 : tensor<64x1xi1> -> tensor<64x64xi1>
    %31 = tile.broadcast %29 : tensor<1x64xi1> -> tensor<64x64xi1>
    %32 = arith.andi %30, %31 : tensor<64x64xi1>
    tile.store %arg3[%24], %25 mask %32 : (!tile.ptr<f16>, tensor<64x64xi32>, tensor<64x64xf16>, tensor<64x64xi1>) -> ()
    return
  }
  func.func @wide(%arg0: !tile.ptr<f16> {tile.name = "a"}, %arg1: !tile.ptr<f16> {tile.name = "b"}, %arg2: !tile.ptr<f32> {tile.name = "bias"}, %arg3: !tile.ptr<f16> {tile.name = "c"}, %arg4: i32 {tile.name = "M"}, %arg5: i32 {tile.name = "N"}, %arg6: i32 {tile.name = "K"}) attributes {tile.kernel, tile.num_warps = 16 : i32, tile.numerics = "fast"} {
    %0 = tile.program_id 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %1 = arith.muli %0, %c64_i32 : i32
    %2 = tile.arange 0, 64 : tensor<64xi32>
    %3 = tile.splat %1 : tensor<64xi32>
    %4 = arith.addi %3, %2 : tensor<64xi32>
    %5 = tile.expand_dims %4, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %6 = tile.program_id 1 : i32
    %c64_i32_0 = arith.constant 64 : i32
    %7 = arith.muli %6, %c64_i32_0 : i32
    %8 = tile.arange 0, 64 : tensor<64xi32>
    %9 = tile.splat %7 : tensor<64xi32>
    %10 = arith.addi %9, %8 : tensor<64xi32>
    %11 = tile.expand_dims %10, 0 : tensor<64xi32> -> tensor<1x64xi32>
    %cst = arith.constant 0.000000e+00 : f32
    %12 = tile.splat %cst : tensor<64x64xf32>
    %c0_i32 = arith.constant 0 : i32
    %c32_i32 = arith.constant 32 : i32
    %13 = scf.for %arg7 = %c0_i32 to %arg6 step %c32_i32 iter_args(%arg8 = %12) -> (tensor<64x64xf32>)  : i32 {
      %33 = tile.arange 0, 32 : tensor<32xi32>
      %34 = tile.splat %arg7 : tensor<32xi32>
      %35 = arith.addi %34, %33 : tensor<32xi32>
      %36 = tile.expand_dims %35, 0 : tensor<32xi32> -> tensor<1x32xi32>
      %37 = tile.arange 0, 32 : tensor<32xi32>
      %38 = tile.splat %arg7 : tensor<32xi32>
      %39 = arith.addi %38, %37 : tensor<32xi32>
      %40 = tile.expand_dims %39, 1 : tensor<32xi32> -> tensor<32x1xi32>
      %41 = tile.splat %arg6 : tensor<64x1xi32>
      %42 = arith.muli %5, %41 : tensor<64x1xi32>
      %43 = tile.broadcast %42 : tensor<64x1xi32> -> tensor<64x32xi32>
      %44 = tile.broadcast %36 : tensor<1x32xi32> -> tensor<64x32xi32>
      %45 = arith.addi %43, %44 : tensor<64x32xi32>
      %46 = tile.splat %arg4 : tensor<64x1xi32>
      %47 = arith.cmpi slt, %5, %46 : tensor<64x1xi32>
      %48 = tile.splat %arg6 : tensor<1x32xi32>
      %49 = arith.cmpi slt, %36, %48 : tensor<1x32xi32>
      %50 = tile.broadcast %47 : tensor<64x1xi1> -> tensor<64x32xi1>
      %51 = tile.broadcast %49 : tensor<1x32xi1> -> tensor<64x32xi1>
      %52 = arith.andi %50, %51 : tensor<64x32xi1>
      %cst_2 = arith.constant 0.000000e+00 : f16
      %53 = tile.splat %cst_2 : tensor<64x32xf16>
      %54 = tile.load %arg0[%45] mask %52 other %53 : (!tile.ptr<f16>, tensor<64x32xi32>, tensor<64x32xi1>, tensor<64x32xf16>) -> tensor<64x32xf16>
      %55 = tile.splat %arg5 : tensor<32x1xi32>
      %56 = arith.muli %40, %55 : tensor<32x1xi32>
      %57 = tile.broadcast %56 : tensor<32x1xi32> -> tensor<32x64xi32>
      %58 = tile.broadcast %11 : tensor<1x64xi32> -> tensor<32x64xi32>
      %59 = arith.addi %57, %58 : tensor<32x64xi32>
      %60 = tile.splat %arg6 : tensor<32x1xi32>
      %61 = arith.cmpi slt, %40, %60 : tensor<32x1xi32>
      %62 = tile.splat %arg5 : tensor<1x64xi32>
      %63 = arith.cmpi slt, %11, %62 : tensor<1x64xi32>
      %64 = tile.broadcast %61 : tensor<32x1xi1> -> tensor<32x64xi1>
      %65 = tile.broadcast %63 : tensor<1x64xi1> -> tensor<32x64xi1>
      %66 = arith.andi %64, %65 : tensor<32x64xi1>
      %cst_3 = arith.constant 0.000000e+00 : f16
      %67 = tile.splat %cst_3 : tensor<32x64xf16>
      %68 = tile.load %arg1[%59] mask %66 other %67 : (!tile.ptr<f16>, tensor<32x64xi32>, tensor<32x64xi1>, tensor<32x64xf16>) -> tensor<32x64xf16>
      %69 = tile.dot %54, %68, %arg8 : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
      scf.yield %69 : tensor<64x64xf32>
    }
    %14 = tile.splat %arg5 : tensor<1x64xi32>
    %15 = arith.cmpi slt, %11, %14 : tensor<1x64xi32>
    %cst_1 = arith.constant 0.000000e+00 : f32
    %16 = tile.splat %cst_1 : tensor<1x64xf32>
    %17 = tile.load %arg2[%11] mask %15 other %16 : (!tile.ptr<f32>, tensor<1x64xi32>, tensor<1x64xi1>, tensor<1x64xf32>) -> tensor<1x64xf32>
    %18 = tile.broadcast %17 : tensor<1x64xf32> -> tensor<64x64xf32>
    %19 = arith.addf %13, %18 : tensor<64x64xf32>
    %20 = tile.splat %arg5 : tensor<64x1xi32>
    %21 = arith.muli %5, %20 : tensor<64x1xi32>
    %22 = tile.broadcast %21 : tensor<64x1xi32> -> tensor<64x64xi32>
    %23 = tile.broadcast %11 : tensor<1x64xi32> -> tensor<64x64xi32>
    %24 = arith.addi %22, %23 : tensor<64x64xi32>
    %25 = arith.truncf %19 : tensor<64x64xf32> to tensor<64x64xf16>
    %26 = tile.splat %arg4 : tensor<64x1xi32>
    %27 = arith.cmpi slt, %5, %26 : tensor<64x1xi32>
    %28 = tile.splat %arg5 : tensor<1x64xi32>
    %29 = arith.cmpi slt, %11, %28 : tensor<1x64xi32>
    %30 = tile.broadcast %27 : tensor<64x1xi1> -> tensor<64x64xi1>
    %31 = tile.broadcast %29 : tensor<1x64xi1> -> tensor<64x64xi1>
    %32 = arith.andi %30, %31 : tensor<64x64xi1>
    tile.store %arg3[%24], %25 mask %32 : (!tile.ptr<f16>, tensor<64x64xi32>, tensor<64x64xf16>, tensor<64x64xi1>) -> ()
    return
  }
}
