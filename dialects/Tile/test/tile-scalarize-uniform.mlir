// tile-scalarize-uniform: elementwise ops whose operands are all splats (or splat constants)
// run once on the scalars and are splat after, whole chains of them; ops whose operands are all
// broadcasts of one shape (splats among them taken at that shape) run on the smaller tiles and
// are broadcast after. An op with an operand that varies along the tile stays, and so does one
// of constants alone.
// RUN: tessera-opt %s --tile-scalarize-uniform | FileCheck %s

// CHECK-LABEL: func.func @splats
// CHECK-SAME: (%[[S:.*]]: f32, %[[X:.*]]: tensor<128xf32>)
// CHECK: %[[E:.*]] = arith.extf %[[S]] : f32 to f64
// CHECK: %[[C2:.*]] = arith.constant 2.000000e+00 : f64
// CHECK: %[[M:.*]] = arith.mulf %[[E]], %[[C2]] : f64
// CHECK: %[[MT:.*]] = tile.splat %[[M]] : tensor<128xf64>
// CHECK: %[[Z:.*]] = arith.cmpf oeq, %[[M]], %{{.*}} : f64
// CHECK: %[[ZT:.*]] = tile.splat %[[Z]] : tensor<128xi1>
// CHECK: %[[XE:.*]] = arith.extf %[[X]] : tensor<128xf32> to tensor<128xf64>
// CHECK: %[[Q:.*]] = arith.mulf %[[XE]], %[[MT]] : tensor<128xf64>
// CHECK: arith.select %[[ZT]], %{{.*}}, %[[Q]] : tensor<128xi1>, tensor<128xf64>
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<128xf64>
func.func @splats(%s: f32, %x: tensor<128xf32>) -> (tensor<128xf64>, tensor<128xf64>) {
  %st = tile.splat %s : tensor<128xf32>
  %e = arith.extf %st : tensor<128xf32> to tensor<128xf64>
  %two = arith.constant dense<2.0> : tensor<128xf64>
  %m = arith.mulf %e, %two : tensor<128xf64>
  %zero = arith.constant dense<0.0> : tensor<128xf64>
  %z = arith.cmpf oeq, %m, %zero : tensor<128xf64>
  %xe = arith.extf %x : tensor<128xf32> to tensor<128xf64>
  %q = arith.mulf %xe, %m : tensor<128xf64>
  %r = arith.select %z, %zero, %q : tensor<128xi1>, tensor<128xf64>
  %k = arith.addf %two, %two : tensor<128xf64>
  return %r, %k : tensor<128xf64>, tensor<128xf64>
}

// CHECK-LABEL: func.func @broadcasts
// CHECK-SAME: (%[[L:.*]]: tensor<64x1xf32>, %[[A:.*]]: tensor<64x128xf32>)
// CHECK: %[[H:.*]] = arith.constant dense<5.000000e-01> : tensor<64x1xf32>
// CHECK: %[[N:.*]] = arith.mulf %[[L]], %[[H]] : tensor<64x1xf32>
// CHECK: %[[NB:.*]] = tile.broadcast %[[N]] : tensor<64x1xf32> -> tensor<64x128xf32>
// CHECK: arith.divf %[[A]], %[[NB]] : tensor<64x128xf32>
func.func @broadcasts(%l: tensor<64x1xf32>, %a: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %lb = tile.broadcast %l : tensor<64x1xf32> -> tensor<64x128xf32>
  %half = arith.constant dense<0.5> : tensor<64x128xf32>
  %n = arith.mulf %lb, %half : tensor<64x128xf32>
  %d = arith.divf %a, %n : tensor<64x128xf32>
  return %d : tensor<64x128xf32>
}

// A broadcast and a splat: the splat at the broadcast's source shape.
// CHECK-LABEL: func.func @broadcast_and_splat
// CHECK-SAME: (%[[L:.*]]: tensor<64x1xf32>, %[[S:.*]]: f32)
// CHECK: %[[SS:.*]] = tile.splat %[[S]] : tensor<64x1xf32>
// CHECK: %[[P:.*]] = arith.mulf %[[L]], %[[SS]] : tensor<64x1xf32>
// CHECK: tile.broadcast %[[P]] : tensor<64x1xf32> -> tensor<64x128xf32>
func.func @broadcast_and_splat(%l: tensor<64x1xf32>, %s: f32) -> tensor<64x128xf32> {
  %lb = tile.broadcast %l : tensor<64x1xf32> -> tensor<64x128xf32>
  %st = tile.splat %s : tensor<64x128xf32>
  %p = arith.mulf %lb, %st : tensor<64x128xf32>
  return %p : tensor<64x128xf32>
}

// Broadcasts of two shapes: unchanged.
// CHECK-LABEL: func.func @two_shapes
// CHECK: %[[P:.*]] = tile.broadcast %{{.*}} : tensor<64x1xf32> -> tensor<64x128xf32>
// CHECK: %[[Q:.*]] = tile.broadcast %{{.*}} : tensor<1x128xf32> -> tensor<64x128xf32>
// CHECK: arith.addf %[[P]], %[[Q]] : tensor<64x128xf32>
func.func @two_shapes(%r: tensor<64x1xf32>, %c: tensor<1x128xf32>) -> tensor<64x128xf32> {
  %p = tile.broadcast %r : tensor<64x1xf32> -> tensor<64x128xf32>
  %q = tile.broadcast %c : tensor<1x128xf32> -> tensor<64x128xf32>
  %s = arith.addf %p, %q : tensor<64x128xf32>
  return %s : tensor<64x128xf32>
}
