// tile-hoist-loads: a kernel's top-level loads go up to just after their operands and the last
// earlier write, keeping their order: layernorm's weights and biases before the row's two
// reductions, a load after a store stays after it, a load in a loop stays in it.
// RUN: tessera-opt %s --tile-hoist-loads | FileCheck %s

// CHECK-LABEL: func.func @norm
// CHECK: %[[X:.*]] = tile.load %arg0
// CHECK-NEXT: %[[W:.*]] = tile.load %arg2
// CHECK: tile.reduce sum
// CHECK: tile.reduce sum
// CHECK: tile.store %arg1
// CHECK-NEXT: %[[B:.*]] = tile.load %arg3
// CHECK-NEXT: tile.store %arg1
// CHECK: scf.for
// CHECK: tile.reduce sum
// CHECK: tile.load %arg2
func.func @norm(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %w: !tile.ptr<f32>, %b: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 2 : i32} {
  %cols = tile.arange 0, 64 : tensor<64xi32>
  %sn = tile.splat %n : tensor<64xi32>
  %m = arith.cmpi slt, %cols, %sn : tensor<64xi32>
  %v = tile.load %x[%cols] mask %m : (!tile.ptr<f32>, tensor<64xi32>, tensor<64xi1>) -> tensor<64xf32>
  %s = tile.reduce sum %v, 0 : tensor<64xf32> -> f32
  %ss = tile.splat %s : tensor<64xf32>
  %d = arith.subf %v, %ss : tensor<64xf32>
  %q = arith.mulf %d, %d : tensor<64xf32>
  %var = tile.reduce sum %q, 0 : tensor<64xf32> -> f32
  %sv = tile.splat %var : tensor<64xf32>
  %wv = tile.load %w[%cols] mask %m : (!tile.ptr<f32>, tensor<64xi32>, tensor<64xi1>) -> tensor<64xf32>
  %o = arith.mulf %d, %sv : tensor<64xf32>
  %o2 = arith.mulf %o, %wv : tensor<64xf32>
  tile.store %y[%cols], %o2 mask %m : (!tile.ptr<f32>, tensor<64xi32>, tensor<64xf32>, tensor<64xi1>) -> ()
  %bv = tile.load %b[%cols] mask %m : (!tile.ptr<f32>, tensor<64xi32>, tensor<64xi1>) -> tensor<64xf32>
  tile.store %y[%cols], %bv mask %m : (!tile.ptr<f32>, tensor<64xi32>, tensor<64xf32>, tensor<64xi1>) -> ()
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) : i32 {
    %t = tile.reduce sum %v, 0 : tensor<64xf32> -> f32
    %l = tile.load %w[%cols] mask %m : (!tile.ptr<f32>, tensor<64xi32>, tensor<64xi1>) -> tensor<64xf32>
    %u = tile.reduce sum %l, 0 : tensor<64xf32> -> f32
    %a1 = arith.addf %acc, %t : f32
    %a2 = arith.addf %a1, %u : f32
    scf.yield %a2 : f32
  }
  return
}
