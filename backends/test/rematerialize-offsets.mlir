// RUN: tessera-opt %s -split-input-file --convert-tile-to-gpu="target=nvptx" | FileCheck %s
// RUN: tessera-opt %s -split-input-file --convert-tile-to-gpu="target=spirv subgroup-size=32" | FileCheck %s

// Offsets and masks built from aranges by broadcasting (a 64 x 32 tile from a column of row
// offsets and a row of column offsets, as a matmul builds them) are computed by each thread for
// the elements it holds: no shared memory and no barrier, although the 64 x 1 and 1 x 32 tiles
// live in other threads than the 64 x 32 one.

// CHECK-LABEL: gpu.func @offsets_2d
// CHECK-SAME: tessera.shared_bytes = 0 : i32
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @offsets_2d(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32, %k: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 64 : tensor<64xi32>
  %rows = tile.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %ns = tile.splat %n : tensor<64x1xi32>
  %rowOffs = arith.muli %rows, %ns : tensor<64x1xi32>
  %c = tile.arange 0, 32 : tensor<32xi32>
  %ks = tile.splat %k : tensor<32xi32>
  %kc = arith.addi %ks, %c : tensor<32xi32>
  %cols = tile.expand_dims %kc, 0 : tensor<32xi32> -> tensor<1x32xi32>
  %a = tile.broadcast %rowOffs : tensor<64x1xi32> -> tensor<64x32xi32>
  %b = tile.broadcast %cols : tensor<1x32xi32> -> tensor<64x32xi32>
  %offs = arith.addi %a, %b : tensor<64x32xi32>
  %ncols = tile.splat %n : tensor<1x32xi32>
  %inside = arith.cmpi slt, %cols, %ncols : tensor<1x32xi32>
  %mask = tile.broadcast %inside : tensor<1x32xi1> -> tensor<64x32xi1>
  %v = tile.load %x[%offs] mask %mask : (!tile.ptr<f32>, tensor<64x32xi32>, tensor<64x32xi1>) -> tensor<64x32xf32>
  tile.store %y[%offs], %v mask %mask : (!tile.ptr<f32>, tensor<64x32xi32>, tensor<64x32xf32>, tensor<64x32xi1>) -> ()
  return
}

// -----

// A loaded row broadcast the same way is data, not a function of coordinates: it moves through
// shared memory (64 x 1 f32 values: 256 bytes) between barriers.

// CHECK-LABEL: gpu.func @loaded_column
// CHECK-SAME: tessera.shared_bytes = 256 : i32
// CHECK: gpu.barrier
func.func @loaded_column(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 64 : tensor<64xi32>
  %rows = tile.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %v = tile.load %x[%rows] : (!tile.ptr<f32>, tensor<64x1xi32>) -> tensor<64x1xf32>
  %w = tile.broadcast %v : tensor<64x1xf32> -> tensor<64x32xf32>
  %c = tile.arange 0, 32 : tensor<32xi32>
  %cols = tile.expand_dims %c, 0 : tensor<32xi32> -> tensor<1x32xi32>
  %a = tile.broadcast %rows : tensor<64x1xi32> -> tensor<64x32xi32>
  %b = tile.broadcast %cols : tensor<1x32xi32> -> tensor<64x32xi32>
  %thirtytwo = arith.constant dense<32> : tensor<64x32xi32>
  %rowOffs = arith.muli %a, %thirtytwo : tensor<64x32xi32>
  %offs = arith.addi %rowOffs, %b : tensor<64x32xi32>
  tile.store %y[%offs], %w : (!tile.ptr<f32>, tensor<64x32xi32>, tensor<64x32xf32>) -> ()
  return
}
