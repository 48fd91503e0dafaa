// RUN: tessera-opt %s --convert-tile-to-gpu="target=nvptx" | FileCheck %s
// RUN: sed -e 's/ {tile.divisibility = 16 : i64}//' %s | tessera-opt --convert-tile-to-gpu="target=nvptx" | FileCheck %s --check-prefix=PLAIN
// RUN: tessera-opt %s --convert-tile-to-gpu="target=spirv subgroup-size=32" | FileCheck %s --check-prefix=SPIRV
// RUN: sed -e 's/ {tile.divisibility = 16 : i64}//' %s | tessera-opt --convert-tile-to-gpu="target=spirv subgroup-size=32" | FileCheck %s --check-prefix=SPIRV-PLAIN
// RUN: %tessera compile %s --emit=spirv-mlir --subgroup-size=32 | FileCheck %s --check-prefix=SPIRV-MLIR

// A row of 512 f16 over one warp (two runs of 8 a thread, at row + 8 tid and row + 8 tid + 256),
// masked by cols < n, the rows n elements apart. With n a multiple of 16 (tile.divisibility, a
// specialized variant), every run is contiguous, 16-byte aligned and under one mask bit
// (uniformRunLengths): on NVPTX each run is one predicated wide load behind its first mask bit
// (`@p ld.global.v4.b32` into words holding `other`), with no branch; on SPIR-V, which has no
// predicated access, each run reads the buffer's first 16 bytes where its bit is clear and its
// elements then take `other` (selects, no branch); stores likewise (`@p st.global.v4.b32` on
// NVPTX, a branch per run on SPIR-V). No element is read or written on its own.
// Without the assumption the element-by-element path stays.

// CHECK-LABEL: gpu.func @rows
// CHECK: %[[T8:.*]] = arith.muli %{{.*}}, %c8_i32 : i32
// CHECK: %[[FIRST:.*]] = arith.addi %[[T8]], %c0_i32 : i32
// CHECK: %[[SECOND:.*]] = arith.addi %[[FIRST]], %c256_i32 : i32
// CHECK: %[[IN0:.*]] = arith.cmpi slt, %[[FIRST]], %arg2 : i32
// CHECK: %[[IN1:.*]] = arith.cmpi slt, %[[SECOND]], %arg2 : i32
// CHECK-NOT: scf.if
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$4 ld.global.v4.b32 {$0, $1, $2, $3}, [$5];", "=r,=r,=r,=r,b,l,0,1,2,3" %[[IN0]],
// CHECK-NOT: scf.if
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$4 ld.global.v4.b32 {$0, $1, $2, $3}, [$5];", "=r,=r,=r,=r,b,l,0,1,2,3" %[[IN1]],
// CHECK-NOT: scf.if
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$0 st.global.v4.b32 [$1], {$2, $3, $4, $5};", "b,l,r,r,r,r" %[[IN0]],
// CHECK-NOT: scf.if
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$0 st.global.v4.b32 [$1], {$2, $3, $4, $5};", "b,l,r,r,r,r" %[[IN1]],
// CHECK-NOT: scf.if
// CHECK-NOT: llvm.load
// CHECK-NOT: llvm.store
// CHECK: gpu.return

// PLAIN-LABEL: gpu.func @rows
// PLAIN-COUNT-16: llvm.load %{{.*}} : !llvm.ptr<1> -> f16
// PLAIN-COUNT-8: llvm.store %{{.*}}, %{{.*}} : f16, !llvm.ptr<1>

// SPIRV-LABEL: gpu.func @rows
// SPIRV-NOT: scf.if
// SPIRV: tile.buffer_load_run %arg0[%{{.*}}] if %[[IN0:[0-9]+]] else(%cst, %cst, %cst, %cst, %cst, %cst, %cst, %cst : f16, f16, f16, f16, f16, f16, f16, f16)
// SPIRV-NOT: scf.if
// SPIRV: tile.buffer_load_run %arg0[%{{.*}}] if %[[IN1:[0-9]+]] else(
// SPIRV: scf.if %[[IN0]] {
// SPIRV: tile.buffer_store_run
// SPIRV: scf.if %[[IN1]] {
// SPIRV: tile.buffer_store_run
// SPIRV-NOT: memref.load
// SPIRV-NOT: memref.store
// SPIRV: gpu.return

// In SPIR-V: the unit read is unit 0 where the bit is clear, and each of the four words is
// selected (the elements' `other`, +0, is the word 0).
// SPIRV-MLIR-LABEL: spirv.func @rows
// SPIRV-MLIR-NOT: spirv.mlir.selection
// SPIRV-MLIR: %[[UNIT:.*]] = spirv.Select %[[BIT:.*]], %{{.*}}, %{{.*}} : i1, i32
// SPIRV-MLIR: %[[AT:.*]] = spirv.AccessChain %{{.*}}[%{{.*}}, %[[UNIT]]]
// SPIRV-MLIR: %[[WORDS:.*]] = spirv.Load "StorageBuffer" %[[AT]] : vector<4xi32>
// SPIRV-MLIR-COUNT-4: spirv.Select %[[BIT]], %{{.*}}, %cst0_i32{{.*}} : i1, i32
// SPIRV-MLIR: spirv.Load "StorageBuffer" %{{.*}} : vector<4xi32>
// SPIRV-MLIR-COUNT-4: spirv.Select
// SPIRV-MLIR: spirv.mlir.selection

// SPIRV-PLAIN-LABEL: gpu.func @rows
// SPIRV-PLAIN-COUNT-16: memref.load
func.func @rows(%x: !tile.ptr<f16>, %y: !tile.ptr<f16>, %n: i32 {tile.divisibility = 16 : i64}) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %cols = tile.arange 0, 512 : tensor<512xi32>
  %ns = tile.splat %n : tensor<512xi32>
  %m = arith.cmpi slt, %cols, %ns : tensor<512xi32>
  %pid = tile.program_id 0 : i32
  %r = arith.muli %pid, %n : i32
  %rs = tile.splat %r : tensor<512xi32>
  %offs = arith.addi %rs, %cols : tensor<512xi32>
  %v = tile.load %x[%offs] mask %m : (!tile.ptr<f16>, tensor<512xi32>, tensor<512xi1>) -> tensor<512xf16>
  tile.store %y[%offs], %v mask %m : (!tile.ptr<f16>, tensor<512xi32>, tensor<512xf16>, tensor<512xi1>) -> ()
  return
}
