// RUN: tessera-opt %s -split-input-file --convert-tile-to-gpu="target=nvptx chip=sm_80" | FileCheck %s

// A 64 x 64 accumulator on the tensor cores over 4 subgroups takes them on a 2 x 2 grid
// (mmaAccumulatorLayout, mmaWarpCols): each subgroup holds a 32 x 32 block, so a k step loads
// two 16 x 16 fragments of A and two of B (4 ldmatrix), where 4 subgroups down the rows would
// load one of A and all four of B; 8 mma.sync either way. A thread's row is 8 x its subgroup row (tid >> 6) + lane / 4,
// its column 2 (lane % 4 + 4 x its subgroup column ((tid >> 5) & 1)).

// CHECK-LABEL: gpu.func @grid
// CHECK-DAG: %[[SH6:.*]] = arith.shrui %{{.*}}, %c6_i32
// CHECK-DAG: %[[SH5:.*]] = arith.shrui %{{.*}}, %c5_i32
// CHECK-DAG: arith.andi %[[SH5]], %c1_i32
// CHECK: scf.for
// CHECK-COUNT-4: nvvm.ldmatrix
// CHECK-NOT: nvvm.ldmatrix
// CHECK-COUNT-8: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: scf.yield
func.func @grid(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 64 : tensor<64xi32>
  %k = tile.arange 0, 16 : tensor<16xi32>
  %rows = tile.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %krow = tile.expand_dims %k, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %kcol = tile.expand_dims %k, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %s16 = arith.constant dense<16> : tensor<64x1xi32>
  %s64 = arith.constant dense<64> : tensor<16x1xi32>
  %s64c = arith.constant dense<64> : tensor<64x1xi32>
  %ar = arith.muli %rows, %s16 : tensor<64x1xi32>
  %arb = tile.broadcast %ar : tensor<64x1xi32> -> tensor<64x16xi32>
  %acb = tile.broadcast %kcol : tensor<1x16xi32> -> tensor<64x16xi32>
  %ao = arith.addi %arb, %acb : tensor<64x16xi32>
  %br = arith.muli %krow, %s64 : tensor<16x1xi32>
  %brb = tile.broadcast %br : tensor<16x1xi32> -> tensor<16x64xi32>
  %bcb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<16x64xi32>
  %bo = arith.addi %brb, %bcb : tensor<16x64xi32>
  %cr = arith.muli %rows, %s64c : tensor<64x1xi32>
  %crb = tile.broadcast %cr : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %co = arith.addi %crb, %ccb : tensor<64x64xi32>
  %x = tile.load %a[%ao] : (!tile.ptr<f16>, tensor<64x16xi32>) -> tensor<64x16xf16>
  %y = tile.load %b[%bo] : (!tile.ptr<f16>, tensor<16x64xi32>) -> tensor<16x64xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %x, %y, %zero : tensor<64x16xf16>, tensor<16x64xf16> -> tensor<64x64xf32>
  tile.store %c[%co], %d : (!tile.ptr<f32>, tensor<64x64xi32>, tensor<64x64xf32>) -> ()
  return
}

// -----

// The same dot whose result is reduced along its rows keeps the subgroups down the rows (the
// reduction's shuffles follow the plain split, and row statistics meet the accumulators of a
// kernel that reduces row by row): one fragment of A and four of B per k step.

