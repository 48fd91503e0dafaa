// RUN: tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90 fma-async-copies=off" | FileCheck %s
// RUN: tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90 fma-async-copies=off fma-unroll=8" | FileCheck %s --check-prefix=EIGHT
// RUN: tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90 fma-async-copies=off fma-unroll=2" | FileCheck %s --check-prefix=TWO
// RUN: tessera-opt %s --convert-tile-to-gpu="target=spirv subgroup-size=8 fma-unroll=4" | FileCheck %s --check-prefix=SPIRV
// RUN: tessera-opt %s --convert-tile-to-gpu="target=spirv subgroup-size=8" | FileCheck %s --check-prefix=SPIRV-DEFAULT
// RUN: tessera-opt %s --convert-tile-to-gpu="target=spirv subgroup-size=32" | FileCheck %s --check-prefix=SPIRV32
// RUN: tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90 fma-async-copies=on fma-unroll=1" | FileCheck %s --check-prefix=ROWS
// RUN: not tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90 fma-unroll=12" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90 fma-unroll=128" 2>&1 | FileCheck %s --check-prefix=BIG

// A 16 x 32 x 16 dot on the FMA path (one subgroup). Its inner loop walks k in steps of
// fma-unroll values (by default the target's: 32 on NVPTX; on SPIR-V 16 for subgroups of 32, 8
// for narrower), each step's multiply-adds in one block: a thread holds 8 of the 16 x 16
// accumulators, so 32 k values (the whole K, one step) make 256 fmas a step, 16 make 128, 8
// make 64, and 2 make 16 (on SPIR-V with subgroups of 8: 32 accumulators a thread, 8 k values
// 256 fmas, 4 make 128). A copied (row-major) A is read 4 k values at a time, so its steps take 4 at least.

// CHECK-LABEL: gpu.func @unroll
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32_i32{{(_[0-9]+)?}} iter_args
// CHECK-COUNT-256: math.fma
// CHECK-NOT: math.fma
// CHECK: scf.yield
// EIGHT-LABEL: gpu.func @unroll
// EIGHT: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c8_i32{{(_[0-9]+)?}} iter_args
// EIGHT-COUNT-64: math.fma
// EIGHT-NOT: math.fma
// EIGHT: scf.yield
// TWO-LABEL: gpu.func @unroll
// TWO: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c2_i32{{(_[0-9]+)?}} iter_args
// TWO-COUNT-16: math.fma
// TWO-NOT: math.fma
// TWO: scf.yield
// SPIRV-LABEL: gpu.func @unroll
// SPIRV: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c4_i32{{(_[0-9]+)?}} iter_args
// SPIRV-COUNT-128: math.fma
// SPIRV-NOT: math.fma
// SPIRV: scf.yield
// SPIRV-DEFAULT-LABEL: gpu.func @unroll
// SPIRV-DEFAULT: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c8_i32{{(_[0-9]+)?}} iter_args
// SPIRV-DEFAULT-COUNT-256: math.fma
// SPIRV-DEFAULT-NOT: math.fma
// SPIRV-DEFAULT: scf.yield
// SPIRV32-LABEL: gpu.func @unroll
// SPIRV32: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c16_i32{{(_[0-9]+)?}} iter_args
// SPIRV32-COUNT-128: math.fma
// SPIRV32-NOT: math.fma
// SPIRV32: scf.yield
// ROWS-LABEL: gpu.func @unroll
// ROWS: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c4_i32{{(_[0-9]+)?}} iter_args
// ROWS-COUNT-32: math.fma
// ROWS-NOT: math.fma
// ROWS: scf.yield
// BAD: fma-unroll=12: use a power of two from 1 to 64 (0: the target's)
// BIG: fma-unroll=128: use a power of two from 1 to 64 (0: the target's)
func.func @unroll(%a: !tile.ptr<f32>, %b: !tile.ptr<f32>, %c: !tile.ptr<f32>, %k: i32)
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r16 = tile.arange 0, 16 : tensor<16xi32>
  %r32 = tile.arange 0, 32 : tensor<32xi32>
  %rows = tile.expand_dims %r16, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %cols = tile.expand_dims %r32, 0 : tensor<32xi32> -> tensor<1x32xi32>
  %brows = tile.expand_dims %r32, 1 : tensor<32xi32> -> tensor<32x1xi32>
  %bcols = tile.expand_dims %r16, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %s32 = arith.constant dense<32> : tensor<16x32xi32>
  %s16 = arith.constant dense<16> : tensor<32x16xi32>
  %ar = tile.broadcast %rows : tensor<16x1xi32> -> tensor<16x32xi32>
  %ac = tile.broadcast %cols : tensor<1x32xi32> -> tensor<16x32xi32>
  %aro = arith.muli %ar, %s32 : tensor<16x32xi32>
  %aoffs = arith.addi %aro, %ac : tensor<16x32xi32>
  %br = tile.broadcast %brows : tensor<32x1xi32> -> tensor<32x16xi32>
  %bc = tile.broadcast %bcols : tensor<1x16xi32> -> tensor<32x16xi32>
  %bro = arith.muli %br, %s16 : tensor<32x16xi32>
  %boffs = arith.addi %bro, %bc : tensor<32x16xi32>
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %acc = scf.for %i = %c0 to %k step %c32 iter_args(%s = %zero) -> (tensor<16x16xf32>) : i32 {
    %ia = tile.splat %i : tensor<16x32xi32>
    %oa = arith.addi %aoffs, %ia : tensor<16x32xi32>
    %ib = tile.splat %i : tensor<32x16xi32>
    %ob = arith.addi %boffs, %ib : tensor<32x16xi32>
    %x = tile.load %a[%oa] : (!tile.ptr<f32>, tensor<16x32xi32>) -> tensor<16x32xf32>
    %y = tile.load %b[%ob] : (!tile.ptr<f32>, tensor<32x16xi32>) -> tensor<32x16xf32>
    %d = tile.dot %x, %y, %s : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  %o16 = tile.broadcast %rows : tensor<16x1xi32> -> tensor<16x16xi32>
  %c16t = arith.constant dense<16> : tensor<16x16xi32>
  %oc = tile.broadcast %bcols : tensor<1x16xi32> -> tensor<16x16xi32>
  %or = arith.muli %o16, %c16t : tensor<16x16xi32>
  %co = arith.addi %or, %oc : tensor<16x16xi32>
  tile.store %c[%co], %acc : (!tile.ptr<f32>, tensor<16x16xi32>, tensor<16x16xf32>) -> ()
  return
}
