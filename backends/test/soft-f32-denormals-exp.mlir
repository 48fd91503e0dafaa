// RUN: %tessera compile %s --emit=spirv --subgroup-size=8 --denormals=software | FileCheck %s
// With software f32 denormals the portable exp's f64 result goes to f32 by the driver's
// conversion, except below 2^-126, where the driver may flush: there the bits are the sign and
// roundeven(|d| * 2^149) (the nearest denormal, ties to even, or 2^-126). A select, no branch.

// CHECK: %[[NARROW:.*]] = OpFConvert %float
// CHECK: %[[TINY:.*]] = OpFOrdLessThan %bool %{{.*}} %double_1_1754943508222875en38
// CHECK: %[[STEPS:.*]] = OpExtInst %double %{{.*}} RoundEven
// CHECK: OpConvertFToU %uint %[[STEPS]]
// CHECK: %[[NARROWBITS:.*]] = OpBitcast %uint %[[NARROW]]
// CHECK-NEXT: OpSelect %uint %[[TINY]] %{{.*}} %[[NARROWBITS]]

func.func @soft_exp(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>) attributes {tile.kernel, tile.numerics = "portable"} {
  %offs = tile.arange 0, 64 : tensor<64xi32>
  %a = tile.load %x[%offs] : (!tile.ptr<f32>, tensor<64xi32>) -> tensor<64xf32>
  %e = math.exp %a : tensor<64xf32>
  tile.store %out[%offs], %e : (!tile.ptr<f32>, tensor<64xi32>, tensor<64xf32>) -> ()
  return
}
