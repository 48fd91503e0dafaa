// RUN: tessera-opt %s -split-input-file --convert-tile-to-gpu="target=nvptx chip=sm_90a" | FileCheck %s
// RUN: tessera-opt %s -split-input-file --convert-tile-to-gpu="target=nvptx chip=sm_90" | FileCheck %s --check-prefix=SM90

// A fast f16 dot whose operands are loaded for it alone, in a loop, on sm_90a: the warpgroup
// matrix units (wgmma). The 4 subgroups form one warpgroup; its 64 x 64 accumulator stays in
// registers with the subgroups down the rows. A (64 x 32) and B (32 x 64) are copied by cp.async
// into arrays aligned to 1024 bytes, 4 stages of 4096 bytes each, unpadded: A in rows of 64 bytes
// (64-byte swizzle: descriptor bits 62-63 = 2, stride 512 bytes between groups of 8 rows), B in
// rows of 128 bytes along N (128-byte swizzle = 1, 1024 bytes between groups of 8 rows of k,
// 32 x 128 bytes between panels of 64 columns). Each thread fences its landed copies for the
// units before the barrier; each iteration issues one instruction per k step of 16, m64n64k16,
// B N-major, after a wgmma fence, commits them, and then issues the copies for the iteration
// ahead (copies-after-mma). The dot only accumulates across the loop, so each batch stays in
// flight into the next iteration (wait until 1 is): the copies run 2 iterations ahead (4
// stages), leaving the stages of the batches in flight alone, and the last batch is waited for
// after the loop. Descriptors: A's leading offset is unused
// (1 << 16), its high word 512 / 16 | 2 << 30; B's leading offset 4096 / 16 << 16, its high word
// 1024 / 16 | 1 << 30. A thread's two 16-byte runs of A are copied behind one branch (both
// whole), not one each.

// CHECK-DAG: llvm.mlir.global internal @[[SA:__tessera_shared_[0-9]+]]() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x f16>
// CHECK-DAG: llvm.mlir.global internal @[[SB:__tessera_shared_[0-9]+]]() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x f16>
// CHECK-LABEL: gpu.func @warpgroup
// CHECK-SAME: tessera.shared_bytes = 32768
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK-NOT: nvvm.ldmatrix
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: arith.constant 65536 : i32
// CHECK: arith.constant -9223371899415822336 : i64
// CHECK: arith.constant 16777216 : i32
// CHECK: arith.constant 4611686293305294848 : i64
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: scf.if
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg
// CHECK-NOT: scf.if
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NOT: nvvm.mma.sync
// CHECK: scf.yield
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: nvvm.cp.async.wait.group 0

