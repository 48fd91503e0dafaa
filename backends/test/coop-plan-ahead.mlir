// RUN: env TESSERA_COOP_A_LANES=1 %tessera compile %s --emit=spirv-mlir --coopmat=lanes | FileCheck %s

// 06_flash_attention's fast kernel at 128 x 64 on 8 subgroups, D = 128 (after the tile passes),
// with coop-a-lanes: the queries' matrices in registers before the loop, their array (128 rows of
// 128 + 8: 4352 vectors of 4) freed, and the probabilities built as A matrices from registers.
// The scores' keys would fit that array in two halves (2 x 64 rows), but then the values would
// need an array of their own (17,408 bytes more: 52,224 in all, past 48 KiB) and the second dot
// could not stay on the matrices; so the keys take one copy, leaving room for the values' one
// copy: everything in the queries' array, 34,816 bytes, two barriers a dot.
// CHECK-COUNT-1: spirv.GlobalVariable @[[Q:__workgroup_mem__[0-9]+]] : !spirv.ptr<!spirv.struct<(!spirv.array<4352 x vector<4xf16>>)>, Workgroup>
// CHECK-NOT: spirv.GlobalVariable @__workgroup_mem__
// CHECK-LABEL: spirv.func @attention
// CHECK-SAME: tessera.shared_bytes = 34816
// CHECK: spirv.mlir.loop
// CHECK: spirv.ControlBarrier
// CHECK-COUNT-8: spirv.Store "Workgroup" %{{.*}}, %{{.*}} : vector<4xf16>
// CHECK-NEXT: spirv.ControlBarrier
// CHECK-COUNT-32: spirv.KHR.CooperativeMatrixMulAdd
// CHECK: spirv.ControlBarrier
// CHECK-COUNT-8: spirv.Store "Workgroup" %{{.*}}, %{{.*}} : vector<4xf16>
// CHECK-NEXT: spirv.ControlBarrier
// CHECK-COUNT-32: spirv.KHR.CooperativeMatrixMulAdd
// CHECK-NOT: spirv.ControlBarrier
// CHECK-NOT: spirv.KHR.CooperativeMatrixMulAdd
// CHECK: spirv.mlir.merge
  func.func @attention(%arg0: !tile.ptr<f16> {tile.name = "q"}, %arg1: !tile.ptr<f16> {tile.name = "k"}, %arg2: !tile.ptr<f16> {tile.name = "v"}, %arg3: !tile.ptr<f16> {tile.name = "o"}, %arg4: i32 {tile.name = "seq"}, %arg5: f32 {tile.name = "scale"}) attributes {tile.kernel, tile.num_warps = 8 : i32, tile.numerics = "fast"} {
    %c64_i32 = arith.constant 64 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %cst_1 = arith.constant 0.000000e+00 : f16
    %cst_2 = arith.constant 1.44269502 : f32
    %c128_i32 = arith.constant 128 : i32
    %0 = tile.program_id 1 : i32
    %1 = arith.muli %0, %arg4 : i32
    %2 = arith.muli %1, %c128_i32 : i32
    %3 = arith.mulf %arg5, %cst_2 : f32
    %4 = tile.arange 0, 128 : tensor<128xi32>
    %5 = tile.program_id 0 : i32
    %6 = arith.muli %5, %c128_i32 : i32
    %7 = tile.splat %6 : tensor<128xi32>
    %8 = arith.addi %7, %4 : tensor<128xi32>
    %9 = tile.expand_dims %8, 1 : tensor<128xi32> -> tensor<128x1xi32>
    %10 = tile.arange 0, 128 : tensor<128xi32>
    %11 = tile.expand_dims %10, 0 : tensor<128xi32> -> tensor<1x128xi32>
    %12 = tile.splat %arg4 : tensor<128x1xi32>
    %13 = arith.cmpi slt, %9, %12 : tensor<128x1xi32>
    %14 = tile.splat %c128_i32 : tensor<128x1xi32>
    %15 = arith.muli %9, %14 : tensor<128x1xi32>
    %16 = tile.splat %2 : tensor<128x1xi32>
    %17 = arith.addi %16, %15 : tensor<128x1xi32>
    %18 = tile.broadcast %17 : tensor<128x1xi32> -> tensor<128x128xi32>
    %19 = tile.broadcast %11 : tensor<1x128xi32> -> tensor<128x128xi32>
    %20 = arith.addi %18, %19 : tensor<128x128xi32>
    %21 = tile.broadcast %13 : tensor<128x1xi1> -> tensor<128x128xi1>
    %22 = tile.splat %cst_1 : tensor<128x128xf16>
    %23 = tile.load %arg0[%20] mask %21 other %22 : (!tile.ptr<f16>, tensor<128x128xi32>, tensor<128x128xi1>, tensor<128x128xf16>) -> tensor<128x128xf16>
    %24 = tile.splat %cst_0 : tensor<128xf32>
    %25 = tile.splat %cst : tensor<128xf32>
    %26 = tile.splat %cst : tensor<128x128xf32>
    %27:3 = scf.for %arg6 = %c0_i32 to %arg4 step %c64_i32 iter_args(%arg7 = %24, %arg8 = %25, %arg9 = %26) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>)  : i32 {
      %42 = tile.arange 0, 64 : tensor<64xi32>
      %43 = tile.splat %arg6 : tensor<64xi32>
      %44 = arith.addi %43, %42 : tensor<64xi32>
      %45 = tile.expand_dims %44, 1 : tensor<64xi32> -> tensor<64x1xi32>
      %46 = tile.splat %arg4 : tensor<64x1xi32>
      %47 = arith.cmpi slt, %45, %46 : tensor<64x1xi32>
      %48 = tile.splat %c128_i32 : tensor<64x1xi32>
      %49 = arith.muli %45, %48 : tensor<64x1xi32>
      %50 = tile.splat %2 : tensor<64x1xi32>
      %51 = arith.addi %50, %49 : tensor<64x1xi32>
      %52 = tile.broadcast %51 : tensor<64x1xi32> -> tensor<64x128xi32>
      %53 = tile.broadcast %11 : tensor<1x128xi32> -> tensor<64x128xi32>
      %54 = arith.addi %52, %53 : tensor<64x128xi32>
      %55 = tile.broadcast %47 : tensor<64x1xi1> -> tensor<64x128xi1>
      %56 = tile.splat %cst_1 : tensor<64x128xf16>
      %57 = tile.load %arg1[%54] mask %55 other %56 : (!tile.ptr<f16>, tensor<64x128xi32>, tensor<64x128xi1>, tensor<64x128xf16>) -> tensor<64x128xf16>
      %58 = tile.trans %57 [1, 0] : tensor<64x128xf16> -> tensor<128x64xf16>
      %59 = tile.splat %cst : tensor<128x64xf32>
      %60 = tile.dot %23, %58, %59 : tensor<128x128xf16>, tensor<128x64xf16> -> tensor<128x64xf32>
      %61 = tile.expand_dims %44, 0 : tensor<64xi32> -> tensor<1x64xi32>
      %62 = tile.splat %arg4 : tensor<1x64xi32>
      %63 = arith.cmpi slt, %61, %62 : tensor<1x64xi32>
      %64 = tile.splat %cst_0 : tensor<128x64xf32>
      %65 = tile.broadcast %63 : tensor<1x64xi1> -> tensor<128x64xi1>
      %66 = arith.select %65, %60, %64 : tensor<128x64xi1>, tensor<128x64xf32>
      %67 = tile.reduce max %66, 1 : tensor<128x64xf32> -> tensor<128xf32>
      %68 = tile.splat %3 : tensor<128xf32>
      %69 = arith.mulf %67, %68 : tensor<128xf32>
      %70 = arith.maximumf %arg7, %69 : tensor<128xf32>
      %71 = tile.expand_dims %70, 1 : tensor<128xf32> -> tensor<128x1xf32>
      %72 = tile.splat %3 : tensor<128x64xf32>
      %73 = arith.mulf %66, %72 : tensor<128x64xf32>
      %74 = tile.broadcast %71 : tensor<128x1xf32> -> tensor<128x64xf32>
      %75 = arith.subf %73, %74 : tensor<128x64xf32>
      %76 = math.exp2 %75 : tensor<128x64xf32>
      %77 = arith.subf %arg7, %70 : tensor<128xf32>
      %78 = math.exp2 %77 : tensor<128xf32>
      %79 = tile.splat %arg4 : tensor<64x1xi32>
      %80 = arith.cmpi slt, %45, %79 : tensor<64x1xi32>
      %81 = tile.splat %c128_i32 : tensor<64x1xi32>
      %82 = arith.muli %45, %81 : tensor<64x1xi32>
      %83 = tile.splat %2 : tensor<64x1xi32>
      %84 = arith.addi %83, %82 : tensor<64x1xi32>
      %85 = tile.broadcast %84 : tensor<64x1xi32> -> tensor<64x128xi32>
      %86 = tile.broadcast %11 : tensor<1x128xi32> -> tensor<64x128xi32>
      %87 = arith.addi %85, %86 : tensor<64x128xi32>
      %88 = tile.broadcast %80 : tensor<64x1xi1> -> tensor<64x128xi1>
      %89 = tile.splat %cst_1 : tensor<64x128xf16>
      %90 = tile.load %arg2[%87] mask %88 other %89 : (!tile.ptr<f16>, tensor<64x128xi32>, tensor<64x128xi1>, tensor<64x128xf16>) -> tensor<64x128xf16>
      %91 = tile.expand_dims %78, 1 : tensor<128xf32> -> tensor<128x1xf32>
      %92 = tile.broadcast %91 : tensor<128x1xf32> -> tensor<128x128xf32>
      %93 = arith.mulf %arg9, %92 : tensor<128x128xf32>
      %94 = arith.truncf %76 : tensor<128x64xf32> to tensor<128x64xf16>
      %95 = tile.dot %94, %90, %93 : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
      %96 = tile.reduce sum %76, 1 : tensor<128x64xf32> -> tensor<128xf32>
      %97 = arith.mulf %arg8, %78 : tensor<128xf32>
      %98 = arith.addf %97, %96 : tensor<128xf32>
      scf.yield %70, %98, %95 : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
    }
    %28 = tile.expand_dims %27#1, 1 : tensor<128xf32> -> tensor<128x1xf32>
    %29 = tile.broadcast %28 : tensor<128x1xf32> -> tensor<128x128xf32>
    %30 = arith.divf %27#2, %29 : tensor<128x128xf32>
    %31 = tile.splat %arg4 : tensor<128x1xi32>
    %32 = arith.cmpi slt, %9, %31 : tensor<128x1xi32>
    %33 = arith.truncf %30 : tensor<128x128xf32> to tensor<128x128xf16>
    %34 = tile.splat %c128_i32 : tensor<128x1xi32>
    %35 = arith.muli %9, %34 : tensor<128x1xi32>
    %36 = tile.splat %2 : tensor<128x1xi32>
    %37 = arith.addi %36, %35 : tensor<128x1xi32>
    %38 = tile.broadcast %37 : tensor<128x1xi32> -> tensor<128x128xi32>
    %39 = tile.broadcast %11 : tensor<1x128xi32> -> tensor<128x128xi32>
    %40 = arith.addi %38, %39 : tensor<128x128xi32>
    %41 = tile.broadcast %32 : tensor<128x1xi1> -> tensor<128x128xi1>
    tile.store %arg3[%40], %33 mask %41 : (!tile.ptr<f16>, tensor<128x128xi32>, tensor<128x128xf16>, tensor<128x128xi1>) -> ()
    return
  }
