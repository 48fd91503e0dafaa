// RUN: %tessera compile %s --emit=spirv-mlir --coopmat=lanes | FileCheck %s
// RUN: env TESSERA_COOP_HOIST_A=0 %tessera compile %s --emit=spirv-mlir --coopmat=lanes | FileCheck %s --check-prefix=OFF
// RUN: env TESSERA_COOP_A_LANES=1 %tessera compile %s --emit=spirv-mlir --coopmat=lanes | FileCheck %s --check-prefix=LANES

// 06_flash_attention's fast kernel at 64 x 32 on 4 subgroups, D = 128 (after the tile passes),
// on cooperative matrices in mma.sync's lanes (coop-hoist-a). The queries do not change in the
// loop: they are staged once before it in vectors of 4 (each value into its component: a
// thread's runs of the dot's A are shorter than 4), and each subgroup loads its 8 A matrices (16
// rows x 8 k steps) there, into registers, behind a barrier that ends those reads. The loop's
// first dot reads no A matrix from shared memory, and its keys are staged in two halves in the
// queries' array (2 x 32 rows of 128 + 8 against 64 such rows): 2176 vectors of 4. The values and
// the probabilities fit in two halves as well: 45,056 bytes, two barriers an iteration. Without
// it (OFF) the queries keep an array of their own and are read in every iteration: 48,640 bytes,
// the probabilities and values staged once an iteration (three barriers).
// CHECK-DAG: spirv.GlobalVariable @__workgroup_mem__{{[0-9]+}} : !spirv.ptr<!spirv.struct<(!spirv.array<5120 x f16>)>, Workgroup>
// CHECK-DAG: spirv.GlobalVariable @__workgroup_mem__{{[0-9]+}} : !spirv.ptr<!spirv.struct<(!spirv.array<2176 x vector<4xf16>>)>, Workgroup>
// CHECK-DAG: spirv.GlobalVariable @__workgroup_mem__{{[0-9]+}} : !spirv.ptr<!spirv.struct<(!spirv.array<2176 x vector<4xf16>>)>, Workgroup>
// CHECK-LABEL: spirv.func @attention
// CHECK-SAME: tessera.shared_bytes = 45056
// CHECK: spirv.ControlBarrier
// CHECK: %[[QVEC:.*]] = spirv.AccessChain %[[QK:__workgroup_mem__[0-9]+]]_addr[%{{.*}}, %{{.*}}] : !spirv.ptr<!spirv.struct<(!spirv.array<2176 x vector<4xf16>>)>, Workgroup>
// CHECK-NEXT: %[[QELEM:.*]] = spirv.AccessChain %[[QVEC]][%{{.*}}] : !spirv.ptr<vector<4xf16>, Workgroup>, i32 -> !spirv.ptr<f16, Workgroup>
// CHECK-NEXT: spirv.Store "Workgroup" %[[QELEM]], %{{.*}} : f16
// CHECK: spirv.ControlBarrier
// CHECK-NOT: spirv.mlir.loop
// CHECK-COUNT-8: spirv.KHR.CooperativeMatrixLoad %{{.*}}, %cst34_i32{{.*}}, <RowMajor> : !spirv.ptr<vector<4xf16>, Workgroup>, i32 -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>
// CHECK-NEXT: spirv.ControlBarrier
// CHECK: spirv.mlir.loop
// The keys' half in the queries' array, then the scores from the registers' queries.
// CHECK: spirv.AccessChain %[[QK]]_addr
// CHECK-NEXT: spirv.Store "Workgroup" %{{.*}}, %{{.*}} : vector<4xf16>
// CHECK: spirv.ControlBarrier
// CHECK-NOT: MatrixA>
// CHECK-COUNT-16: spirv.KHR.CooperativeMatrixMulAdd
// The probabilities times the values: 2 A matrices from shared memory.
// CHECK: spirv.ControlBarrier
// CHECK-NOT: spirv.ControlBarrier
// CHECK-COUNT-2: spirv.KHR.CooperativeMatrixLoad {{.*}}MatrixA>
// CHECK-NOT: spirv.ControlBarrier
// CHECK: spirv.mlir.merge
// With coop-a-lanes (LANES) the probabilities are not staged: each of their 16 x 16 blocks is
// built from the lane's 8 values, placed as an accumulator's: the keys' halves in the queries'
// array and the values' halves in one of their own, 34,816 bytes, no array of f16 scalars.
// LANES-COUNT-2: spirv.GlobalVariable @__workgroup_mem__{{[0-9]+}} : !spirv.ptr<!spirv.struct<(!spirv.array<2176 x vector<4xf16>>)>, Workgroup>
// LANES-NOT: spirv.GlobalVariable @__workgroup_mem__
// LANES-LABEL: spirv.func @attention
// LANES-SAME: tessera.shared_bytes = 34816
// LANES: spirv.mlir.loop
// LANES-COUNT-16: spirv.KHR.CooperativeMatrixMulAdd
// LANES-NOT: spirv.KHR.CooperativeMatrixLoad {{.*}}MatrixA>
// LANES: spirv.CompositeConstruct %{{.*}} : (f16) -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>
// LANES-COUNT-8: spirv.CompositeInsert %{{.*}} : f16 into !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>
// LANES-NOT: spirv.KHR.CooperativeMatrixLoad {{.*}}MatrixA>
// LANES: spirv.mlir.merge
// OFF-LABEL: spirv.func @attention
// OFF-SAME: tessera.shared_bytes = 48640
// OFF: spirv.mlir.loop
// OFF-COUNT-3: spirv.ControlBarrier
// OFF-NOT: spirv.ControlBarrier
// OFF: spirv.mlir.merge
  func.func @attention(%arg0: !tile.ptr<f16> {tile.name = "q"}, %arg1: !tile.ptr<f16> {tile.name = "k"}, %arg2: !tile.ptr<f16> {tile.name = "v"}, %arg3: !tile.ptr<f16> {tile.name = "o"}, %arg4: i32 {tile.name = "seq"}, %arg5: f32 {tile.name = "scale"}) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.numerics = "fast"} {
    %c32_i32 = arith.constant 32 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %cst_1 = arith.constant 0.000000e+00 : f16
    %c64_i32 = arith.constant 64 : i32
    %cst_2 = arith.constant 1.44269502 : f32
    %c128_i32 = arith.constant 128 : i32
    %0 = tile.program_id 1 : i32
    %1 = arith.muli %0, %arg4 : i32
    %2 = arith.muli %1, %c128_i32 : i32
    %3 = arith.mulf %arg5, %cst_2 : f32
    %4 = tile.arange 0, 64 : tensor<64xi32>
    %5 = tile.program_id 0 : i32
    %6 = arith.muli %5, %c64_i32 : i32
    %7 = tile.splat %6 : tensor<64xi32>
    %8 = arith.addi %7, %4 : tensor<64xi32>
    %9 = tile.expand_dims %8, 1 : tensor<64xi32> -> tensor<64x1xi32>
    %10 = tile.arange 0, 128 : tensor<128xi32>
    %11 = tile.expand_dims %10, 0 : tensor<128xi32> -> tensor<1x128xi32>
    %12 = tile.splat %arg4 : tensor<64x1xi32>
    %13 = arith.cmpi slt, %9, %12 : tensor<64x1xi32>
    %14 = tile.splat %c128_i32 : tensor<64x1xi32>
    %15 = arith.muli %9, %14 : tensor<64x1xi32>
    %16 = tile.splat %2 : tensor<64x1xi32>
    %17 = arith.addi %16, %15 : tensor<64x1xi32>
    %18 = tile.broadcast %17 : tensor<64x1xi32> -> tensor<64x128xi32>
    %19 = tile.broadcast %11 : tensor<1x128xi32> -> tensor<64x128xi32>
    %20 = arith.addi %18, %19 : tensor<64x128xi32>
    %21 = tile.broadcast %13 : tensor<64x1xi1> -> tensor<64x128xi1>
    %22 = tile.splat %cst_1 : tensor<64x128xf16>
    %23 = tile.load %arg0[%20] mask %21 other %22 : (!tile.ptr<f16>, tensor<64x128xi32>, tensor<64x128xi1>, tensor<64x128xf16>) -> tensor<64x128xf16>
    %24 = tile.splat %cst_0 : tensor<64xf32>
    %25 = tile.splat %cst : tensor<64xf32>
    %26 = tile.splat %cst : tensor<64x128xf32>
    %27:3 = scf.for %arg6 = %c0_i32 to %arg4 step %c32_i32 iter_args(%arg7 = %24, %arg8 = %25, %arg9 = %26) -> (tensor<64xf32>, tensor<64xf32>, tensor<64x128xf32>)  : i32 {
      %42 = tile.arange 0, 32 : tensor<32xi32>
      %43 = tile.splat %arg6 : tensor<32xi32>
      %44 = arith.addi %43, %42 : tensor<32xi32>
      %45 = tile.expand_dims %44, 1 : tensor<32xi32> -> tensor<32x1xi32>
      %46 = tile.splat %arg4 : tensor<32x1xi32>
      %47 = arith.cmpi slt, %45, %46 : tensor<32x1xi32>
      %48 = tile.splat %c128_i32 : tensor<32x1xi32>
      %49 = arith.muli %45, %48 : tensor<32x1xi32>
      %50 = tile.splat %2 : tensor<32x1xi32>
      %51 = arith.addi %50, %49 : tensor<32x1xi32>
      %52 = tile.broadcast %51 : tensor<32x1xi32> -> tensor<32x128xi32>
      %53 = tile.broadcast %11 : tensor<1x128xi32> -> tensor<32x128xi32>
      %54 = arith.addi %52, %53 : tensor<32x128xi32>
      %55 = tile.broadcast %47 : tensor<32x1xi1> -> tensor<32x128xi1>
      %56 = tile.splat %cst_1 : tensor<32x128xf16>
      %57 = tile.load %arg1[%54] mask %55 other %56 : (!tile.ptr<f16>, tensor<32x128xi32>, tensor<32x128xi1>, tensor<32x128xf16>) -> tensor<32x128xf16>
      %58 = tile.trans %57 [1, 0] : tensor<32x128xf16> -> tensor<128x32xf16>
      %59 = tile.splat %cst : tensor<64x32xf32>
      %60 = tile.dot %23, %58, %59 : tensor<64x128xf16>, tensor<128x32xf16> -> tensor<64x32xf32>
      %61 = tile.expand_dims %44, 0 : tensor<32xi32> -> tensor<1x32xi32>
      %62 = tile.splat %arg4 : tensor<1x32xi32>
      %63 = arith.cmpi slt, %61, %62 : tensor<1x32xi32>
      %64 = tile.splat %cst_0 : tensor<64x32xf32>
      %65 = tile.broadcast %63 : tensor<1x32xi1> -> tensor<64x32xi1>
      %66 = arith.select %65, %60, %64 : tensor<64x32xi1>, tensor<64x32xf32>
      %67 = tile.reduce max %66, 1 : tensor<64x32xf32> -> tensor<64xf32>
      %68 = tile.splat %3 : tensor<64xf32>
      %69 = arith.mulf %67, %68 : tensor<64xf32>
      %70 = arith.maximumf %arg7, %69 : tensor<64xf32>
      %71 = tile.expand_dims %70, 1 : tensor<64xf32> -> tensor<64x1xf32>
      %72 = tile.splat %3 : tensor<64x32xf32>
      %73 = arith.mulf %66, %72 : tensor<64x32xf32>
      %74 = tile.broadcast %71 : tensor<64x1xf32> -> tensor<64x32xf32>
      %75 = arith.subf %73, %74 : tensor<64x32xf32>
      %76 = math.exp2 %75 : tensor<64x32xf32>
      %77 = arith.subf %arg7, %70 : tensor<64xf32>
      %78 = math.exp2 %77 : tensor<64xf32>
      %79 = tile.splat %arg4 : tensor<32x1xi32>
      %80 = arith.cmpi slt, %45, %79 : tensor<32x1xi32>
      %81 = tile.splat %c128_i32 : tensor<32x1xi32>
      %82 = arith.muli %45, %81 : tensor<32x1xi32>
      %83 = tile.splat %2 : tensor<32x1xi32>
      %84 = arith.addi %83, %82 : tensor<32x1xi32>
      %85 = tile.broadcast %84 : tensor<32x1xi32> -> tensor<32x128xi32>
      %86 = tile.broadcast %11 : tensor<1x128xi32> -> tensor<32x128xi32>
      %87 = arith.addi %85, %86 : tensor<32x128xi32>
      %88 = tile.broadcast %80 : tensor<32x1xi1> -> tensor<32x128xi1>
      %89 = tile.splat %cst_1 : tensor<32x128xf16>
      %90 = tile.load %arg2[%87] mask %88 other %89 : (!tile.ptr<f16>, tensor<32x128xi32>, tensor<32x128xi1>, tensor<32x128xf16>) -> tensor<32x128xf16>
      %91 = tile.expand_dims %78, 1 : tensor<64xf32> -> tensor<64x1xf32>
      %92 = tile.broadcast %91 : tensor<64x1xf32> -> tensor<64x128xf32>
      %93 = arith.mulf %arg9, %92 : tensor<64x128xf32>
      %94 = arith.truncf %76 : tensor<64x32xf32> to tensor<64x32xf16>
      %95 = tile.dot %94, %90, %93 : tensor<64x32xf16>, tensor<32x128xf16> -> tensor<64x128xf32>
      %96 = tile.reduce sum %76, 1 : tensor<64x32xf32> -> tensor<64xf32>
      %97 = arith.mulf %arg8, %78 : tensor<64xf32>
      %98 = arith.addf %97, %96 : tensor<64xf32>
      scf.yield %70, %98, %95 : tensor<64xf32>, tensor<64xf32>, tensor<64x128xf32>
    }
    %28 = tile.expand_dims %27#1, 1 : tensor<64xf32> -> tensor<64x1xf32>
    %29 = tile.broadcast %28 : tensor<64x1xf32> -> tensor<64x128xf32>
    %30 = arith.divf %27#2, %29 : tensor<64x128xf32>
    %31 = tile.splat %arg4 : tensor<64x1xi32>
    %32 = arith.cmpi slt, %9, %31 : tensor<64x1xi32>
    %33 = arith.truncf %30 : tensor<64x128xf32> to tensor<64x128xf16>
    %34 = tile.splat %c128_i32 : tensor<64x1xi32>
    %35 = arith.muli %9, %34 : tensor<64x1xi32>
    %36 = tile.splat %2 : tensor<64x1xi32>
    %37 = arith.addi %36, %35 : tensor<64x1xi32>
    %38 = tile.broadcast %37 : tensor<64x1xi32> -> tensor<64x128xi32>
    %39 = tile.broadcast %11 : tensor<1x128xi32> -> tensor<64x128xi32>
    %40 = arith.addi %38, %39 : tensor<64x128xi32>
    %41 = tile.broadcast %32 : tensor<64x1xi1> -> tensor<64x128xi1>
    tile.store %arg3[%40], %33 mask %41 : (!tile.ptr<f16>, tensor<64x128xi32>, tensor<64x128xf16>, tensor<64x128xi1>) -> ()
    return
  }