// The same kernel for sm_90 (no wgmma) runs mma.sync.
// SM90-LABEL: gpu.func @warpgroup
// SM90-NOT: nvvm.wgmma
// SM90: nvvm.mma.sync
func.func @warpgroup(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>, %k: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 64 : tensor<64xi32>
  %q = tile.arange 0, 32 : tensor<32xi32>
  %rows = tile.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %krow = tile.expand_dims %q, 1 : tensor<32xi32> -> tensor<32x1xi32>
  %kcol = tile.expand_dims %q, 0 : tensor<32xi32> -> tensor<1x32xi32>
  %ks = tile.splat %k : tensor<64x1xi32>
  %ar = arith.muli %rows, %ks : tensor<64x1xi32>
  %arb = tile.broadcast %ar : tensor<64x1xi32> -> tensor<64x32xi32>
  %acb = tile.broadcast %kcol : tensor<1x32xi32> -> tensor<64x32xi32>
  %ao = arith.addi %arb, %acb : tensor<64x32xi32>
  %s64 = arith.constant dense<64> : tensor<32x1xi32>
  %br = arith.muli %krow, %s64 : tensor<32x1xi32>
  %brb = tile.broadcast %br : tensor<32x1xi32> -> tensor<32x64xi32>
  %bcb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<32x64xi32>
  %bo = arith.addi %brb, %bcb : tensor<32x64xi32>
  %s64c = arith.constant dense<64> : tensor<64x1xi32>
  %cr = arith.muli %rows, %s64c : tensor<64x1xi32>
  %crb = tile.broadcast %cr : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %co = arith.addi %crb, %ccb : tensor<64x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %s64b = arith.constant dense<64> : tensor<32x64xi32>
  %acc = scf.for %i = %c0 to %k step %c32 iter_args(%s = %zero) -> (tensor<64x64xf32>) : i32 {
    %ia = tile.splat %i : tensor<64x32xi32>
    %ao2 = arith.addi %ao, %ia : tensor<64x32xi32>
    %ib = tile.splat %i : tensor<32x64xi32>
    %ib64 = arith.muli %ib, %s64b : tensor<32x64xi32>
    %bo2 = arith.addi %bo, %ib64 : tensor<32x64xi32>
    %x = tile.load %a[%ao2] : (!tile.ptr<f16>, tensor<64x32xi32>) -> tensor<64x32xf16>
    %y = tile.load %b[%bo2] : (!tile.ptr<f16>, tensor<32x64xi32>) -> tensor<32x64xf16>
    %d = tile.dot %x, %y, %s : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %c[%co], %acc : (!tile.ptr<f32>, tensor<64x64xi32>, tensor<64x64xf32>) -> ()
  return
}

// -----

// Attention's two dots on sm_90a: scores = q k^T with q loaded before the loop (staged once, rows
// permuted and swizzled, written element by element) and the keys copied K-major (transpose_b:
// B without the transpose bit, <col>); then the probabilities, in the scores' accumulator layout,
// as the register operand of the second dot's instructions (inline PTX: MLIR's op takes A through
// a descriptor only), the values copied N-major. Two dots in the loop: 2 stages each, every batch
// waited for at once, after the copies of the iteration ahead. No mma.sync, no ldmatrix.

// CHECK-LABEL: gpu.func @attention
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 32, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: scf.if
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: arith.truncf
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-2: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}p, 1, 1, 1;
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: nvvm.mma.sync
// CHECK-NOT: nvvm.ldmatrix
// CHECK: scf.yield
func.func @attention(%q: !tile.ptr<f16>, %k: !tile.ptr<f16>, %v: !tile.ptr<f16>, %o: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 64 : tensor<64xi32>
  %j = tile.arange 0, 32 : tensor<32xi32>
  %rows = tile.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %jrows = tile.expand_dims %j, 1 : tensor<32xi32> -> tensor<32x1xi32>
  %s64 = arith.constant dense<64> : tensor<64x1xi32>
  %qr = arith.muli %rows, %s64 : tensor<64x1xi32>
  %qrb = tile.broadcast %qr : tensor<64x1xi32> -> tensor<64x64xi32>
  %cb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %qo = arith.addi %qrb, %cb : tensor<64x64xi32>
  %qt = tile.load %q[%qo] : (!tile.ptr<f16>, tensor<64x64xi32>) -> tensor<64x64xf16>
  %s64k = arith.constant dense<64> : tensor<32x1xi32>
  %kr = arith.muli %jrows, %s64k : tensor<32x1xi32>
  %krb = tile.broadcast %kr : tensor<32x1xi32> -> tensor<32x64xi32>
  %kcb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<32x64xi32>
  %ko = arith.addi %krb, %kcb : tensor<32x64xi32>
  %zs = arith.constant dense<0.0> : tensor<64x32xf32>
  %zo = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %s64t = arith.constant dense<64> : tensor<32x64xi32>
  %acc = scf.for %i = %c0 to %n step %c32 iter_args(%oa = %zo) -> (tensor<64x64xf32>) : i32 {
    %is = tile.splat %i : tensor<32x64xi32>
    %ish = arith.muli %is, %s64t : tensor<32x64xi32>
    %kvo = arith.addi %ko, %ish : tensor<32x64xi32>
    %kt = tile.load %k[%kvo] : (!tile.ptr<f16>, tensor<32x64xi32>) -> tensor<32x64xf16>
    %s = tile.dot %qt, %kt, %zs {transpose_b} : tensor<64x64xf16>, tensor<32x64xf16> -> tensor<64x32xf32>
    %p = arith.truncf %s : tensor<64x32xf32> to tensor<64x32xf16>
    %vt = tile.load %v[%kvo] : (!tile.ptr<f16>, tensor<32x64xi32>) -> tensor<32x64xf16>
    %on = tile.dot %p, %vt, %oa : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %on : tensor<64x64xf32>
  }
  tile.store %o[%qo], %acc : (!tile.ptr<f32>, tensor<64x64xi32>, tensor<64x64xf32>) -> ()
  return
}
