// RUN: %tessera compile %s --emit=spirv-mlir --coopmat=lanes | FileCheck %s
// RUN: env TESSERA_STAGING_BARRIER=1 %tessera compile %s --emit=spirv-mlir --coopmat=lanes | FileCheck %s --check-prefix=BARRIER

// Fast f16 dots on cooperative matrices whose accumulator lanes are mma.sync's (chip
// vulkan1.3+coopmat+mma-lanes). The 64 x 64 accumulator over 4 subgroups takes a 2 x 2 grid (each
// subgroup 32 x 32: two 16-row blocks of A and two 16-column blocks of B per k step). A (64 x 32,
// 8 contiguous elements a thread) is staged in rows of 32 + 8 elements, B (32 x 64) in rows of
// 64 + 8, both in arrays of 4-element vectors (one 8-byte store per 4 elements; the loads'
// strides count vectors: 40 / 4 = 10 and 72 / 4 = 18). Two 16-deep steps: 4 loads of A, 4 of B,
// 8 products. B's groups of 8 columns are permuted (subgroup column wc's groups side by side).
// The loop carries the subgroup's 4 accumulator blocks as cooperative matrices (carry-mma-matrices).
// Both operands change in the loop and fit twice (2 x 9728 bytes): iteration t writes half t % 2,
// so one barrier per iteration, between the writes and the reads, is enough (the arrays hold
// 2 x 640 and 2 x 576 vectors), plus one before the loop.
// CHECK-DAG: spirv.GlobalVariable @{{.*}} : !spirv.ptr<!spirv.struct<(!spirv.array<1280 x vector<4xf16>>)>, Workgroup>
// CHECK-DAG: spirv.GlobalVariable @{{.*}} : !spirv.ptr<!spirv.struct<(!spirv.array<1152 x vector<4xf16>>)>, Workgroup>
// With TESSERA_STAGING_BARRIER=1 (the pass's staging-barrier, a measurement switch) the halves
// keep the barrier before the writes too, as a dot staged once has it: two an iteration.
// BARRIER-LABEL: spirv.func @grid
// BARRIER: spirv.mlir.loop
// BARRIER: %[[PARITY:.*]] = spirv.BitwiseAnd
// BARRIER: spirv.ControlBarrier
// BARRIER-NOT: spirv.ControlBarrier
// BARRIER-COUNT-8: spirv.Store "Workgroup" %{{.*}}, %{{.*}} : vector<4xf16>
// BARRIER-NEXT: spirv.ControlBarrier
// BARRIER-NOT: spirv.ControlBarrier
// BARRIER: spirv.KHR.CooperativeMatrixLoad
// BARRIER-LABEL: spirv.func @transposed
// CHECK-LABEL: spirv.func @grid
// CHECK: spirv.ControlBarrier
// CHECK: spirv.mlir.loop
// CHECK-NEXT: spirv.Branch ^bb1(%{{.*}} : i32, !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>, !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>, !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>, !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>)
// CHECK-NOT: spirv.ControlBarrier
// CHECK: %[[T:.*]] = spirv.UDiv
// CHECK: %[[PARITY:.*]] = spirv.BitwiseAnd %[[T]], %{{.*}}
// CHECK: spirv.IMul %[[PARITY]], %{{.*}}2560
// CHECK: spirv.IMul %[[PARITY]], %{{.*}}2304
// CHECK-NOT: spirv.ControlBarrier
// CHECK-COUNT-4: spirv.Store "Workgroup" %{{.*}}, %{{.*}} : vector<4xf16>
// CHECK-NOT: spirv.Store "Workgroup" %{{.*}}, %{{.*}} : f16
// CHECK: spirv.ControlBarrier
// CHECK-NOT: spirv.ControlBarrier
// CHECK-COUNT-2: spirv.KHR.CooperativeMatrixLoad %{{.*}}, %cst10_i32{{.*}}, <RowMajor> : !spirv.ptr<vector<4xf16>, Workgroup>, i32 -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixA>
// CHECK-COUNT-2: spirv.KHR.CooperativeMatrixLoad %{{.*}}, %cst18_i32{{.*}}, <RowMajor> : !spirv.ptr<vector<4xf16>, Workgroup>, i32 -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixB>
// CHECK-COUNT-4: spirv.KHR.CooperativeMatrixMulAdd
// CHECK-COUNT-2: spirv.KHR.CooperativeMatrixLoad {{.*}}MatrixA>
// CHECK-COUNT-2: spirv.KHR.CooperativeMatrixLoad {{.*}}MatrixB>
// CHECK-COUNT-4: spirv.KHR.CooperativeMatrixMulAdd
// CHECK-NOT: spirv.KHR.CooperativeMatrixMulAdd
// CHECK: spirv.CompositeExtract {{.*}} : !spirv.coopmatrix<16x16xf32, Subgroup, MatrixAcc>
func.func @grid(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>, %k: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32, tile.numerics = "fast"} {
  %r = tile.arange 0, 64 : tensor<64xi32>
  %q = tile.arange 0, 32 : tensor<32xi32>
  %rows = tile.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %krow = tile.expand_dims %q, 1 : tensor<32xi32> -> tensor<32x1xi32>
  %kcol = tile.expand_dims %q, 0 : tensor<32xi32> -> tensor<1x32xi32>
  %s64a = arith.constant dense<64> : tensor<64x1xi32>
  %ar = arith.muli %rows, %s64a : tensor<64x1xi32>
  %arb = tile.broadcast %ar : tensor<64x1xi32> -> tensor<64x32xi32>
  %acb = tile.broadcast %kcol : tensor<1x32xi32> -> tensor<64x32xi32>
  %ao = arith.addi %arb, %acb : tensor<64x32xi32>
  %s64 = arith.constant dense<64> : tensor<32x1xi32>
  %br = arith.muli %krow, %s64 : tensor<32x1xi32>
  %brb = tile.broadcast %br : tensor<32x1xi32> -> tensor<32x64xi32>
  %bcb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<32x64xi32>
  %bo = arith.addi %brb, %bcb : tensor<32x64xi32>
  %crb = tile.broadcast %ar : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %co = arith.addi %crb, %ccb : tensor<64x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %acc = scf.for %i = %c0 to %k step %c32 iter_args(%s = %zero) -> (tensor<64x64xf32>) : i32 {
    %ia = tile.splat %i : tensor<64x32xi32>
    %ao2 = arith.addi %ao, %ia : tensor<64x32xi32>
    %x = tile.load %a[%ao2] : (!tile.ptr<f16>, tensor<64x32xi32>) -> tensor<64x32xf16>
    %ib = tile.splat %i : tensor<32x64xi32>
    %bo2 = arith.addi %bo, %ib : tensor<32x64xi32>
    %y = tile.load %b[%bo2] : (!tile.ptr<f16>, tensor<32x64xi32>) -> tensor<32x64xf16>
    %d = tile.dot %x, %y, %s : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %c[%co], %acc : (!tile.ptr<f32>, tensor<64x64xi32>, tensor<64x64xf32>) -> ()
  return
}

// B stored N x K (transpose_b, a 64 x 32 tile): staged as it comes, in rows of 32 + 8, and read
// column-major (stride 40 / 4 = 10).
// CHECK-LABEL: spirv.func @transposed
// CHECK: spirv.KHR.CooperativeMatrixLoad %{{.*}}, %cst10_i32{{.*}}, <ColumnMajor> : !spirv.ptr<vector<4xf16>, Workgroup>, i32 -> !spirv.coopmatrix<16x16xf16, Subgroup, MatrixB>
func.func @transposed(%a: !tile.ptr<f16>, %c: !tile.ptr<f32>, %k: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32, tile.numerics = "fast"} {
  %r = tile.arange 0, 64 : tensor<64xi32>
  %q = tile.arange 0, 32 : tensor<32xi32>
  %rows = tile.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %kcol = tile.expand_dims %q, 0 : tensor<32xi32> -> tensor<1x32xi32>
  %s64a = arith.constant dense<64> : tensor<64x1xi32>
  %ar = arith.muli %rows, %s64a : tensor<64x1xi32>
  %arb = tile.broadcast %ar : tensor<64x1xi32> -> tensor<64x32xi32>
  %acb = tile.broadcast %kcol : tensor<1x32xi32> -> tensor<64x32xi32>
  %ao = arith.addi %arb, %acb : tensor<64x32xi32>
  %crb = tile.broadcast %ar : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %co = arith.addi %crb, %ccb : tensor<64x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %acc = scf.for %i = %c0 to %k step %c32 iter_args(%s = %zero) -> (tensor<64x64xf32>) : i32 {
    %ia = tile.splat %i : tensor<64x32xi32>
    %ao2 = arith.addi %ao, %ia : tensor<64x32xi32>
    %x = tile.load %a[%ao2] : (!tile.ptr<f16>, tensor<64x32xi32>) -> tensor<64x32xf16>
    %y = tile.load %a[%ao] : (!tile.ptr<f16>, tensor<64x32xi32>) -> tensor<64x32xf16>
    %d = tile.dot %x, %y, %s {transpose_b} : tensor<64x32xf16>, tensor<64x32xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %c[%co], %acc : (!tile.ptr<f32>, tensor<64x64xi32>, tensor<64x64xf32>) -> ()
  return
}
