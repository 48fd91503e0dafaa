// RUN: tessera-opt %s -split-input-file --convert-tile-to-gpu="target=spirv subgroup-size=8" | FileCheck %s
// RUN: tessera-opt %s -split-input-file --convert-tile-to-gpu="target=nvptx chip=sm_80" | FileCheck %s --check-prefix=MMA

// A dot operand defined outside the loop around the dot (a tile loaded once, like attention's
// queries) is staged once, before the loop, behind a barrier; each iteration stages only the
// other operand between its two barriers. (A is staged transposed, in 16 rows of 16 + 4, and B,
// both in vectors of 4, as SPIR-V reads workgroup memory wide.)

// CHECK-LABEL: gpu.func @invariant_a
// CHECK: %[[SB:.*]] = memref.alloc() : memref<64xvector<4xf32>, #spirv.storage_class<Workgroup>>
// CHECK: %[[SA:.*]] = memref.alloc() : memref<80xvector<4xf32>, #spirv.storage_class<Workgroup>>
// CHECK: gpu.barrier
// CHECK: tile.store_component %{{.*}}, %[[SA]][
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK-NOT: %[[SA]][
// CHECK: memref.store %{{.*}}, %[[SB]][
// CHECK-NOT: %[[SA]][
// CHECK: gpu.barrier
// CHECK: memref.load %[[SA]][
func.func @invariant_a(%a: !tile.ptr<f32>, %b: !tile.ptr<f32>, %c: !tile.ptr<f32>, %k: i32)
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.arange 0, 16 : tensor<16xi32>
  %rows = tile.expand_dims %r, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %cols = tile.expand_dims %r, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %sixteen = arith.constant dense<16> : tensor<16x16xi32>
  %rb = tile.broadcast %rows : tensor<16x1xi32> -> tensor<16x16xi32>
  %cb = tile.broadcast %cols : tensor<1x16xi32> -> tensor<16x16xi32>
  %ro = arith.muli %rb, %sixteen : tensor<16x16xi32>
  %offs = arith.addi %ro, %cb : tensor<16x16xi32>
  %x = tile.load %a[%offs] : (!tile.ptr<f32>, tensor<16x16xi32>) -> tensor<16x16xf32>
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %acc = scf.for %i = %c0 to %k step %c16 iter_args(%s = %zero) -> (tensor<16x16xf32>) : i32 {
    %is = tile.splat %i : tensor<16x16xi32>
    %bo = arith.addi %offs, %is : tensor<16x16xi32>
    %y = tile.load %b[%bo] : (!tile.ptr<f32>, tensor<16x16xi32>) -> tensor<16x16xf32>
    %d = tile.dot %x, %y, %s : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  tile.store %c[%offs], %acc : (!tile.ptr<f32>, tensor<16x16xi32>, tensor<16x16xf32>) -> ()
  return
}

// -----

// The same on the tensor cores (f16, NVPTX sm_80): A's padded staging is written before the
// loop, from registers, behind a barrier; B, loaded in the loop for the dot alone, comes by
// cp.async copies in stages (dot-async-copy.mlir), so each iteration has one barrier; both
// are read through ldmatrix for mma.sync.

// MMA-LABEL: gpu.func @invariant_a_mma
// MMA: llvm.mlir.addressof @__tessera_shared_{{[0-9]+}} : !llvm.ptr<3>
// MMA: gpu.barrier
// MMA: llvm.store %{{.*}}, %{{.*}} : f16, !llvm.ptr<3>
// MMA: nvvm.cp.async.commit.group
// MMA: scf.for
// MMA: nvvm.cp.async.wait.group
// MMA-NEXT: gpu.barrier
// MMA-NOT: gpu.barrier
// MMA: nvvm.cp.async.shared.global
// MMA-NOT: gpu.barrier
// MMA: nvvm.ldmatrix
// MMA: nvvm.mma.sync
func.func @invariant_a_mma(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>, %k: i32)
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.arange 0, 16 : tensor<16xi32>
  %rows = tile.expand_dims %r, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %cols = tile.expand_dims %r, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %sixteen = arith.constant dense<16> : tensor<16x16xi32>
  %rb = tile.broadcast %rows : tensor<16x1xi32> -> tensor<16x16xi32>
  %cb = tile.broadcast %cols : tensor<1x16xi32> -> tensor<16x16xi32>
  %ro = arith.muli %rb, %sixteen : tensor<16x16xi32>
  %offs = arith.addi %ro, %cb : tensor<16x16xi32>
  %x = tile.load %a[%offs] : (!tile.ptr<f16>, tensor<16x16xi32>) -> tensor<16x16xf16>
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %acc = scf.for %i = %c0 to %k step %c16 iter_args(%s = %zero) -> (tensor<16x16xf32>) : i32 {
    %is = tile.splat %i : tensor<16x16xi32>
    %bo = arith.addi %offs, %is : tensor<16x16xi32>
    %y = tile.load %b[%bo] : (!tile.ptr<f16>, tensor<16x16xi32>) -> tensor<16x16xf16>
    %d = tile.dot %x, %y, %s : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  tile.store %c[%offs], %acc : (!tile.ptr<f32>, tensor<16x16xi32>, tensor<16x16xf32>) -> ()
  return
}
