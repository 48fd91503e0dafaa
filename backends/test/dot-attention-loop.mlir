// RUN: tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90a tensor-copies=1 tensor-copy-release=mbarrier warpgroup-pingpong=1 producer-warp=off" | FileCheck %s
// RUN: tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90a tensor-copies=1 tensor-copy-release=mbarrier producer-warp=off" | FileCheck %s --check-prefix=OFF
// RUN: tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90a tensor-copies=1 producer-warp=off" | FileCheck %s --check-prefix=SHARED
// RUN: tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90a tensor-copies=1 producer-warp=on" | FileCheck %s --check-prefix=PRODUCER
// The default (producer-warp=auto) gives attention's loop, on two warpgroups, the producer.
// RUN: tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90a tensor-copies=1" | FileCheck %s --check-prefix=PRODUCER
// RUN: not tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90a tensor-copies=1 tensor-copy-release=barrier warpgroup-pingpong=1 producer-warp=off" 2>&1 | FileCheck %s --check-prefix=ALIGNED

// Attention's loop (06_flash_attention's kernel at 128 x 128 on 8 warps, D = 128, after the tile
// passes), whose two dots run on the warpgroup units with K and V by tensor copy, the stages
// released by their readers (tensor-copy-release=mbarrier). With warpgroup-pingpong (measured
// slower on the H100: docs/bench.md, run 35/36) the two warpgroups take turns: before the loop the second (thread >= 128)
// passes barrier 1 once; in the loop each dot waits at its warpgroup's barrier (1 + G) before the
// units' fence and passes the other's (2 - G) after the commit, before waiting for its
// instructions; after the loop the first (thread < 128) waits at barrier 1 for the second's last
// pass.
// CHECK-LABEL: gpu.func @attention
// CHECK: arith.cmpi uge, %{{.*}}, %c128_i32{{.*}}
// CHECK-NEXT: scf.if
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 256 : i32
// CHECK-NEXT: nvvm.barrier.arrive id = %c1_i32{{.*}} number_of_threads = %c256_i32
// CHECK: scf.for
// CHECK-NOT: nvvm.wgmma.fence.aligned
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c256_i32
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: arith.constant 256 : i32
// CHECK-NEXT: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %c256_i32
// CHECK-NOT: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: nvvm.wgmma.fence.aligned
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c256_i32
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: arith.constant 256 : i32
// CHECK-NEXT: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %c256_i32
// CHECK-NOT: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: scf.yield
// CHECK: arith.cmpi ult, %{{.*}}, %c128_i32{{.*}}
// CHECK-NEXT: scf.if
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: arith.constant 256 : i32
// CHECK-NEXT: nvvm.barrier id = %c1_i32{{.*}} number_of_threads = %c256_i32
// By default (a barrier of the program per iteration) the first dot's barrier frees the second
// dot's stage too: every thread passes it only after the previous iteration's dots are done.
// So the loop holds one barrier: after the wait for the keys' stage, the first thread copies the
// keys (map 6) and then the values (map 7) of the next iteration; the second dot only waits for
// its stage's data.
// SHARED-LABEL: gpu.func @attention
// SHARED: scf.for
// SHARED: nvvm.mbarrier.try_wait.parity
// SHARED: gpu.barrier
// SHARED: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c32768_i32
// SHARED-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg6,
// SHARED: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c32768_i32
// SHARED-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg7,
// SHARED-NOT: gpu.barrier
// SHARED: nvvm.wgmma.fence.aligned
// SHARED-NOT: gpu.barrier
// SHARED: nvvm.mbarrier.try_wait.parity
// SHARED-NOT: gpu.barrier
// SHARED-NOT: nvvm.cp.async.bulk.tensor
// SHARED: nvvm.wgmma.fence.aligned
// SHARED-NOT: gpu.barrier
// SHARED: scf.yield
// With producer-warp the program gets a warpgroup more (384 threads, tessera.producer_threads =
// 128) that issues both dots' copies: after every thread's setup, threads 256 and up give
// registers back (40 each) and, in their first subgroup only, run the loop's iterations on
// their own (per dot: wait for the readers' release of the stage's previous use, then the first
// thread expects the stage's bytes and copies the keys (map 6), then the values (map 7)), then
// exit; the others take registers (232 each) and run the loop with no barrier of the program and
// no copies, each dot waiting for its stage's data and releasing the stage once read.
// PRODUCER-LABEL: gpu.func @attention
// PRODUCER-SAME: known_block_size = array<i32: 384, 1, 1>
// PRODUCER-SAME: tessera.producer_threads = 128
// The producer's threads run the tile code before the loop as copies of the first warpgroup's:
// every tile op reads the index less 256 (rows past the block's would land in other staged rows).
// PRODUCER: %[[LAUNCH:.*]] = arith.index_cast %thread_id_x
// PRODUCER: %[[PAST:.*]] = arith.cmpi uge, %[[LAUNCH]], %c256_i32
// PRODUCER-NEXT: %[[LESS:.*]] = arith.subi %[[LAUNCH]], %c256_i32
// PRODUCER-NEXT: %[[TID:.*]] = arith.select %[[PAST]], %[[LESS]], %[[LAUNCH]]
// PRODUCER-NOT: %[[LAUNCH]]
// PRODUCER: arith.shrui %[[TID]]
// PRODUCER: arith.cmpi eq, %[[LAUNCH]], %c0_i32
// PRODUCER-NEXT: scf.if
// PRODUCER: nvvm.mbarrier.init
// PRODUCER: nvvm.mbarrier.init %{{.*}}, %c8_i32
// PRODUCER: arith.cmpi uge, %[[LAUNCH]], %c256_i32
// PRODUCER: gpu.barrier
// PRODUCER: nvvm.setmaxregister decrease 40
// PRODUCER: arith.cmpi ult, %{{.*}}, %c288_i32
// PRODUCER: scf.for
// PRODUCER: nvvm.mbarrier.try_wait.parity
// PRODUCER: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c32768_i32
// PRODUCER-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg6,
// PRODUCER: nvvm.mbarrier.try_wait.parity
// PRODUCER: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c32768_i32
// PRODUCER-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg7,
// PRODUCER: nvvm.exit
// PRODUCER-NEXT: } else {
// PRODUCER-NEXT: nvvm.setmaxregister increase 232
// PRODUCER: scf.for
// PRODUCER-NOT: gpu.barrier
// PRODUCER-NOT: nvvm.cp.async.bulk.tensor
// PRODUCER: nvvm.mbarrier.try_wait.parity
// PRODUCER: nvvm.wgmma.fence.aligned
// PRODUCER: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// PRODUCER: nvvm.mbarrier.try_wait.parity
// PRODUCER: nvvm.wgmma.fence.aligned
// PRODUCER: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// PRODUCER-NOT: gpu.barrier
// PRODUCER-NOT: nvvm.cp.async.bulk.tensor
// PRODUCER: scf.yield
// Without the option: no named barrier.
// OFF-LABEL: gpu.func @attention
// OFF-NOT: nvvm.barrier id
// OFF-NOT: nvvm.barrier.arrive
// With a barrier of the program in each iteration the warpgroups cannot take turns.
// ALIGNED: error: warpgroup-pingpong: the dots of this loop need two warpgroups on the warpgroup units and stages their readers release (every operand by tensor copy, tensor-copy-release=mbarrier)
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
    %27:3 = scf.for %arg6 = %c0_i32 to %arg4 step %c128_i32 iter_args(%arg7 = %24, %arg8 = %25, %arg9 = %26) -> (tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>)  : i32 {
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
      %79 = tile.splat %c128_i32 : tensor<128x1xi32>
      %80 = arith.muli %45, %79 : tensor<128x1xi32>
      %81 = tile.splat %2 : tensor<128x1xi32>
      %82 = arith.addi %81, %80 : tensor<128x1xi32>
      %83 = tile.broadcast %82 : tensor<128x1xi32> -> tensor<128x128xi32>
      %84 = tile.broadcast %11 : tensor<1x128xi32> -> tensor<128x128xi32>
      %85 = arith.addi %83, %84 : tensor<128x128xi32>
      %86 = tile.splat %arg4 : tensor<128x1xi32>
      %87 = arith.cmpi slt, %45, %86 : tensor<128x1xi32>
      %88 = tile.broadcast %87 : tensor<128x1xi1> -> tensor<128x128xi1>
      %89 = tile.splat %cst_1 : tensor<128x128xf16>
      %90 = tile.load %arg2[%85] mask %88 other %89 : (!tile.ptr<f16>, tensor<128x128xi32>, tensor<128x128xi1>, tensor<128x128xf16>) -> tensor<128x128xf16>
      %91 = arith.truncf %76 : tensor<128x128xf32> to tensor<128x128xf16>
      %92 = tile.expand_dims %78, 1 : tensor<128xf32> -> tensor<128x1xf32>
      %93 = tile.broadcast %92 : tensor<128x1xf32> -> tensor<128x128xf32>
      %94 = arith.mulf %arg9, %93 : tensor<128x128xf32>
      %95 = tile.dot %91, %90, %94 : tensor<128x128xf16>, tensor<128x128xf16> -> tensor<128x128xf32>
      %96 = arith.mulf %arg8, %78 : tensor<128xf32>
      %97 = tile.reduce sum %76, 1 : tensor<128x128xf32> -> tensor<128xf32>
      %98 = arith.addf %96, %97 : tensor<128xf32>
      scf.yield %70, %98, %95 : tensor<128xf32>, tensor<128xf32>, tensor<128x128xf32>
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
