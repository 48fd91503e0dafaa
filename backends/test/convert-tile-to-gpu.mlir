// RUN: tessera-opt %s -split-input-file --convert-tile-to-gpu="target=spirv subgroup-size=8" | FileCheck %s --check-prefix=SPIRV
// RUN: tessera-opt %s -split-input-file --convert-tile-to-gpu="target=nvptx" | FileCheck %s --check-prefix=NVPTX

// A 64-element copy over 4 warps: 32 threads of 2 elements on SPIR-V (subgroup 8), 128
// threads on NVPTX where only the first 64 own an element.

// SPIRV: gpu.module @tessera_kernels attributes {spirv.target_env = {{.*}}subgroup_size = 8
// SPIRV-LABEL: gpu.func @copy
// SPIRV-SAME: (%[[X:.*]]: memref<?xf32, #spirv.storage_class<StorageBuffer>> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 0)>}, %[[Y:.*]]: memref<?xf32, #spirv.storage_class<StorageBuffer>> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 1)>})
// SPIRV-SAME: kernel attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [32, 1, 1]>, tessera.shared_bytes = 0 : i32}
// The scalar n travels in the push-constant block, not as a parameter.
// SPIRV: %[[N:.*]] = tile.push_constant 0 of 4 : i32
// Each thread holds elements 2*tid and 2*tid + 1.
// SPIRV: %[[TWO:.*]] = arith.constant 2 : i32
// SPIRV: %[[T2:.*]] = arith.muli %{{.*}}, %[[TWO]] : i32
// SPIRV: %[[E0:.*]] = arith.addi %[[T2]], %{{.*}} : i32
// SPIRV: arith.addi %[[E0]], %{{.*}} : i32
// SPIRV: %[[M0:.*]] = arith.cmpi slt, %[[E0]], %[[N]] : i32
// SPIRV: scf.if %[[M0]] -> (f32)
// SPIRV: memref.load %[[X]][%{{.*}}]
// SPIRV: scf.if
// SPIRV: memref.store %{{.*}}, %[[Y]][%{{.*}}]
// SPIRV-NOT: tile.load
// SPIRV-NOT: tile.store

// NVPTX-LABEL: gpu.func @copy
// NVPTX-SAME: (%[[X:.*]]: !llvm.ptr<1>, %[[Y:.*]]: !llvm.ptr<1>, %[[N:.*]]: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>, tessera.shared_bytes = 0 : i32}
// Threads 64..127 hold copies of threads 0..63 and must not store.
// NVPTX: %[[TID:.*]] = arith.index_cast %{{.*}} : index to i32
// NVPTX: llvm.getelementptr inbounds %[[X]][%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
// NVPTX: llvm.load
// NVPTX: %[[LIMIT:.*]] = arith.constant 64 : i32
// NVPTX: %[[OWNER:.*]] = arith.cmpi ult, %[[TID]], %[[LIMIT]] : i32
// NVPTX: %[[COND:.*]] = arith.andi %{{.*}}, %[[OWNER]] : i1
// NVPTX: scf.if %[[COND]]
// NVPTX: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<1>
func.func @copy(%x: !tile.ptr<f32> {tile.name = "x"}, %y: !tile.ptr<f32> {tile.name = "y"}, %n: i32 {tile.name = "n"})
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %offs = tile.arange 0, 64 : tensor<64xi32>
  %ns = tile.splat %n : tensor<64xi32>
  %m = arith.cmpi slt, %offs, %ns : tensor<64xi32>
  %v = tile.load %x[%offs] mask %m : (!tile.ptr<f32>, tensor<64xi32>, tensor<64xi1>) -> tensor<64xf32>
  tile.store %y[%offs], %v mask %m : (!tile.ptr<f32>, tensor<64xi32>, tensor<64xf32>, tensor<64xi1>) -> ()
  return
}

// -----

// A float scalar is a push-constant word bitcast to f32; element-wise math stays per element.
// SPIRV-LABEL: gpu.func @scale
// SPIRV: %[[W:.*]] = tile.push_constant 4 of 8 : i32
// SPIRV: %[[S:.*]] = arith.bitcast %[[W]] : i32 to f32
// SPIRV: arith.mulf %{{.*}}, %[[S]] : f32
// NVPTX-LABEL: gpu.func @scale
// NVPTX-SAME: (%{{.*}}: !llvm.ptr<1>, %{{.*}}: i32, %[[S:.*]]: f32)
// NVPTX: arith.mulf %{{.*}}, %[[S]] : f32
func.func @scale(%x: !tile.ptr<f32>, %n: i32, %s: f32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %offs = tile.arange 0, 32 : tensor<32xi32>
  %v = tile.load %x[%offs] : (!tile.ptr<f32>, tensor<32xi32>) -> tensor<32xf32>
  %ss = tile.splat %s : tensor<32xf32>
  %w = arith.mulf %v, %ss : tensor<32xf32>
  tile.store %x[%offs], %w : (!tile.ptr<f32>, tensor<32xi32>, tensor<32xf32>) -> ()
  return
}

// -----

// A k loop carrying a 16 x 16 accumulator (tl::for_range) around tile.dot: the loop carries each
// thread's scalars; the dot stages both operands in shared memory, then runs its own k loop of
// fused multiply-adds (fast mode). Both operands are defined outside the loop, so they are
// staged once, before it, between barriers, and the loop has no barrier
// (dot-invariant-operand.mlir has a loop that stages one operand). A is staged transposed, in
// 16 rows of 16 + 4 floats, B as it is: 2304 bytes.

// SPIRV-LABEL: gpu.func @mm
// SPIRV-SAME: tessera.shared_bytes = 2304 : i32
// SPIRV: gpu.barrier
// SPIRV: memref.store
// SPIRV: gpu.barrier
// SPIRV: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32) : i32
// SPIRV-NOT: gpu.barrier
// SPIRV: scf.for {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32) : i32
// SPIRV: math.fma
// SPIRV-NOT: tile.dot
// NVPTX-LABEL: gpu.func @mm
// NVPTX: gpu.barrier
// NVPTX: scf.for
// NVPTX-NOT: gpu.barrier
// NVPTX: math.fma
func.func @mm(%x: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %r = arith.constant dense<1.0> : tensor<16x16xf32>
  %acc = scf.for %k = %c0 to %n step %c16 iter_args(%a = %zero) -> (tensor<16x16xf32>) : i32 {
    %d = tile.dot %r, %r, %a : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  %i = tile.arange 0, 256 : tensor<256xi32>
  %o = tile.reshape %i : tensor<256xi32> -> tensor<16x16xi32>
  tile.store %x[%o], %acc : (!tile.ptr<f32>, tensor<16x16xi32>, tensor<16x16xf32>) -> ()
  return
}
