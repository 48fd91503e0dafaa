// RUN: %tessera compile %s --emit=spirv --subgroup-size=8 --denormals=software | FileCheck %s
// With software f32 denormals a portable sum's steps are native f32 additions: the subgroup
// shuffles move f32 bits, and each step's sum is tested (magnitude below 2^-100) before a
// branch that adds in f64 again, in the same order. After the barrier each lane reads its
// subgroup's slot from shared memory (4 slots, one a lane) and the shuffles combine the lanes.

// CHECK: OpGroupNonUniformShuffleXor %float %{{.*}} %{{.*}} %uint_1
// CHECK-NEXT: OpFAdd %float
// CHECK: OpULessThan %bool %{{.*}} %uint_226492416
// CHECK: OpBranchConditional
// CHECK: OpFAdd %double
// CHECK: OpGroupNonUniformShuffleXor %float %{{.*}} %{{.*}} %uint_2
// CHECK: OpGroupNonUniformShuffleXor %float %{{.*}} %{{.*}} %uint_4
// CHECK: OpControlBarrier
// CHECK: %[[SLOT:.*]] = OpLoad %float
// CHECK-NEXT: OpGroupNonUniformShuffleXor %float %{{.*}} %[[SLOT]] %uint_1
// CHECK: OpGroupNonUniformShuffleXor %float %{{.*}} %{{.*}} %uint_2
// CHECK-NOT: OpGroupNonUniformShuffleXor %double

func.func @soft_sum(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>) attributes {tile.kernel, tile.numerics = "portable"} {
  %offs = tile.arange 0, 64 : tensor<64xi32>
  %a = tile.load %x[%offs] : (!tile.ptr<f32>, tensor<64xi32>) -> tensor<64xf32>
  %s = tile.reduce sum %a, 0 : tensor<64xf32> -> f32
  %z = tile.arange 0, 1 : tensor<1xi32>
  %v = tile.splat %s : tensor<1xf32>
  tile.store %out[%z], %v : (!tile.ptr<f32>, tensor<1xi32>, tensor<1xf32>) -> ()
  return
}
