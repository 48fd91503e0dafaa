// RUN: %tessera compile %s --emit=spirv --subgroup-size=8 | FileCheck %s
// bf16 on SPIR-V lives in 16-bit integers. f32 -> bf16 rounds to nearest even in integer
// operations, and its NaN test is on the bits (|bits| > 0x7f800000): a float self-comparison
// may be folded away by a driver when the module does not preserve NaNs.

// CHECK-NOT: OpCapability BFloat16
// CHECK-NOT: OpFUnordNotEqual
// CHECK-NOT: OpIsNan
// CHECK: OpUGreaterThan
// CHECK-NOT: OpFUnordNotEqual
// CHECK-NOT: OpIsNan
func.func @to_bf16(%x: !tile.ptr<f32>, %y: !tile.ptr<bf16>) attributes {tile.kernel} {
  %offs = tile.arange 0, 256 : tensor<256xi32>
  %v = tile.load %x[%offs] : (!tile.ptr<f32>, tensor<256xi32>) -> tensor<256xf32>
  %w = arith.truncf %v : tensor<256xf32> to tensor<256xbf16>
  tile.store %y[%offs], %w : (!tile.ptr<bf16>, tensor<256xi32>, tensor<256xbf16>) -> ()
  return
}
