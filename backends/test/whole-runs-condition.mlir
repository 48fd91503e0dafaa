// RUN: tessera-opt %s -split-input-file --convert-tile-to-gpu="target=nvptx" | FileCheck %s

// A row of 256 f32 over one warp: each thread holds 8 elements, two runs of 4 (16 bytes), at
// row + 4 tid + {0..3} and row + 4 tid + 128 + {0..3}. The load takes its wide accesses when the
// first run is aligned, the last element is below n and the first is not above the last (no wrap
// between them): what the offsets' linear forms prove (contiguity, the second run's alignment,
// the six masks between) is not tested at run time.

// CHECK-LABEL: gpu.func @rows
// CHECK: %[[T4:.*]] = arith.muli %{{.*}}, %c4_i32 : i32
// CHECK: %[[E0:.*]] = arith.addi %[[T4]], %c0_i32 : i32
// CHECK: %[[E7:.*]] = arith.addi %[[E0]], %c131_i32 : i32
// The mask bits, which the element-wise path tests one by one; the last is the load's.
// CHECK-COUNT-7: arith.cmpi slt, %{{.*}}, %arg2 : i32
// CHECK-NEXT: %[[BELOW:.*]] = arith.cmpi slt, %[[E7]], %arg2 : i32
// CHECK: %[[O0:.*]] = arith.addi %{{.*}}, %[[E0]] : i32
// CHECK: %[[LOW:.*]] = arith.andi %[[O0]], %{{.*}} : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: %[[ALIGNED:.*]] = arith.cmpi eq, %[[LOW]], %{{.*}} : i32
// CHECK-NEXT: %[[ORDERED:.*]] = arith.cmpi sle, %[[E0]], %[[E7]] : i32
// CHECK-NEXT: %[[A:.*]] = arith.andi %[[ALIGNED]], %[[BELOW]] : i1
// CHECK-NEXT: %[[WHOLE:.*]] = arith.andi %[[A]], %[[ORDERED]] : i1
// CHECK-NEXT: scf.if %[[WHOLE]] -> (f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK-COUNT-2: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
func.func @rows(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %cols = tile.arange 0, 256 : tensor<256xi32>
  %ns = tile.splat %n : tensor<256xi32>
  %m = arith.cmpi slt, %cols, %ns : tensor<256xi32>
  %pid = tile.program_id 0 : i32
  %r = arith.muli %pid, %n : i32
  %rs = tile.splat %r : tensor<256xi32>
  %offs = arith.addi %rs, %cols : tensor<256xi32>
  %v = tile.load %x[%offs] mask %m : (!tile.ptr<f32>, tensor<256xi32>, tensor<256xi1>) -> tensor<256xf32>
  tile.store %y[%offs], %v : (!tile.ptr<f32>, tensor<256xi32>, tensor<256xf32>) -> ()
  return
}

// -----

// A window lo <= cols < hi: the lower bound is tested on the first element, the upper on the
// last, with one no-wrap test for both. Offsets loaded from memory have no linear form: each run keeps
// its contiguity and alignment tests. The index load itself reads at the arange, whose runs are
// proven whole (uniformRunLengths): two wide loads with no test.

// CHECK-LABEL: gpu.func @window
// CHECK: %[[F:.*]] = arith.addi %{{.*}}, %c0_i32 : i32
// CHECK: %[[L:.*]] = arith.addi %[[F]], %c131_i32 : i32
// CHECK-NOT: scf.if
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK: %[[O0:.*]] = llvm.extractelement
// CHECK: %[[O1:.*]] = llvm.extractelement
// CHECK: %[[O2:.*]] = llvm.extractelement
// CHECK: %[[O3:.*]] = llvm.extractelement
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK: %[[O4:.*]] = llvm.extractelement
// CHECK: %[[O5:.*]] = llvm.extractelement
// CHECK: %[[O6:.*]] = llvm.extractelement
// CHECK: %[[O7:.*]] = llvm.extractelement
// CHECK: %[[LOWER:.*]] = arith.cmpi sge, %[[F]], %arg2 : i32
// CHECK: %[[UPPER:.*]] = arith.cmpi slt, %[[L]], %arg3 : i32
// Both runs' alignment and contiguity tests, then one no-wrap test for both bounds.
// CHECK: arith.andi %[[O0]], %{{.*}} : i32
// CHECK: arith.cmpi eq, %[[O1]]
// CHECK: arith.cmpi eq, %[[O2]]
// CHECK: arith.cmpi eq, %[[O3]]
// CHECK: arith.andi %[[O4]], %{{.*}} : i32
// CHECK: arith.cmpi eq, %[[O5]]
// CHECK: arith.cmpi eq, %[[O6]]
// CHECK: arith.cmpi eq, %[[O7]]
// CHECK-NEXT: %[[ORDERED:.*]] = arith.cmpi sle, %[[F]], %[[L]] : i32
// CHECK-NOT: arith.cmpi
// CHECK: %[[C1:.*]] = arith.andi %{{.*}}, %[[LOWER]] : i1
// CHECK-NEXT: %[[C2:.*]] = arith.andi %[[C1]], %[[ORDERED]] : i1
// CHECK-NEXT: %[[C3:.*]] = arith.andi %[[C2]], %[[UPPER]] : i1
// CHECK-NEXT: scf.if %[[C3]] -> (f32, f32, f32, f32, f32, f32, f32, f32)
func.func @window(%x: !tile.ptr<f32>, %idx: !tile.ptr<i32>, %lo: i32, %hi: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %cols = tile.arange 0, 256 : tensor<256xi32>
  %offs = tile.load %idx[%cols] : (!tile.ptr<i32>, tensor<256xi32>) -> tensor<256xi32>
  %los = tile.splat %lo : tensor<256xi32>
  %his = tile.splat %hi : tensor<256xi32>
  %a = arith.cmpi sge, %cols, %los : tensor<256xi32>
  %b = arith.cmpi slt, %cols, %his : tensor<256xi32>
  %m = arith.andi %a, %b : tensor<256xi1>
  %v = tile.load %x[%offs] mask %m : (!tile.ptr<f32>, tensor<256xi32>, tensor<256xi1>) -> tensor<256xf32>
  tile.store %x[%cols], %v : (!tile.ptr<f32>, tensor<256xi32>, tensor<256xf32>) -> ()
  return
}