// CHECK-LABEL: gpu.func @reduced
// CHECK: scf.for
// CHECK-COUNT-5: nvvm.ldmatrix
// CHECK-NOT: nvvm.ldmatrix
// CHECK: scf.yield
func.func @reduced(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 64 : tensor<64xi32>
  %k = tile.arange 0, 16 : tensor<16xi32>
  %rows = tile.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %krow = tile.expand_dims %k, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %kcol = tile.expand_dims %k, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %s16 = arith.constant dense<16> : tensor<64x1xi32>
  %s64 = arith.constant dense<64> : tensor<16x1xi32>
  %s64c = arith.constant dense<64> : tensor<64x1xi32>
  %ar = arith.muli %rows, %s16 : tensor<64x1xi32>
  %arb = tile.broadcast %ar : tensor<64x1xi32> -> tensor<64x16xi32>
  %acb = tile.broadcast %kcol : tensor<1x16xi32> -> tensor<64x16xi32>
  %ao = arith.addi %arb, %acb : tensor<64x16xi32>
  %br = arith.muli %krow, %s64 : tensor<16x1xi32>
  %brb = tile.broadcast %br : tensor<16x1xi32> -> tensor<16x64xi32>
  %bcb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<16x64xi32>
  %bo = arith.addi %brb, %bcb : tensor<16x64xi32>
  %cr = arith.muli %rows, %s64c : tensor<64x1xi32>
  %crb = tile.broadcast %cr : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %co = arith.addi %crb, %ccb : tensor<64x64xi32>
  %x = tile.load %a[%ao] : (!tile.ptr<f16>, tensor<64x16xi32>) -> tensor<64x16xf16>
  %y = tile.load %b[%bo] : (!tile.ptr<f16>, tensor<16x64xi32>) -> tensor<16x64xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %x, %y, %zero : tensor<64x16xf16>, tensor<16x64xf16> -> tensor<64x64xf32>
  %s = tile.reduce max %d, 1 : tensor<64x64xf32> -> tensor<64xf32>
  tile.store %c[%r], %s : (!tile.ptr<f32>, tensor<64xi32>, tensor<64xf32>) -> ()
  return
}

// -----

// A row statistic of the accumulator (attention's running max) takes the rows' slice of its
// layout (mmaRowSliceLayout): the reduction ends with shuffles among the 4 lanes of each row, in
// registers, and the result meets the accumulator again (expand_dims, broadcast, subf) without
// a barrier or shared memory.

// CHECK-LABEL: gpu.func @row_stats
// CHECK: nvvm.mma.sync
// CHECK: scf.yield
// CHECK-NOT: gpu.barrier
// CHECK: gpu.shuffle xor
// CHECK: arith.maximumf
// CHECK-NOT: gpu.barrier
// CHECK: arith.subf
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @row_stats(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 64 : tensor<64xi32>
  %k = tile.arange 0, 16 : tensor<16xi32>
  %rows = tile.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %krow = tile.expand_dims %k, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %kcol = tile.expand_dims %k, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %s16 = arith.constant dense<16> : tensor<64x1xi32>
  %s64 = arith.constant dense<64> : tensor<16x1xi32>
  %s64c = arith.constant dense<64> : tensor<64x1xi32>
  %ar = arith.muli %rows, %s16 : tensor<64x1xi32>
  %arb = tile.broadcast %ar : tensor<64x1xi32> -> tensor<64x16xi32>
  %acb = tile.broadcast %kcol : tensor<1x16xi32> -> tensor<64x16xi32>
  %ao = arith.addi %arb, %acb : tensor<64x16xi32>
  %br = arith.muli %krow, %s64 : tensor<16x1xi32>
  %brb = tile.broadcast %br : tensor<16x1xi32> -> tensor<16x64xi32>
  %bcb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<16x64xi32>
  %bo = arith.addi %brb, %bcb : tensor<16x64xi32>
  %cr = arith.muli %rows, %s64c : tensor<64x1xi32>
  %crb = tile.broadcast %cr : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %co = arith.addi %crb, %ccb : tensor<64x64xi32>
  %x = tile.load %a[%ao] : (!tile.ptr<f16>, tensor<64x16xi32>) -> tensor<64x16xf16>
  %y = tile.load %b[%bo] : (!tile.ptr<f16>, tensor<16x64xi32>) -> tensor<16x64xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %x, %y, %zero : tensor<64x16xf16>, tensor<16x64xf16> -> tensor<64x64xf32>
  %m = tile.reduce max %d, 1 : tensor<64x64xf32> -> tensor<64xf32>
  %me = tile.expand_dims %m, 1 : tensor<64xf32> -> tensor<64x1xf32>
  %mb = tile.broadcast %me : tensor<64x1xf32> -> tensor<64x64xf32>
  %z = arith.subf %d, %mb : tensor<64x64xf32>
  tile.store %c[%co], %z : (!tile.ptr<f32>, tensor<64x64xi32>, tensor<64x64xf32>) -> ()
  return
}

