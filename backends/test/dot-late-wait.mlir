// RUN: tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90a tensor-copies=1" | FileCheck %s
// RUN: tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90a tensor-copies=1 producer-warp=off tensor-copy-release=mbarrier" | FileCheck %s --check-prefix=OFF
// RUN: tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90a tensor-copies=1 warpgroup-pingpong=1" | FileCheck %s --check-prefix=PINGPONG
// RUN: sed -e 's/tile.broadcast %v15 :/tile.broadcast %v14 :/' %s | tessera-opt --convert-tile-to-gpu="target=nvptx chip=sm_90a tensor-copies=1 producer-warp=off" | FileCheck %s --check-prefix=NOLOWER

// Attention's loop rotated (06_flash_attention --overlap=1, 128 x 128 on 8 warps, D = 128): an
// iteration issues this key block's scores, then the previous block's probabilities (carried,
// f16) times its values, then the softmax of the scores. Each warpgroup dot waits where its block
// first uses its result: the scores' after the values' dot is committed, until one batch (that
// dot's) is in flight, their stage released there; the values' dot before the yield.
// CHECK-LABEL: gpu.func @attention
// The producer copies the values of keys iv - 128 on: the arange's start is the box's row offset.
// CHECK: scf.for %[[IV:.*]] = %c0_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg6,
// CHECK: %[[PREV:.*]] = arith.addi %[[IV]], %c-128_i32 : i32
// CHECK: %[[ROW:.*]] = arith.addi %[[PREV]], %c0_i32{{.*}} : i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg7, %{{.*}}, box[%{{.*}}, %[[ROW]], %{{.*}}]
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.wait.group
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NOT: nvvm.wgmma.wait.group
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.wait.group
// CHECK-NOT: math.exp2
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvvm.mbarrier.arrive
// CHECK-NOT: nvvm.wgmma.wait.group
// CHECK: math.exp2
// CHECK-NOT: nvvm.wgmma
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: arith.constant 32 : i32
// CHECK: nvvm.mbarrier.arrive
// CHECK-NOT: nvvm.wgmma
// CHECK: scf.yield
// Without the producer the same waits.
// OFF-LABEL: gpu.func @attention
// OFF: scf.for
// OFF: nvvm.wgmma.commit.group.sync.aligned
// OFF-NOT: nvvm.wgmma.wait.group
// OFF: nvvm.wgmma.commit.group.sync.aligned
// OFF-NOT: math.exp2
// OFF: nvvm.wgmma.wait.group.sync.aligned 1
// OFF: math.exp2
// OFF: nvvm.wgmma.wait.group.sync.aligned 0
// OFF-NOT: nvvm.wgmma
// OFF: scf.yield
// Taking turns (warpgroup-pingpong): the values' dot is issued before the scores' wait, so it
// joins the scores' turn: one barrier before the scores' fence, none before the values', and the
// other warpgroup's barrier passed once, after the values' commit.
// PINGPONG-LABEL: gpu.func @attention
// PINGPONG: scf.for
// PINGPONG: nvvm.barrier id = %{{.*}} number_of_threads = %c256_i32
// PINGPONG-NEXT: nvvm.wgmma.fence.aligned
// PINGPONG-NOT: nvvm.barrier
// PINGPONG: nvvm.wgmma.commit.group.sync.aligned
// PINGPONG-NOT: nvvm.barrier
// PINGPONG: nvvm.wgmma.fence.aligned
// PINGPONG-NOT: nvvm.barrier
// PINGPONG: nvvm.wgmma.commit.group.sync.aligned
// PINGPONG-NEXT: arith.constant 256 : i32
// PINGPONG-NEXT: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %c256_i32
// PINGPONG-NOT: nvvm.barrier
// PINGPONG: nvvm.wgmma.wait.group.sync.aligned 1
// PINGPONG-NOT: nvvm.barrier
// PINGPONG: nvvm.wgmma.wait.group.sync.aligned 0
// PINGPONG-NOT: nvvm.barrier
// PINGPONG: scf.yield
// Rows from iv - 128 without the mask asking rows >= 0 read memory below the window, which a
// tensor copy would not: the values come by cp.async (the keys still by tensor copy).
// NOLOWER-LABEL: gpu.func @attention
// NOLOWER: scf.for
// NOLOWER: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg6,
// NOLOWER-NOT: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg7,
// NOLOWER: nvvm.cp.async.shared.global
// NOLOWER: nvvm.wgmma.wait.group.sync.aligned 1

