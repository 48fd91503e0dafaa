// RUN: %tessera compile %s --emit=spirv --subgroup-size=8 --denormals=software | FileCheck %s --check-prefix=SOFT
// RUN: %tessera compile %s --emit=spirv --subgroup-size=8 | FileCheck %s --check-prefix=NATIVE
// RUN: %tessera compile %s --emit=spirv --subgroup-size=8 --denormals=software | FileCheck %s --check-prefix=SOFTNOT
// RUN: not %tessera compile %s --emit=spirv --denormals=sometimes 2>&1 | FileCheck %s --check-prefix=BAD
// Portable kernels for drivers that flush f32 denormals (--denormals=software, chip
// vulkan1.1+soft-denormals): each f32 operation runs natively, then a few integer operations on
// its result (or inputs) tell whether a flushing driver may have got it wrong, and only then
// does a branch (one for the elements of a tile operation) run it again in f64 (f32 values widened exactly, the result rounded to f32 in
// f64 and narrowed back). The module no longer declares DenormPreserve for 32-bit floats.

// SOFT-DAG: OpExecutionMode %{{.*}} DenormPreserve 64
// SOFT-DAG: OpExecutionMode %{{.*}} SignedZeroInfNanPreserve 32
// The sums (a lane's two elements): each tested below 2^-100 (27 << 23 = 226492416 in the
// magnitude bits), and the tests of one tile operation's elements share one branch.
// SOFT: %[[SUM0:.*]] = OpFAdd %float
// SOFT-NEXT: %[[BITS0:.*]] = OpBitcast %uint %[[SUM0]]
// SOFT-NEXT: %[[MAG0:.*]] = OpBitwiseAnd %uint %[[BITS0]] %uint_2147483647
// SOFT-NEXT: %[[SMALL0:.*]] = OpULessThan %bool %[[MAG0]] %uint_226492416
// SOFT-NEXT: %[[SUM1:.*]] = OpFAdd %float
// SOFT: %[[SMALL1:.*]] = OpULessThan %bool %{{.*}} %uint_226492416
// SOFT-NEXT: %[[EITHER:.*]] = OpLogicalOr %bool %[[SMALL0]] %[[SMALL1]]
// SOFT: OpBranchConditional %[[EITHER]] %[[SLOWADD:.*]] %[[FASTADD:.*]]
// SOFT: %[[SLOWADD]] = OpLabel
// SOFT: OpFAdd %double
// SOFT: OpFAdd %double
// SOFT: %[[FASTADD]] = OpLabel
// The results meet in phis (no Function variables: NVIDIA's driver put hundreds of them in
// local memory).
// SOFT: OpPhi %float %[[SUM0]] %[[FASTADD]] %{{.*}} %[[SLOWADD]]
// SOFT-NEXT: OpPhi %float %[[SUM1]] %[[FASTADD]] %{{.*}} %[[SLOWADD]]
// The products: software when zero, denormal or NaN: one unsigned range test (magnitude -
// 2^-126 above the NaNs' start - 2^-126).
// SOFT: OpFMul %float
// SOFT: OpIAdd %uint %{{.*}} %uint_4286578688
// SOFT-NEXT: OpUGreaterThan %bool %{{.*}} %uint_2130706432
// SOFT: OpFMul %float
// SOFT: OpLogicalOr
// SOFT: OpBranchConditional
// SOFT: OpFMul %double
// The negation is an integer xor; the compare runs in f64 only where both exponent fields are zero.
// SOFT: OpBitwiseXor %uint %{{.*}} %uint_2147483648
// SOFT: OpFOrdLessThan %bool %{{.*}} %{{.*}}
// SOFT: OpBitwiseOr %uint
// SOFT: OpULessThan %bool %{{.*}} %uint_8388608
// SOFT: OpBranchConditional
// SOFT: OpFConvert %double
// SOFT: OpFOrdLessThan %bool

// SOFTNOT-NOT: DenormPreserve 32
// SOFTNOT-NOT: OpFNegate %float
// SOFTNOT-NOT: OpVariable %{{.*}} Function

// Without software denormals the same kernel computes in f32, with no branch, and asks the
// driver to keep them.
// NATIVE-DAG: OpExecutionMode %{{.*}} DenormPreserve 32
// NATIVE-DAG: %[[F32:.*]] = OpTypeFloat 32
// NATIVE-DAG: OpFAdd %[[F32]]
// NATIVE-DAG: OpFMul %[[F32]]
// NATIVE-NOT: OpBranchConditional

// BAD: --denormals wants native, software or both; got 'sometimes'

func.func @soft(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %out: !tile.ptr<f32>) attributes {tile.kernel, tile.numerics = "portable"} {
  %offs = tile.arange 0, 64 : tensor<64xi32>
  %a = tile.load %x[%offs] : (!tile.ptr<f32>, tensor<64xi32>) -> tensor<64xf32>
  %b = tile.load %y[%offs] : (!tile.ptr<f32>, tensor<64xi32>) -> tensor<64xf32>
  %s = arith.addf %a, %b : tensor<64xf32>
  %p = arith.mulf %s, %a : tensor<64xf32>
  %n = arith.negf %p : tensor<64xf32>
  %lt = arith.cmpf olt, %a, %b : tensor<64xf32>
  %r = arith.select %lt, %n, %s : tensor<64xi1>, tensor<64xf32>
  tile.store %out[%offs], %r : (!tile.ptr<f32>, tensor<64xi32>, tensor<64xf32>) -> ()
  return
}
