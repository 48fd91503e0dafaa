// RUN: %tessera compile %s --emit=spirv-mlir --subgroup-size=32 | FileCheck %s
// RUN: sed -e 's/, tile.divisibility = 16 : i64//' %s | %tessera compile - --emit=spirv-mlir --subgroup-size=32 | FileCheck %s --check-prefix=PLAIN

// A row of 256 f16 read a step ahead (tile.num_stages = 2) over one warp: each thread's run of 8
// goes round the loop. With n a multiple of 16 (a specialized variant) the run comes from one
// tile.buffer_load_run, on entry and in the body, so its four words are what the loop carries
// (PackHalfPairs.cpp): four i32 phis and no f16 one, each word a bitcast of two halves before the
// back edge and split again after it. Without the assumption the run's elements come out of a
// branch (element by element where the run is not whole) and stay eight f16 values.

// CHECK-LABEL: spirv.func @rowsum
// CHECK: spirv.mlir.loop {
// CHECK-NEXT: spirv.Branch ^bb1
// CHECK-SAME: : i32, f32, f32, f32, f32, f32, f32, f32, f32, i32, i32, i32, i32)
// CHECK-NEXT: ^bb1(%{{.*}}: i32, {{.*}}: f32, %[[W0:.*]]: i32, %[[W1:.*]]: i32, %[[W2:.*]]: i32, %[[W3:.*]]: i32):
// CHECK: spirv.Bitcast %[[W0]] : i32 to vector<2xf16>
// CHECK: spirv.Bitcast %[[W3]] : i32 to vector<2xf16>
// CHECK: spirv.Load "StorageBuffer" %{{.*}} : vector<4xi32>
// CHECK: %[[PAIR:.*]] = spirv.CompositeConstruct %{{.*}}, %{{.*}} : (f16, f16) -> vector<2xf16>
// CHECK-NEXT: %[[WORD:.*]] = spirv.Bitcast %[[PAIR]] : vector<2xf16> to i32
// CHECK: spirv.Branch ^bb1(%{{.*}}, %[[WORD]],

// PLAIN-LABEL: spirv.func @rowsum
// PLAIN: spirv.mlir.loop {
// PLAIN-NEXT: spirv.Branch ^bb1
// PLAIN-SAME: : i32, f32, f32, f32, f32, f32, f32, f32, f32, f16, f16, f16, f16, f16, f16, f16, f16)
module {
  func.func @rowsum(%arg0: !tile.ptr<f16> {tile.name = "x"}, %arg1: !tile.ptr<f32> {tile.name = "out"}, %arg2: i32 {tile.name = "n", tile.divisibility = 16 : i64}) attributes {tile.kernel, tile.num_stages = 2 : i32, tile.num_warps = 1 : i32, tile.numerics = "fast"} {
    %0 = tile.arange 0, 256 : tensor<256xi32>
    %cst = arith.constant 0.000000e+00 : f32
    %1 = tile.splat %cst : tensor<256xf32>
    %c0_i32 = arith.constant 0 : i32
    %c256_i32 = arith.constant 256 : i32
    %2 = scf.for %arg3 = %c0_i32 to %arg2 step %c256_i32 iter_args(%arg4 = %1) -> (tensor<256xf32>)  : i32 {
      %3 = tile.splat %arg3 : tensor<256xi32>
      %4 = arith.addi %3, %0 : tensor<256xi32>
      %5 = tile.splat %arg2 : tensor<256xi32>
      %6 = arith.cmpi slt, %4, %5 : tensor<256xi32>
      %cst_0 = arith.constant 0.000000e+00 : f16
      %7 = tile.splat %cst_0 : tensor<256xf16>
      %8 = tile.load %arg0[%4] mask %6 other %7 : (!tile.ptr<f16>, tensor<256xi32>, tensor<256xi1>, tensor<256xf16>) -> tensor<256xf16>
      %9 = arith.extf %8 : tensor<256xf16> to tensor<256xf32>
      %10 = arith.addf %arg4, %9 : tensor<256xf32>
      scf.yield %10 : tensor<256xf32>
    }
    tile.store %arg1[%0], %2 : (!tile.ptr<f32>, tensor<256xi32>, tensor<256xf32>) -> ()
    return
  }
}
