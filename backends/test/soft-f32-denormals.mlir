// RUN: %tessera compile %s --emit=spirv --subgroup-size=8 --denormals=software | FileCheck %s --check-prefix=SOFT
// RUN: %tessera compile %s --emit=spirv --subgroup-size=8 | FileCheck %s --check-prefix=NATIVE
// RUN: %tessera compile %s --emit=spirv --subgroup-size=8 --denormals=software | FileCheck %s --check-prefix=NOF32
// RUN: not %tessera compile %s --emit=spirv --denormals=sometimes 2>&1 | FileCheck %s --check-prefix=BAD
// Portable kernels for drivers that flush f32 denormals (--denormals=software, chip
// vulkan1.1+soft-denormals): no f32 arithmetic is left for the driver to flush. f32 values are
// widened into f64 (a conversion for normal values, the mantissa times 2^-149 for denormals),
// computed in f64, rounded to f32 precision in f64, and narrowed back (a conversion of a value
// that is already an f32 one, integer operations for denormals); the module no longer declares
// DenormPreserve for 32-bit floats.

// The f32 add, multiply and compare happen in f64; the f32 negation is an integer xor.
// SOFT-DAG: OpExecutionMode %{{.*}} DenormPreserve 64
// SOFT-DAG: OpExecutionMode %{{.*}} SignedZeroInfNanPreserve 32
// SOFT-DAG: %[[F64:.*]] = OpTypeFloat 64
// SOFT-DAG: OpFAdd %[[F64]]
// SOFT-DAG: OpFMul %[[F64]]
// SOFT-DAG: OpFOrdLessThan
// SOFT-DAG: OpBitwiseXor
// SOFT-DAG: OpShiftRightLogical
// SOFT-DAG: OpFConvert %[[F64]]
// SOFT-DAG: OpConvertUToF %[[F64]]

// Nothing computes on f32 (the disassembler names the f32 type %float).
// NOF32-NOT: DenormPreserve 32
// NOF32-NOT: OpFAdd %float
// NOF32-NOT: OpFMul %float
// NOF32-NOT: OpFNegate %float

// Without software denormals the same kernel computes in f32 and asks the driver to keep them.
// NATIVE-DAG: OpExecutionMode %{{.*}} DenormPreserve 32
// NATIVE-DAG: %[[F32:.*]] = OpTypeFloat 32
// NATIVE-DAG: OpFAdd %[[F32]]
// NATIVE-DAG: OpFMul %[[F32]]

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
