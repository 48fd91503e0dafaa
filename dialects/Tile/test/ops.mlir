// RUN: tessera-opt %s | tessera-opt | FileCheck %s
// Round trip: every tile op prints and parses back to itself.

// CHECK-LABEL: func.func @vector_add
// CHECK-SAME: (%[[X:.*]]: !tile.ptr<f32> {tile.name = "x"}, %[[N:.*]]: i32 {tile.name = "n"})
// CHECK-SAME: attributes {tile.kernel, tile.num_warps = 4 : i32}
func.func @vector_add(%x: !tile.ptr<f32> {tile.name = "x"}, %n: i32 {tile.name = "n"})
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  // CHECK: %[[PID:.*]] = tile.program_id 0 : i32
  %pid = tile.program_id 0 : i32
  // CHECK: tile.num_programs 2 : i32
  %np = tile.num_programs 2 : i32
  // CHECK: %[[OFFS:.*]] = tile.arange 0, 128 : tensor<128xi32>
  %offs = tile.arange 0, 128 : tensor<128xi32>
  // CHECK: %[[NS:.*]] = tile.splat %[[N]] : tensor<128xi32>
  %ns = tile.splat %n : tensor<128xi32>
  %m = arith.cmpi slt, %offs, %ns : tensor<128xi32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  // CHECK: %[[V:.*]] = tile.load %[[X]][%[[OFFS]]] mask %{{.*}} other %{{.*}} : (!tile.ptr<f32>, tensor<128xi32>, tensor<128xi1>, tensor<128xf32>) -> tensor<128xf32>
  %v = tile.load %x[%offs] mask %m other %zero
      : (!tile.ptr<f32>, tensor<128xi32>, tensor<128xi1>, tensor<128xf32>) -> tensor<128xf32>
  // CHECK: tile.load %[[X]][%[[OFFS]]] : (!tile.ptr<f32>, tensor<128xi32>) -> tensor<128xf32>
  %w = tile.load %x[%offs] : (!tile.ptr<f32>, tensor<128xi32>) -> tensor<128xf32>
  %s = arith.addf %v, %w : tensor<128xf32>
  // CHECK: tile.store %[[X]][%[[OFFS]]], %{{.*}} mask %{{.*}} : (!tile.ptr<f32>, tensor<128xi32>, tensor<128xf32>, tensor<128xi1>) -> ()
  tile.store %x[%offs], %s mask %m
      : (!tile.ptr<f32>, tensor<128xi32>, tensor<128xf32>, tensor<128xi1>) -> ()
  // CHECK: tile.store %[[X]][%[[OFFS]]], %{{.*}} : (!tile.ptr<f32>, tensor<128xi32>, tensor<128xf32>) -> ()
  tile.store %x[%offs], %s : (!tile.ptr<f32>, tensor<128xi32>, tensor<128xf32>) -> ()
  // CHECK: tile.push_constant 4 of 8 : i32
  %pc = tile.push_constant 4 of 8 : i32
  return
}

// CHECK-LABEL: func.func @dot
func.func @dot(%a: tensor<64x32xf16>, %b: tensor<32x16xf16>, %c: tensor<64x16xf32>, %i: tensor<16x16xi8>, %j: tensor<16x16xi32>) {
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xf16>, tensor<32x16xf16> -> tensor<64x16xf32>
  %0 = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x16xf16> -> tensor<64x16xf32>
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x16xi8>, tensor<16x16xi8> -> tensor<16x16xi32>
  %1 = tile.dot %i, %i, %j : tensor<16x16xi8>, tensor<16x16xi8> -> tensor<16x16xi32>
  return
}