// -----

// The probabilities of attention (an f16 tile in the accumulator layout, made in registers) are
// the A operand of the next dot: each lane's values of A's 16 x 8 blocks (p, 2kk), (p, 2kk + 1)
// are its A fragment of block (p, kk), packed two to a word, so A has no shared array (three
// arrays: the first dot's A and B, and the second's B) and no ldmatrix.

// CHECK: llvm.mlir.global internal @__tessera_shared_2()
// CHECK-NOT: llvm.mlir.global internal @__tessera_shared_3()
// CHECK-LABEL: gpu.func @a_in_registers
// CHECK: gpu.shuffle xor
// CHECK: %[[LO:.*]] = llvm.insertelement
// CHECK: %[[W:.*]] = llvm.insertelement %{{.*}}, %[[LO]]
// CHECK: nvvm.mma.sync A[%[[W]],
func.func @a_in_registers(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 64 : tensor<64xi32>
  %k = tile.arange 0, 16 : tensor<16xi32>
  %rows = tile.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %krow = tile.expand_dims %k, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %kcol = tile.expand_dims %k, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %s16 = arith.constant dense<16> : tensor<64x1xi32>
  %s64 = arith.constant dense<64> : tensor<16x1xi32>
  %s64c = arith.constant dense<64> : tensor<64x1xi32>
  %ar = arith.muli %rows, %s16 : tensor<64x1xi32>
  %arb = tile.broadcast %ar : tensor<64x1xi32> -> tensor<64x16xi32>
  %acb = tile.broadcast %kcol : tensor<1x16xi32> -> tensor<64x16xi32>
  %ao = arith.addi %arb, %acb : tensor<64x16xi32>
  %br = arith.muli %krow, %s64 : tensor<16x1xi32>
  %brb = tile.broadcast %br : tensor<16x1xi32> -> tensor<16x64xi32>
  %bcb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<16x64xi32>
  %bo = arith.addi %brb, %bcb : tensor<16x64xi32>
  %cr = arith.muli %rows, %s64c : tensor<64x1xi32>
  %crb = tile.broadcast %cr : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %co = arith.addi %crb, %ccb : tensor<64x64xi32>
  %x = tile.load %a[%ao] : (!tile.ptr<f16>, tensor<64x16xi32>) -> tensor<64x16xf16>
  %y = tile.load %b[%bo] : (!tile.ptr<f16>, tensor<16x64xi32>) -> tensor<16x64xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %x, %y, %zero : tensor<64x16xf16>, tensor<16x64xf16> -> tensor<64x64xf32>
  %m = tile.reduce max %d, 1 : tensor<64x64xf32> -> tensor<64xf32>
  %me = tile.expand_dims %m, 1 : tensor<64xf32> -> tensor<64x1xf32>
  %mb = tile.broadcast %me : tensor<64x1xf32> -> tensor<64x64xf32>
  %z = arith.subf %d, %mb : tensor<64x64xf32>
  %p = arith.truncf %z : tensor<64x64xf32> to tensor<64x64xf16>
  %vo = arith.addi %co, %co : tensor<64x64xi32>
  %v = tile.load %b[%vo] : (!tile.ptr<f16>, tensor<64x64xi32>) -> tensor<64x64xf16>
  %o = tile.dot %p, %v, %zero : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
  tile.store %c[%co], %o : (!tile.ptr<f32>, tensor<64x64xi32>, tensor<64x64xf32>) -> ()
  return
}