module {
  func.func @attention(%arg0: !tile.ptr<f16> {tile.name = "q"}, %arg1: !tile.ptr<f16> {tile.name = "k"}, %arg2: !tile.ptr<f16> {tile.name = "v"}, %arg3: !tile.ptr<f16> {tile.name = "o"}, %arg4: i32 {tile.name = "seq"}, %arg5: f32 {tile.name = "scale"}) attributes {tile.kernel, tile.num_warps = 8 : i32, tile.numerics = "fast"} {
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
    %4 = tile.program_id 0 : i32
    %5 = arith.muli %4, %c128_i32 : i32
    %6 = tile.arange 0, 128 : tensor<128xi32>
    %7 = tile.splat %5 : tensor<128xi32>
    %8 = arith.addi %7, %6 : tensor<128xi32>
    %9 = tile.expand_dims %8, 1 : tensor<128xi32> -> tensor<128x1xi32>
    %10 = tile.arange 0, 128 : tensor<128xi32>
    %11 = tile.expand_dims %10, 0 : tensor<128xi32> -> tensor<1x128xi32>
    %12 = tile.splat %c128_i32 : tensor<128x1xi32>
    %13 = arith.muli %9, %12 : tensor<128x1xi32>
    %14 = tile.splat %2 : tensor<128x1xi32>
    %15 = arith.addi %14, %13 : tensor<128x1xi32>
    %16 = tile.broadcast %15 : tensor<128x1xi32> -> tensor<128x128xi32>
    %17 = tile.broadcast %11 : tensor<1x128xi32> -> tensor<128x128xi32>
    %18 = arith.addi %16, %17 : tensor<128x128xi32>
    %19 = tile.splat %arg4 : tensor<128x1xi32>
    %20 = arith.cmpi slt, %9, %19 : tensor<128x1xi32>
    %21 = tile.broadcast %20 : tensor<128x1xi1> -> tensor<128x128xi1>
    %22 = tile.splat %cst_1 : tensor<128x128xf16>
    %23 = tile.load %arg0[%18] mask %21 other %22 : (!tile.ptr<f16>, tensor<128x128xi32>, tensor<128x128xi1>, tensor<128x128xf16>) -> tensor<128x128xf16>
    %24 = tile.splat %cst_0 : tensor<128xf32>
    %25 = tile.splat %cst : tensor<128xf32>
    %26 = tile.splat %cst : tensor<128x128xf32>
    %ub = arith.addi %arg4, %c128_i32 : i32
    %cst_one = arith.constant 1.000000e+00 : f32
    %p_init = tile.splat %cst_1 : tensor<128x128xf16>
    %alpha_init = tile.splat %cst_one : tensor<128xf32>
    %27:5 = scf.for %arg6 = %c0_i32 to %ub step %c128_i32 iter_args(%arg7 = %24, %arg8 = %25, %arg9 = %26, %arg10 = %p_init, %arg11 = %alpha_init) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>, tensor<128x128xf16>, tensor<128xf32>)  : i32 {
      %s0 = tile.expand_dims %arg11, 1 : tensor<128xf32> -> tensor<128x1xf32>
      %s1 = tile.broadcast %s0 : tensor<128x1xf32> -> tensor<128x128xf32>
      %accScaled = arith.mulf %arg9, %s1 : tensor<128x128xf32>
      %42 = tile.arange 0, 128 : tensor<128xi32>
      %43 = tile.splat %arg6 : tensor<128xi32>
      %44 = arith.addi %43, %42 : tensor<128xi32>
      %45 = tile.expand_dims %44, 1 : tensor<128xi32> -> tensor<128x1xi32>
      %46 = tile.expand_dims %44, 0 : tensor<128xi32> -> tensor<1x128xi32>
      %47 = tile.splat %c128_i32 : tensor<128x1xi32>
      %48 = arith.muli %45, %47 : tensor<128x1xi32>
      %49 = tile.splat %2 : tensor<128x1xi32>
      %50 = arith.addi %49, %48 : tensor<128x1xi32>
      %51 = tile.broadcast %50 : tensor<128x1xi32> -> tensor<128x128xi32>
      %52 = tile.broadcast %11 : tensor<1x128xi32> -> tensor<128x128xi32>
      %53 = arith.addi %51, %52 : tensor<128x128xi32>
      %54 = tile.splat %arg4 : tensor<128x1xi32>
      %55 = arith.cmpi slt, %45, %54 : tensor<128x1xi32>
      %56 = tile.broadcast %55 : tensor<128x1xi1> -> tensor<128x128xi1>
      %57 = tile.splat %cst_1 : tensor<128x128xf16>
      %58 = tile.load %arg1[%53] mask %56 other %57 : (!tile.ptr<f16>, tensor<128x128xi32>, tensor<128x128xi1>, tensor<128x128xf16>) -> tensor<128x128xf16>
      %59 = tile.trans %58 [1, 0] : tensor<128x128xf16> -> tensor<128x128xf16>
      %60 = tile.splat %cst : tensor<128x128xf32>
      %61 = tile.dot %23, %59, %60 : tensor<128x128xf16>, tensor<128x128xf16> -> tensor<128x128xf32>
      %v0 = tile.arange -128, 0 : tensor<128xi32>
      %v1 = tile.splat %arg6 : tensor<128xi32>
      %v2 = arith.addi %v1, %v0 : tensor<128xi32>
      %v3 = tile.expand_dims %v2, 1 : tensor<128xi32> -> tensor<128x1xi32>
      %v4 = tile.splat %c128_i32 : tensor<128x1xi32>
      %v5 = arith.muli %v3, %v4 : tensor<128x1xi32>
      %v6 = tile.splat %2 : tensor<128x1xi32>
      %v7 = arith.addi %v6, %v5 : tensor<128x1xi32>
      %v8 = tile.broadcast %v7 : tensor<128x1xi32> -> tensor<128x128xi32>
      %v9 = tile.broadcast %11 : tensor<1x128xi32> -> tensor<128x128xi32>
      %v10 = arith.addi %v8, %v9 : tensor<128x128xi32>
      %v11 = tile.splat %c0_i32 : tensor<128x1xi32>
      %v12 = arith.cmpi sge, %v3, %v11 : tensor<128x1xi32>
      %v13 = tile.splat %arg4 : tensor<128x1xi32>
      %v14 = arith.cmpi slt, %v3, %v13 : tensor<128x1xi32>
      %v15 = arith.andi %v12, %v14 : tensor<128x1xi1>
      %v16 = tile.broadcast %v15 : tensor<128x1xi1> -> tensor<128x128xi1>
      %v17 = tile.splat %cst_1 : tensor<128x128xf16>
      %90 = tile.load %arg2[%v10] mask %v16 other %v17 : (!tile.ptr<f16>, tensor<128x128xi32>, tensor<128x128xi1>, tensor<128x128xf16>) -> tensor<128x128xf16>
      %95 = tile.dot %arg10, %90, %accScaled : tensor<128x128xf16>, tensor<128x128xf16> -> tensor<128x128xf32>
      %62 = tile.splat %arg4 : tensor<1x128xi32>
      %63 = arith.cmpi slt, %46, %62 : tensor<1x128xi32>
      %64 = tile.splat %cst_0 : tensor<128x128xf32>
      %65 = tile.broadcast %63 : tensor<1x128xi1> -> tensor<128x128xi1>
      %66 = arith.select %65, %61, %64 : tensor<128x128xi1>, tensor<128x128xf32>
      %67 = tile.reduce max %66, 1 : tensor<128x128xf32> -> tensor<128xf32>
      %68 = tile.splat %3 : tensor<128xf32>
      %69 = arith.mulf %67, %68 : tensor<128xf32>
      %70 = arith.maximumf %arg7, %69 : tensor<128xf32>
      %71 = tile.splat %3 : tensor<128x128xf32>
      %72 = arith.mulf %66, %71 : tensor<128x128xf32>
      %73 = tile.expand_dims %70, 1 : tensor<128xf32> -> tensor<128x1xf32>
      %74 = tile.broadcast %73 : tensor<128x1xf32> -> tensor<128x128xf32>
      %75 = arith.subf %72, %74 : tensor<128x128xf32>
      %76 = math.exp2 %75 : tensor<128x128xf32>
      %77 = arith.subf %arg7, %70 : tensor<128xf32>
      %78 = math.exp2 %77 : tensor<128xf32>
      %91 = arith.truncf %76 : tensor<128x128xf32> to tensor<128x128xf16>
      %96 = arith.mulf %arg8, %78 : tensor<128xf32>
      %97 = tile.reduce sum %76, 1 : tensor<128x128xf32> -> tensor<128xf32>
      %98 = arith.addf %96, %97 : tensor<128xf32>
      scf.yield %70, %98, %95, %91, %78 : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>, tensor<128x128xf16>, tensor<128xf32>
    }
    %28 = tile.expand_dims %27#1, 1 : tensor<128xf32> -> tensor<128x1xf32>
    %29 = tile.broadcast %28 : tensor<128x1xf32> -> tensor<128x128xf32>
    %30 = arith.divf %27#2, %29 : tensor<128x128xf32>
    %31 = tile.splat %c128_i32 : tensor<128x1xi32>
    %32 = arith.muli %9, %31 : tensor<128x1xi32>
    %33 = tile.splat %2 : tensor<128x1xi32>
    %34 = arith.addi %33, %32 : tensor<128x1xi32>
    %35 = tile.broadcast %34 : tensor<128x1xi32> -> tensor<128x128xi32>
    %36 = tile.broadcast %11 : tensor<1x128xi32> -> tensor<128x128xi32>
    %37 = arith.addi %35, %36 : tensor<128x128xi32>
    %38 = arith.truncf %30 : tensor<128x128xf32> to tensor<128x128xf16>
    %39 = tile.splat %arg4 : tensor<128x1xi32>
    %40 = arith.cmpi slt, %9, %39 : tensor<128x1xi32>
    %41 = tile.broadcast %40 : tensor<128x1xi1> -> tensor<128x128xi1>
    tile.store %arg3[%37], %38 mask %41 : (!tile.ptr<f16>, tensor<128x128xi32>, tensor<128x128xf16>, tensor<128x128xi1>) -> ()
    return
  }
}
