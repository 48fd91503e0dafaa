// RUN: %tessera compile %s --emit=spirv-mlir --subgroup-size=32 | FileCheck %s
// RUN: %tessera compile %s --emit=spirv --subgroup-size=32 | FileCheck %s --check-prefix=SPV
// Whole runs of 16 bytes (and of several times 16) are one 16-byte access each on SPIR-V: a
// second variable on the buffer's binding views it as 16-byte vectors, and the elements are
// bitcast out of (and packed into) 32-bit words. The written buffer's two variables are Aliased
// (a thread's accesses through them stay in order); the read-only one's are NonWritable, as
// GLSL's readonly buffers (the driver may use its read-only caches), and not Aliased. A thread
// here holds 8 elements: its f32 run is two 16-byte loads, in one branch (taken where both runs are
// whole, so that both loads are in flight at once), its f16 run one 16-byte store.

// CHECK-DAG: spirv.GlobalVariable @__tessera_units16_0_0 bind(0, 0) {non_writable} : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>
// CHECK-DAG: spirv.GlobalVariable @__tessera_units16_0_1 bind(0, 1) {aliased} : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>
// CHECK-DAG: spirv.GlobalVariable @copy_arg_0 bind(0, 0) {non_writable} : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0])>, StorageBuffer>
// CHECK-DAG: spirv.GlobalVariable @copy_arg_1 bind(0, 1) {aliased} : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f16, stride=2> [0])>, StorageBuffer>
// CHECK-LABEL: spirv.func @copy
// CHECK: spirv.Load "StorageBuffer" %{{.*}} : vector<4xi32>
// CHECK: spirv.Bitcast %{{.*}} : i32 to f32
// CHECK-NOT: spirv.BranchConditional
// CHECK: spirv.Load "StorageBuffer" %{{.*}} : vector<4xi32>
// CHECK: spirv.Bitcast %{{.*}} : vector<2xf16> to i32
// CHECK: spirv.Store "StorageBuffer" %{{.*}}, %{{.*}} : vector<4xi32>
// SPV-DAG: OpDecorate %copy_arg_0 NonWritable
// SPV-DAG: OpDecorate %copy_arg_1 Aliased
// SPV-DAG: OpDecorate %__tessera_units16_0_0 NonWritable
// SPV-DAG: OpDecorate %__tessera_units16_0_1 Aliased
// SPV-DAG: OpDecorate %__tessera_units16_0_0 Binding 0
func.func @copy(%x: !tile.ptr<f32> {tile.name = "x"}, %y: !tile.ptr<f16> {tile.name = "y"}, %n: i32 {tile.name = "n"})
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %offs = tile.arange 0, 256 : tensor<256xi32>
  %ns = tile.splat %n : tensor<256xi32>
  %m = arith.cmpi slt, %offs, %ns : tensor<256xi32>
  %v = tile.load %x[%offs] mask %m : (!tile.ptr<f32>, tensor<256xi32>, tensor<256xi1>) -> tensor<256xf32>
  %h = arith.truncf %v : tensor<256xf32> to tensor<256xf16>
  tile.store %y[%offs], %h mask %m : (!tile.ptr<f16>, tensor<256xi32>, tensor<256xf16>, tensor<256xi1>) -> ()
  return
}
