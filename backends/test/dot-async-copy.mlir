// RUN: tessera-opt %s -split-input-file --convert-tile-to-gpu="target=nvptx chip=sm_80" | FileCheck %s

// A fast dot on the tensor cores whose operands are loaded for it alone, in the loop around it,
// from offsets of the induction variable: the loads become cp.async copies from the buffers
// straight into shared memory, in 3 stages (16 x 24 f16 each, rows padded by 16 bytes). Before
// the loop: the copies of iterations 0 and 1, one group each; each iteration waits until at most
// one group is in flight, passes a barrier, issues the copies of the iteration two ahead, and
// computes from its stage; nothing stays in flight after the loop.

// CHECK-DAG: llvm.mlir.global internal @[[SA:__tessera_shared_[0-9]+]]() {{.*}} : !llvm.array<1152 x f16>
// CHECK-DAG: llvm.mlir.global internal @[[SB:__tessera_shared_[0-9]+]]() {{.*}} : !llvm.array<1152 x f16>
// CHECK-LABEL: gpu.func @pipelined
// CHECK-SAME: tessera.shared_bytes = 4608
// CHECK: gpu.barrier
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: nvvm.cp.async
// CHECK: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.ldmatrix
// CHECK: nvvm.mma.sync
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
// CHECK: nvvm.cp.async.wait.group 0
func.func @pipelined(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>, %k: i32)
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.arange 0, 16 : tensor<16xi32>
  %rows = tile.expand_dims %r, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %cols = tile.expand_dims %r, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %sixteen = arith.constant dense<16> : tensor<16x16xi32>
  %rb = tile.broadcast %rows : tensor<16x1xi32> -> tensor<16x16xi32>
  %cb = tile.broadcast %cols : tensor<1x16xi32> -> tensor<16x16xi32>
  %ro = arith.muli %rb, %sixteen : tensor<16x16xi32>
  %offs = arith.addi %ro, %cb : tensor<16x16xi32>
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %acc = scf.for %i = %c0 to %k step %c16 iter_args(%s = %zero) -> (tensor<16x16xf32>) : i32 {
    %is = tile.splat %i : tensor<16x16xi32>
    %ao = arith.addi %offs, %is : tensor<16x16xi32>
    %ks = tile.splat %k : tensor<16x16xi32>
    %m = arith.cmpi slt, %ao, %ks : tensor<16x16xi32>
    %x = tile.load %a[%ao] mask %m : (!tile.ptr<f16>, tensor<16x16xi32>, tensor<16x16xi1>) -> tensor<16x16xf16>
    %y = tile.load %b[%ao] : (!tile.ptr<f16>, tensor<16x16xi32>) -> tensor<16x16xf16>
    %d = tile.dot %x, %y, %s : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  tile.store %c[%offs], %acc : (!tile.ptr<f32>, tensor<16x16xi32>, tensor<16x16xf32>) -> ()
  return
}

// -----

// A loop that also stores is not pipelined (a later iteration's load may read what it
// stores): each iteration copies between the two barriers and waits for its own copies.

// CHECK-LABEL: gpu.func @stores_in_loop
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.mma.sync
func.func @stores_in_loop(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>, %k: i32)
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.arange 0, 16 : tensor<16xi32>
  %rows = tile.expand_dims %r, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %cols = tile.expand_dims %r, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %sixteen = arith.constant dense<16> : tensor<16x16xi32>
  %rb = tile.broadcast %rows : tensor<16x1xi32> -> tensor<16x16xi32>
  %cb = tile.broadcast %cols : tensor<1x16xi32> -> tensor<16x16xi32>
  %ro = arith.muli %rb, %sixteen : tensor<16x16xi32>
  %offs = arith.addi %ro, %cb : tensor<16x16xi32>
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %acc = scf.for %i = %c0 to %k step %c16 iter_args(%s = %zero) -> (tensor<16x16xf32>) : i32 {
    %is = tile.splat %i : tensor<16x16xi32>
    %ao = arith.addi %offs, %is : tensor<16x16xi32>
    %x = tile.load %a[%ao] : (!tile.ptr<f16>, tensor<16x16xi32>) -> tensor<16x16xf16>
    %y = tile.load %b[%ao] : (!tile.ptr<f16>, tensor<16x16xi32>) -> tensor<16x16xf16>
    %d = tile.dot %x, %y, %s : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
    tile.store %c[%ao], %d : (!tile.ptr<f32>, tensor<16x16xi32>, tensor<16x16xf32>) -> ()
    scf.yield %d : tensor<16x16xf32>
  }
  return
}

