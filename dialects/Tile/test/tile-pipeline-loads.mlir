// tile-pipeline-loads: with tile.num_stages = 2, a loop's loads that depend only on the loop
// index are issued one iteration ahead (the first before the loop, masked by lb < ub; each next
// one at the top of the body, masked by i < i + step < ub) and carried in as iter_args. Loops
// that store, loads that depend on iter_args or on other loads, and kernels without the
// attribute are left alone.
// RUN: tessera-opt %s --tile-pipeline-loads --canonicalize | FileCheck %s
// A loop the pass has pipelined is marked (tile.loads_pipelined) and left alone when it runs
// again (tessera compile of --emit=tile-opt output, whose kernel keeps tile.num_stages): its
// loads stay one iteration ahead, not two.
// RUN: tessera-opt %s --tile-pipeline-loads --canonicalize --tile-pipeline-loads --canonicalize | FileCheck %s --check-prefix=TWICE
// TWICE-LABEL: func.func @sum
// TWICE-COUNT-2: tile.load
// TWICE-NOT: tile.load
// TWICE: {tile.loads_pipelined}
// TWICE-LABEL: func.func @unmasked

// CHECK-LABEL: func.func @sum
// CHECK: %[[FIRST:.*]] = arith.cmpi sgt, %[[N:.*]], %{{.*}} : i32
// CHECK: %[[G0:.*]] = tile.splat %[[FIRST]] : tensor<64xi1>
// CHECK: %[[M0:.*]] = arith.andi %{{.*}}, %[[G0]] : tensor<64xi1>
// CHECK: %[[L0:.*]] = tile.load %{{.*}} mask %[[M0]]
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[N]] step %[[STEP:.*]] iter_args(%[[ACC:.*]] = %{{.*}}, %[[CUR:.*]] = %[[L0]])
// CHECK:   %[[NEXT:.*]] = arith.addi %[[I]], %[[STEP]] : i32
// CHECK:   %[[FWD:.*]] = arith.cmpi slt, %[[I]], %[[NEXT]] : i32
// CHECK:   %[[IN:.*]] = arith.cmpi slt, %[[NEXT]], %[[N]] : i32
// CHECK:   %[[C:.*]] = arith.andi %[[FWD]], %[[IN]] : i1
// CHECK:   %[[S:.*]] = tile.splat %[[NEXT]] : tensor<64xi32>
// CHECK:   %[[G:.*]] = tile.splat %[[C]] : tensor<64xi1>
// CHECK:   %[[L:.*]] = tile.load %{{.*}}[%{{.*}}] mask %{{.*}}
// CHECK:   %[[SUM:.*]] = arith.addf %[[ACC]], %[[CUR]] : tensor<64xf32>
// CHECK:   scf.yield %[[SUM]], %[[L]]
func.func @sum(%x: !tile.ptr<f32>, %n: i32) -> tensor<64xf32> attributes {tile.kernel, tile.num_warps = 2 : i32, tile.num_stages = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %init = tile.splat %zero : tensor<64xf32>
  %r = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %init) -> (tensor<64xf32>) : i32 {
    %a = tile.arange 0, 64 : tensor<64xi32>
    %s = tile.splat %i : tensor<64xi32>
    %offs = arith.addi %s, %a : tensor<64xi32>
    %ns = tile.splat %n : tensor<64xi32>
    %m = arith.cmpi slt, %offs, %ns : tensor<64xi32>
    %v = tile.load %x[%offs] mask %m : (!tile.ptr<f32>, tensor<64xi32>, tensor<64xi1>) -> tensor<64xf32>
    %next = arith.addf %acc, %v : tensor<64xf32>
    scf.yield %next : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}

