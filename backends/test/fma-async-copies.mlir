// RUN: tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90" | FileCheck %s
// RUN: tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90 fma-async-copies=off" | FileCheck %s --check-prefix=OFF
// RUN: tessera-opt %s --convert-tile-to-gpu="target=spirv subgroup-size=32 fma-async-copies=on" | FileCheck %s --check-prefix=SPIRV
// RUN: not tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90 fma-async-copies=maybe" 2>&1 | FileCheck %s --check-prefix=BAD

// An f32 dot on the FMA path in a loop whose operands are loaded for it alone. With
// fma-async-copies (NVPTX, which has cp.async; by default, auto, in programs of 4 subgroups or
// fewer, as this one, or where a thread holds 128 accumulators or more) they are copied from
// their buffers in 16-byte runs, in 3 stages (A row-major in rows of 16 + 4, B as it comes: 3 x 320 and 3 x 256 floats), the
// first two before the loop, then each iteration waits for its own (one group left in flight),
// meets one barrier, issues the copies two iterations ahead and reads each of a thread's rows of
// A 4 k steps at a time (16-byte shared loads). Off, the operands are staged from registers;
// SPIR-V has no asynchronous copy.

// CHECK-DAG: llvm.mlir.global internal @{{.*}}() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<960 x f32>
// CHECK-DAG: llvm.mlir.global internal @{{.*}}() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<768 x f32>
// CHECK-LABEL: gpu.func @copied
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: gpu.barrier
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NOT: gpu.barrier
// CHECK: math.fma
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
// CHECK: nvvm.cp.async.wait.group 0
// OFF-LABEL: gpu.func @copied
// OFF-NOT: nvvm.cp.async
// OFF: scf.yield
// SPIRV-LABEL: gpu.func @copied
// SPIRV-NOT: cp.async
// SPIRV: scf.yield
// BAD: fma-async-copies='maybe': use auto, on or off
func.func @copied(%a: !tile.ptr<f32>, %b: !tile.ptr<f32>, %c: !tile.ptr<f32>, %k: i32)
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.arange 0, 16 : tensor<16xi32>
  %rows = tile.expand_dims %r, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %cols = tile.expand_dims %r, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %sixteen = arith.constant dense<16> : tensor<16x16xi32>
  %rb = tile.broadcast %rows : tensor<16x1xi32> -> tensor<16x16xi32>
  %cb = tile.broadcast %cols : tensor<1x16xi32> -> tensor<16x16xi32>
  %ro = arith.muli %rb, %sixteen : tensor<16x16xi32>
  %offs = arith.addi %ro, %cb : tensor<16x16xi32>
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %acc = scf.for %i = %c0 to %k step %c16 iter_args(%s = %zero) -> (tensor<16x16xf32>) : i32 {
    %is = tile.splat %i : tensor<16x16xi32>
    %o = arith.addi %offs, %is : tensor<16x16xi32>
    %x = tile.load %a[%o] : (!tile.ptr<f32>, tensor<16x16xi32>) -> tensor<16x16xf32>
    %y = tile.load %b[%o] : (!tile.ptr<f32>, tensor<16x16xi32>) -> tensor<16x16xf32>
    %d = tile.dot %x, %y, %s : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  tile.store %c[%offs], %acc : (!tile.ptr<f32>, tensor<16x16xi32>, tensor<16x16xf32>) -> ()
  return
}
