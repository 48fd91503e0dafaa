// RUN: tessera-opt %s -split-input-file --convert-tile-to-gpu="target=nvptx chip=sm_90" | FileCheck %s

// A fast dot's 64 x 64 accumulator (4 subgroups on mma.sync: runs of 2 along a row) stored as f16
// into a window of a row-major matrix whose columns are a multiple of 16 (n's divisibility): the
// 16-byte runs are whole, so the tile goes through shared memory. One band holds all 64 rows
// (4096 f16, in the memory 16 such programs a multiprocessor leave): a barrier, each thread's 16
// runs of 2 written (their 16-byte chunks permuted by the row), a barrier, then 4 16-byte reads of
// the band a thread, each stored under the window's mask as one predicated 16-byte store.

// CHECK-DAG: llvm.mlir.global internal @[[BAND:__tessera_shared_[0-9]+]]() {{.*}} : !llvm.array<4096 x f16>
// CHECK-LABEL: gpu.func @staged
// CHECK-SAME: tessera.shared_bytes = 13568
// CHECK: nvvm.mma.sync
// CHECK: llvm.mlir.addressof @[[BAND]]
// CHECK: gpu.barrier
// CHECK-COUNT-16: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: gpu.barrier
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>
// CHECK-NOT: llvm.store
// CHECK-NOT: gpu.barrier
func.func @staged(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f16>, %m: i32, %n: i32 {tile.divisibility = 16 : i64})
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r64 = tile.arange 0, 64 : tensor<64xi32>
  %r16 = tile.arange 0, 16 : tensor<16xi32>
  %ar = tile.expand_dims %r64, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %ac = tile.expand_dims %r16, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %c16 = arith.constant dense<16> : tensor<64x16xi32>
  %arb = tile.broadcast %ar : tensor<64x1xi32> -> tensor<64x16xi32>
  %acb = tile.broadcast %ac : tensor<1x16xi32> -> tensor<64x16xi32>
  %aro = arith.muli %arb, %c16 : tensor<64x16xi32>
  %ao = arith.addi %aro, %acb : tensor<64x16xi32>
  %x = tile.load %a[%ao] : (!tile.ptr<f16>, tensor<64x16xi32>) -> tensor<64x16xf16>
  %br = tile.expand_dims %r16, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %bc = tile.expand_dims %r64, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c64 = arith.constant dense<64> : tensor<16x64xi32>
  %brb = tile.broadcast %br : tensor<16x1xi32> -> tensor<16x64xi32>
  %bcb = tile.broadcast %bc : tensor<1x64xi32> -> tensor<16x64xi32>
  %bro = arith.muli %brb, %c64 : tensor<16x64xi32>
  %bo = arith.addi %bro, %bcb : tensor<16x64xi32>
  %y = tile.load %b[%bo] : (!tile.ptr<f16>, tensor<16x64xi32>) -> tensor<16x64xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %x, %y, %zero : tensor<64x16xf16>, tensor<16x64xf16> -> tensor<64x64xf32>
  %h = arith.truncf %d : tensor<64x64xf32> to tensor<64x64xf16>
  %pid = tile.program_id 0 : i32
  %c64s = arith.constant 64 : i32
  %row0 = arith.muli %pid, %c64s : i32
  %rs = tile.splat %row0 : tensor<64xi32>
  %rr = arith.addi %rs, %r64 : tensor<64xi32>
  %rows = tile.expand_dims %rr, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r64, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %rowsb = tile.broadcast %rows : tensor<64x1xi32> -> tensor<64x64xi32>
  %colsb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %ns = tile.splat %n : tensor<64x64xi32>
  %ms = tile.splat %m : tensor<64x64xi32>
  %ro = arith.muli %rowsb, %ns : tensor<64x64xi32>
  %co = arith.addi %ro, %colsb : tensor<64x64xi32>
  %rm = arith.cmpi slt, %rowsb, %ms : tensor<64x64xi32>
  %cm = arith.cmpi slt, %colsb, %ns : tensor<64x64xi32>
  %mask = arith.andi %rm, %cm : tensor<64x64xi1>
  tile.store %c[%co], %h mask %mask : (!tile.ptr<f16>, tensor<64x64xi32>, tensor<64x64xf16>, tensor<64x64xi1>) -> ()
  return
}

// -----

// The same store where n may be any width: the 16-byte runs are not proven whole, and the tile
// is stored as it lies, with no band in shared memory.

// CHECK-LABEL: gpu.func @as_it_lies
// CHECK-SAME: tessera.shared_bytes = 5376
// CHECK: nvvm.mma.sync
// CHECK-NOT: gpu.barrier
// CHECK-NOT: !llvm.ptr<3> -> vector<8xf16>
// CHECK: llvm.store %{{.*}}, %{{.*}} : f16, !llvm.ptr<1>
func.func @as_it_lies(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f16>, %m: i32, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r64 = tile.arange 0, 64 : tensor<64xi32>
  %r16 = tile.arange 0, 16 : tensor<16xi32>
  %ar = tile.expand_dims %r64, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %ac = tile.expand_dims %r16, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %c16 = arith.constant dense<16> : tensor<64x16xi32>
  %arb = tile.broadcast %ar : tensor<64x1xi32> -> tensor<64x16xi32>
  %acb = tile.broadcast %ac : tensor<1x16xi32> -> tensor<64x16xi32>
  %aro = arith.muli %arb, %c16 : tensor<64x16xi32>
  %ao = arith.addi %aro, %acb : tensor<64x16xi32>
  %x = tile.load %a[%ao] : (!tile.ptr<f16>, tensor<64x16xi32>) -> tensor<64x16xf16>
  %br = tile.expand_dims %r16, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %bc = tile.expand_dims %r64, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %c64 = arith.constant dense<64> : tensor<16x64xi32>
  %brb = tile.broadcast %br : tensor<16x1xi32> -> tensor<16x64xi32>
  %bcb = tile.broadcast %bc : tensor<1x64xi32> -> tensor<16x64xi32>
  %bro = arith.muli %brb, %c64 : tensor<16x64xi32>
  %bo = arith.addi %bro, %bcb : tensor<16x64xi32>
  %y = tile.load %b[%bo] : (!tile.ptr<f16>, tensor<16x64xi32>) -> tensor<16x64xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %x, %y, %zero : tensor<64x16xf16>, tensor<16x64xf16> -> tensor<64x64xf32>
  %h = arith.truncf %d : tensor<64x64xf32> to tensor<64x64xf16>
  %pid = tile.program_id 0 : i32
  %c64s = arith.constant 64 : i32
  %row0 = arith.muli %pid, %c64s : i32
  %rs = tile.splat %row0 : tensor<64xi32>
  %rr = arith.addi %rs, %r64 : tensor<64xi32>
  %rows = tile.expand_dims %rr, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r64, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %rowsb = tile.broadcast %rows : tensor<64x1xi32> -> tensor<64x64xi32>
  %colsb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %ns = tile.splat %n : tensor<64x64xi32>
  %ms = tile.splat %m : tensor<64x64xi32>
  %ro = arith.muli %rowsb, %ns : tensor<64x64xi32>
  %co = arith.addi %ro, %colsb : tensor<64x64xi32>
  %rm = arith.cmpi slt, %rowsb, %ms : tensor<64x64xi32>
  %cm = arith.cmpi slt, %colsb, %ns : tensor<64x64xi32>
  %mask = arith.andi %rm, %cm : tensor<64x64xi1>
  tile.store %c[%co], %h mask %mask : (!tile.ptr<f16>, tensor<64x64xi32>, tensor<64x64xf16>, tensor<64x64xi1>) -> ()
  return
}