// An unmasked load gets the guard as its whole mask.
// CHECK-LABEL: func.func @unmasked
// CHECK: tile.load %{{.*}} mask %{{.*}} : (!tile.ptr<f32>, tensor<64xi32>, tensor<64xi1>) -> tensor<64xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<64xf32>, tensor<64xf32>)
// CHECK:   tile.load %{{.*}} mask %{{.*}} : (!tile.ptr<f32>, tensor<64xi32>, tensor<64xi1>) -> tensor<64xf32>
func.func @unmasked(%x: !tile.ptr<f32>, %n: i32) -> tensor<64xf32> attributes {tile.kernel, tile.num_warps = 2 : i32, tile.num_stages = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %init = tile.splat %zero : tensor<64xf32>
  %r = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %init) -> (tensor<64xf32>) : i32 {
    %a = tile.arange 0, 64 : tensor<64xi32>
    %s = tile.splat %i : tensor<64xi32>
    %offs = arith.addi %s, %a : tensor<64xi32>
    %v = tile.load %x[%offs] : (!tile.ptr<f32>, tensor<64xi32>) -> tensor<64xf32>
    %next = arith.addf %acc, %v : tensor<64xf32>
    scf.yield %next : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}

// A loop that stores: unchanged.
// CHECK-LABEL: func.func @stores
// CHECK-NOT: tile.load
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<64xf32>)
// CHECK:   tile.load
// CHECK:   tile.store
func.func @stores(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32) -> tensor<64xf32> attributes {tile.kernel, tile.num_warps = 2 : i32, tile.num_stages = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %init = tile.splat %zero : tensor<64xf32>
  %r = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %init) -> (tensor<64xf32>) : i32 {
    %a = tile.arange 0, 64 : tensor<64xi32>
    %s = tile.splat %i : tensor<64xi32>
    %offs = arith.addi %s, %a : tensor<64xi32>
    %v = tile.load %x[%offs] : (!tile.ptr<f32>, tensor<64xi32>) -> tensor<64xf32>
    %next = arith.addf %acc, %v : tensor<64xf32>
    tile.store %y[%offs], %next : (!tile.ptr<f32>, tensor<64xi32>, tensor<64xf32>) -> ()
    scf.yield %next : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}

// Offsets from an iter_arg, and a load whose offsets come from another load: unchanged.
// CHECK-LABEL: func.func @dependent
// CHECK-NOT: tile.load
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<64xf32>, tensor<64xi32>)
// CHECK:   tile.load
// CHECK:   tile.load
func.func @dependent(%x: !tile.ptr<f32>, %idx: !tile.ptr<i32>, %n: i32) -> tensor<64xf32> attributes {tile.kernel, tile.num_warps = 2 : i32, tile.num_stages = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %init = tile.splat %zero : tensor<64xf32>
  %start = tile.arange 0, 64 : tensor<64xi32>
  %r:2 = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %init, %offs = %start) -> (tensor<64xf32>, tensor<64xi32>) : i32 {
    %j = tile.load %idx[%offs] : (!tile.ptr<i32>, tensor<64xi32>) -> tensor<64xi32>
    %v = tile.load %x[%j] : (!tile.ptr<f32>, tensor<64xi32>) -> tensor<64xf32>
    %next = arith.addf %acc, %v : tensor<64xf32>
    scf.yield %next, %j : tensor<64xf32>, tensor<64xi32>
  }
  return %r#0 : tensor<64xf32>
}

// Without tile.num_stages: unchanged.
// CHECK-LABEL: func.func @one_stage
// CHECK-NOT: tile.load
// CHECK: scf.for {{.*}} -> (tensor<64xf32>)
func.func @one_stage(%x: !tile.ptr<f32>, %n: i32) -> tensor<64xf32> attributes {tile.kernel, tile.num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %init = tile.splat %zero : tensor<64xf32>
  %r = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %init) -> (tensor<64xf32>) : i32 {
    %a = tile.arange 0, 64 : tensor<64xi32>
    %s = tile.splat %i : tensor<64xi32>
    %offs = arith.addi %s, %a : tensor<64xi32>
    %v = tile.load %x[%offs] : (!tile.ptr<f32>, tensor<64xi32>) -> tensor<64xf32>
    %next = arith.addf %acc, %v : tensor<64xf32>
    scf.yield %next : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}