// -----

// Portable mode sums in order on the FMA path: no copies.

// CHECK-LABEL: gpu.func @portable
// CHECK-NOT: nvvm.cp.async
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.return
func.func @portable(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>, %k: i32)
    attributes {tile.kernel, tile.num_warps = 1 : i32, tile.numerics = "portable"} {
  %r = tile.arange 0, 16 : tensor<16xi32>
  %rows = tile.expand_dims %r, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %cols = tile.expand_dims %r, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %sixteen = arith.constant dense<16> : tensor<16x16xi32>
  %rb = tile.broadcast %rows : tensor<16x1xi32> -> tensor<16x16xi32>
  %cb = tile.broadcast %cols : tensor<1x16xi32> -> tensor<16x16xi32>
  %ro = arith.muli %rb, %sixteen : tensor<16x16xi32>
  %offs = arith.addi %ro, %cb : tensor<16x16xi32>
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %acc = scf.for %i = %c0 to %k step %c16 iter_args(%s = %zero) -> (tensor<16x16xf32>) : i32 {
    %is = tile.splat %i : tensor<16x16xi32>
    %ao = arith.addi %offs, %is : tensor<16x16xi32>
    %ks = tile.splat %k : tensor<16x16xi32>
    %m = arith.cmpi slt, %ao, %ks : tensor<16x16xi32>
    %x = tile.load %a[%ao] mask %m : (!tile.ptr<f16>, tensor<16x16xi32>, tensor<16x16xi1>) -> tensor<16x16xf16>
    %y = tile.load %b[%ao] : (!tile.ptr<f16>, tensor<16x16xi32>) -> tensor<16x16xf16>
    %d = tile.dot %x, %y, %s : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  tile.store %c[%offs], %acc : (!tile.ptr<f32>, tensor<16x16xi32>, tensor<16x16xf32>) -> ()
  return
}

// -----

// Past CUDA's 48 KiB of static shared memory the arrays become ranges of one dynamic `.extern
// .shared` array, which the runtime sizes at launch. A and B, 128 x 128 each, take 2 stages of
// 128 x 136 x 2 bytes: 3 would pass sm_80's 163 KiB.

// CHECK: llvm.mlir.global external @__tessera_dynamic_shared() {{.*}}addr_space = 3 : i32{{.*}} : !llvm.array<0 x i8>
// CHECK-NOT: llvm.mlir.global internal @__tessera_shared_
// CHECK-LABEL: gpu.func @dynamic_shared
// CHECK-SAME: tessera.shared_bytes = 139264
// CHECK: %[[A:.*]] = llvm.mlir.addressof @__tessera_dynamic_shared : !llvm.ptr<3>
// CHECK-NEXT: llvm.getelementptr inbounds %[[A]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: %[[B:.*]] = llvm.mlir.addressof @__tessera_dynamic_shared : !llvm.ptr<3>
// CHECK-NEXT: llvm.getelementptr inbounds %[[B]][69632] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: nvvm.cp.async.shared.global
func.func @dynamic_shared(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>, %k: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %r = tile.arange 0, 128 : tensor<128xi32>
  %rows = tile.expand_dims %r, 1 : tensor<128xi32> -> tensor<128x1xi32>
  %cols = tile.expand_dims %r, 0 : tensor<128xi32> -> tensor<1x128xi32>
  %sixteen = arith.constant dense<128> : tensor<128x128xi32>
  %rb = tile.broadcast %rows : tensor<128x1xi32> -> tensor<128x128xi32>
  %cb = tile.broadcast %cols : tensor<1x128xi32> -> tensor<128x128xi32>
  %ro = arith.muli %rb, %sixteen : tensor<128x128xi32>
  %offs = arith.addi %ro, %cb : tensor<128x128xi32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 128 : i32
  %acc = scf.for %i = %c0 to %k step %c16 iter_args(%s = %zero) -> (tensor<128x128xf32>) : i32 {
    %is = tile.splat %i : tensor<128x128xi32>
    %ao = arith.addi %offs, %is : tensor<128x128xi32>
    %ks = tile.splat %k : tensor<128x128xi32>
    %m = arith.cmpi slt, %ao, %ks : tensor<128x128xi32>
    %x = tile.load %a[%ao] mask %m : (!tile.ptr<f16>, tensor<128x128xi32>, tensor<128x128xi1>) -> tensor<128x128xf16>
    %y = tile.load %b[%ao] : (!tile.ptr<f16>, tensor<128x128xi32>) -> tensor<128x128xf16>
    %d = tile.dot %x, %y, %s : tensor<128x128xf16>, tensor<128x128xf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %c[%offs], %acc : (!tile.ptr<f32>, tensor<128x128xi32>, tensor<128x128xf32>) -> ()
  return
}

// -----

// A dot in no loop copies its operands between its two barriers and waits for its own copies;
// a masked-off element takes `other` (here 1.5, recomputed for the copy), stored element by
// element.

// CHECK-LABEL: gpu.func @no_loop
// CHECK-NOT: scf.for
// CHECK: gpu.barrier
// CHECK: arith.constant 1.500000e+00 : f16
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.mma.sync
func.func @no_loop(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.arange 0, 16 : tensor<16xi32>
  %rows = tile.expand_dims %r, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %cols = tile.expand_dims %r, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %sixteen = arith.constant dense<16> : tensor<16x16xi32>
  %rb = tile.broadcast %rows : tensor<16x1xi32> -> tensor<16x16xi32>
  %cb = tile.broadcast %cols : tensor<1x16xi32> -> tensor<16x16xi32>
  %ro = arith.muli %rb, %sixteen : tensor<16x16xi32>
  %offs = arith.addi %ro, %cb : tensor<16x16xi32>
  %ns = tile.splat %n : tensor<16x16xi32>
  %m = arith.cmpi slt, %offs, %ns : tensor<16x16xi32>
  %other = arith.constant dense<1.5> : tensor<16x16xf16>
  %x = tile.load %a[%offs] mask %m other %other : (!tile.ptr<f16>, tensor<16x16xi32>, tensor<16x16xi1>, tensor<16x16xf16>) -> tensor<16x16xf16>
  %y = tile.load %b[%offs] : (!tile.ptr<f16>, tensor<16x16xi32>) -> tensor<16x16xf16>
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = tile.dot %x, %y, %zero : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
  tile.store %c[%offs], %d : (!tile.ptr<f32>, tensor<16x16xi32>, tensor<16x16xf32>) -> ()
  return
}

// -----

// A pipelined loop inside another: the copies issued ahead of the inner loop overwrite stages
// the previous run of the inner loop read, so a barrier comes first, in the outer loop.

// CHECK-LABEL: gpu.func @nested
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.mma.sync
// CHECK: nvvm.cp.async.wait.group 0
func.func @nested(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>, %k: i32, %blocks: i32)
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.arange 0, 16 : tensor<16xi32>
  %rows = tile.expand_dims %r, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %cols = tile.expand_dims %r, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %sixteen = arith.constant dense<16> : tensor<16x16xi32>
  %rb = tile.broadcast %rows : tensor<16x1xi32> -> tensor<16x16xi32>
  %cb = tile.broadcast %cols : tensor<1x16xi32> -> tensor<16x16xi32>
  %ro = arith.muli %rb, %sixteen : tensor<16x16xi32>
  %offs = arith.addi %ro, %cb : tensor<16x16xi32>
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  scf.for %blk = %c0 to %blocks step %c1 : i32 {
    %acc = scf.for %i = %c0 to %k step %c16 iter_args(%s = %zero) -> (tensor<16x16xf32>) : i32 {
      %is = tile.splat %i : tensor<16x16xi32>
      %ao = arith.addi %offs, %is : tensor<16x16xi32>
      %x = tile.load %a[%ao] : (!tile.ptr<f16>, tensor<16x16xi32>) -> tensor<16x16xf16>
      %y = tile.load %b[%ao] : (!tile.ptr<f16>, tensor<16x16xi32>) -> tensor<16x16xf16>
      %d = tile.dot %x, %y, %s : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
      scf.yield %d : tensor<16x16xf32>
    }
    %bs = tile.splat %blk : tensor<16x16xi32>
    %co = arith.addi %offs, %bs : tensor<16x16xi32>
    tile.store %c[%co], %acc : (!tile.ptr<f32>, tensor<16x16xi32>, tensor<16x16xf32>) -> ()
  }
  return
}

// -----

// The same dot whose operands' offsets add a scalar the loop computes from values outside it (a
// block's first row, written in the loop body): the scalar moves before the loop, so the
// offsets depend only on the induction variable and values from outside, and both operands are
// still copied from their buffers in stages. Tiles stay in the loop.

// CHECK-LABEL: gpu.func @invariant_scalar
// CHECK: arith.muli %{{.*}}, %{{.*}} : i32
// CHECK: scf.for
// CHECK-NOT: arith.muli %{{.*}}, %{{.*}} : i32
// CHECK: nvvm.cp.async.wait.group 1
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.mma.sync
// CHECK: scf.yield
func.func @invariant_scalar(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>, %k: i32, %blk: i32)
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.arange 0, 16 : tensor<16xi32>
  %rows = tile.expand_dims %r, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %cols = tile.expand_dims %r, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %sixteen = arith.constant dense<16> : tensor<16x16xi32>
  %rb = tile.broadcast %rows : tensor<16x1xi32> -> tensor<16x16xi32>
  %cb = tile.broadcast %cols : tensor<1x16xi32> -> tensor<16x16xi32>
  %ro = arith.muli %rb, %sixteen : tensor<16x16xi32>
  %offs = arith.addi %ro, %cb : tensor<16x16xi32>
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %c256 = arith.constant 256 : i32
  %acc = scf.for %i = %c0 to %k step %c16 iter_args(%s = %zero) -> (tensor<16x16xf32>) : i32 {
    %first = arith.muli %blk, %c256 : i32
    %fs = tile.splat %first : tensor<16x16xi32>
    %is = tile.splat %i : tensor<16x16xi32>
    %o1 = arith.addi %offs, %is : tensor<16x16xi32>
    %ao = arith.addi %o1, %fs : tensor<16x16xi32>
    %x = tile.load %a[%ao] : (!tile.ptr<f16>, tensor<16x16xi32>) -> tensor<16x16xf16>
    %y = tile.load %b[%ao] : (!tile.ptr<f16>, tensor<16x16xi32>) -> tensor<16x16xf16>
    %d = tile.dot %x, %y, %s : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  tile.store %c[%offs], %acc : (!tile.ptr<f32>, tensor<16x16xi32>, tensor<16x16xf32>) -> ()
  return
}

// -----

// The same loop with k a multiple of 16 (tile.divisibility, as in the variant for multiples of
// 16): every 16-byte run of a's copy is contiguous, aligned and under one mask bit (its offsets
// from a multiple of 8, k a multiple of 8), so each run is one cp.async whose source size is 16
// bytes where its bit is set and 0 where not (zeros), reading from the buffer's start then: no
// branch around the copies and no element-by-element path. b's copies, unmasked, take no source
// size.

// CHECK-LABEL: gpu.func @zero_filled
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK-NOT: scf.if
// CHECK: %[[FROM:.*]] = arith.select %[[BIT:.*]], %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: %[[SIZE:.*]] = arith.select %[[BIT]], %{{.*}}, %{{.*}} : i32
// CHECK-NOT: scf.if
// CHECK: llvm.getelementptr inbounds %arg0[%[[FROM]]]
// CHECK-NEXT: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %[[SIZE]]
// CHECK-NOT: scf.if
// CHECK-NOT: llvm.load
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg :
// CHECK-NOT: llvm.load
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: llvm.load
// CHECK: nvvm.ldmatrix
// CHECK: scf.yield
func.func @zero_filled(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>, %k: i32 {tile.divisibility = 16 : i64})
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.arange 0, 16 : tensor<16xi32>
  %rows = tile.expand_dims %r, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %cols = tile.expand_dims %r, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %sixteen = arith.constant dense<16> : tensor<16x16xi32>
  %rb = tile.broadcast %rows : tensor<16x1xi32> -> tensor<16x16xi32>
  %cb = tile.broadcast %cols : tensor<1x16xi32> -> tensor<16x16xi32>
  %ro = arith.muli %rb, %sixteen : tensor<16x16xi32>
  %offs = arith.addi %ro, %cb : tensor<16x16xi32>
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %acc = scf.for %i = %c0 to %k step %c16 iter_args(%s = %zero) -> (tensor<16x16xf32>) : i32 {
    %is = tile.splat %i : tensor<16x16xi32>
    %ao = arith.addi %offs, %is : tensor<16x16xi32>
    %ks = tile.splat %k : tensor<16x16xi32>
    %m = arith.cmpi slt, %ao, %ks : tensor<16x16xi32>
    %x = tile.load %a[%ao] mask %m : (!tile.ptr<f16>, tensor<16x16xi32>, tensor<16x16xi1>) -> tensor<16x16xf16>
    %y = tile.load %b[%ao] : (!tile.ptr<f16>, tensor<16x16xi32>) -> tensor<16x16xf16>
    %d = tile.dot %x, %y, %s : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  tile.store %c[%offs], %acc : (!tile.ptr<f32>, tensor<16x16xi32>, tensor<16x16xf32>) -> ()
  return
}
