// RUN: tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90 fma-async-copies=off" | FileCheck %s
// RUN: tessera-opt %s --convert-tile-to-gpu="target=spirv subgroup-size=8 fma-halves=on" | FileCheck %s --check-prefix=SPIRV
// RUN: tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90 fma-halves=off fma-async-copies=off" | FileCheck %s --check-prefix=TWO
// RUN: tessera-opt %s --convert-tile-to-gpu="target=spirv subgroup-size=8" | FileCheck %s --check-prefix=SPIRV-TWO
// RUN: not tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90 fma-halves=maybe" 2>&1 | FileCheck %s --check-prefix=BAD

// A dot on the FMA path in a loop, both operands loaded in it (not copied: fma-async-copies=off;
// fma-async-copies.mlir). With fma-halves (auto: on NVPTX, where it measured faster; on: SPIR-V
// too) each is staged in an array of two halves (A transposed: 16 rows of 16 + 4, twice; B:
// 16 x 16, twice; both in vectors of 4 on SPIR-V), iteration t writing half t % 2, then one barrier
// before the reads; a barrier before the loop ends the reads of an earlier run of it. Otherwise
// the writes sit between two barriers, in one array each.

// CHECK-DAG: llvm.mlir.global internal @{{.*}}() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<640 x f32>
// CHECK-DAG: llvm.mlir.global internal @{{.*}}() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<512 x f32>
// CHECK-LABEL: gpu.func @halves
// CHECK: gpu.barrier
// CHECK-NEXT: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: llvm.store
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: math.fma
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
// SPIRV-LABEL: gpu.func @halves
// SPIRV-DAG: memref.alloc() : memref<160xvector<4xf32>, #spirv.storage_class<Workgroup>>
// SPIRV-DAG: memref.alloc() : memref<128xvector<4xf32>, #spirv.storage_class<Workgroup>>
// SPIRV: gpu.barrier
// SPIRV-NEXT: scf.for
// SPIRV-NOT: gpu.barrier
// SPIRV: memref.store
// SPIRV: gpu.barrier
// SPIRV-NOT: gpu.barrier
// SPIRV: scf.yield
// TWO-DAG: llvm.mlir.global internal @{{.*}}() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<320 x f32>
// TWO-DAG: llvm.mlir.global internal @{{.*}}() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x f32>
// TWO-LABEL: gpu.func @halves
// TWO: scf.for
// TWO: gpu.barrier
// TWO: llvm.store
// TWO: gpu.barrier
// TWO: math.fma
// SPIRV-TWO-LABEL: gpu.func @halves
// SPIRV-TWO-DAG: memref.alloc() : memref<80xvector<4xf32>, #spirv.storage_class<Workgroup>>
// SPIRV-TWO-DAG: memref.alloc() : memref<64xvector<4xf32>, #spirv.storage_class<Workgroup>>
// SPIRV-TWO: scf.for
// SPIRV-TWO: gpu.barrier
// SPIRV-TWO: memref.store
// SPIRV-TWO: gpu.barrier
// SPIRV-TWO: math.fma
// BAD: fma-halves='maybe': use auto, on or off
func.func @halves(%a: !tile.ptr<f32>, %b: !tile.ptr<f32>, %c: !tile.ptr<f32>, %k: i32)
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
    %o = arith.addi %offs, %is : tensor<16x16xi32>
    %x = tile.load %a[%o] : (!tile.ptr<f32>, tensor<16x16xi32>) -> tensor<16x16xf32>
    %y = tile.load %b[%o] : (!tile.ptr<f32>, tensor<16x16xi32>) -> tensor<16x16xf32>
    %d = tile.dot %x, %y, %s : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  tile.store %c[%offs], %acc : (!tile.ptr<f32>, tensor<16x16xi32>, tensor<16x16xf32>) -> ()
  return
}
