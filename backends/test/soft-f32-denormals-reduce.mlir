// RUN: %tessera compile %s --emit=spirv --subgroup-size=8 --denormals=software | FileCheck %s
// RUN: %tessera compile %s --emit=spirv --subgroup-size=8 --denormals=software | FileCheck %s --check-prefix=NOADD
// With software f32 denormals a portable sum's partial results stay f64 from step to step: the
// subgroup shuffles move the f64s (no f32 bits decoded and encoded again at each step), and no
// f32 arithmetic is left. After the barrier each lane reads its subgroup's slot from shared
// memory (f32 bits; 4 slots, one a lane) and the shuffles combine the lanes: the slot's bits move as they are, then
// the sums are f64 again.

// CHECK-DAG: %[[F64:.*]] = OpTypeFloat 64
// CHECK-NOT: OpGroupNonUniformShuffleXor %float
// CHECK: OpGroupNonUniformShuffleXor %[[F64]] %{{.*}} %{{.*}} %uint_1
// CHECK-NOT: OpGroupNonUniformShuffleXor %float
// CHECK: OpGroupNonUniformShuffleXor %[[F64]] %{{.*}} %{{.*}} %uint_2
// CHECK-NOT: OpGroupNonUniformShuffleXor %float
// CHECK: OpGroupNonUniformShuffleXor %[[F64]] %{{.*}} %{{.*}} %uint_4
// CHECK-NOT: OpGroupNonUniformShuffleXor %float
// CHECK: OpControlBarrier
// CHECK: %[[SLOT:.*]] = OpLoad %float
// CHECK-NEXT: OpGroupNonUniformShuffleXor %float %{{.*}} %[[SLOT]] %uint_1
// CHECK-NOT: OpGroupNonUniformShuffleXor %float
// CHECK: OpGroupNonUniformShuffleXor %[[F64]] %{{.*}} %{{.*}} %uint_2
// CHECK-NOT: OpGroupNonUniformShuffleXor %float
// NOADD-NOT: OpFAdd %float

func.func @soft_sum(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>) attributes {tile.kernel, tile.numerics = "portable"} {
  %offs = tile.arange 0, 64 : tensor<64xi32>
  %a = tile.load %x[%offs] : (!tile.ptr<f32>, tensor<64xi32>) -> tensor<64xf32>
  %s = tile.reduce sum %a, 0 : tensor<64xf32> -> f32
  %z = tile.arange 0, 1 : tensor<1xi32>
  %v = tile.splat %s : tensor<1xf32>
  tile.store %out[%z], %v : (!tile.ptr<f32>, tensor<1xi32>, tensor<1xf32>) -> ()
  return
}
