// RUN: tessera-opt %s -split-input-file --carry-mma-matrices | FileCheck %s

// An accumulator block carried as a lane's 8 scalars, rebuilt before its product and taken apart
// after it (the scalars in a permuted order, as the lanes lowering places them), becomes one
// matrix argument: built before the loop (one constant matrix for a constant start), its
// elements that are used extracted once after the loop, at the indices the loop used. The
// scalar carried beside it stays.
// CHECK-LABEL: func.func @carried
// CHECK: %[[INIT:.*]] = gpu.subgroup_mma_constant_matrix
// CHECK: %[[LOOP:.*]]:2 = scf.for {{.*}} iter_args(%[[S:.*]] = %{{.*}}, %[[M:.*]] = %[[INIT]]) -> (f32, !gpu.mma_matrix<16x16xf32, "COp">)
// CHECK-NOT: gpu.subgroup_mma_insert_thread_local
// CHECK-NOT: gpu.subgroup_mma_extract_thread_local
// CHECK: %[[P:.*]] = gpu.subgroup_mma_compute %{{.*}}, %{{.*}}, %[[M]]
// CHECK: scf.yield %{{.*}}, %[[P]] : f32, !gpu.mma_matrix<16x16xf32, "COp">
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[X0:.*]] = gpu.subgroup_mma_extract_thread_local %[[LOOP]]#1[%[[C0]]]
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[X4:.*]] = gpu.subgroup_mma_extract_thread_local %[[LOOP]]#1[%[[C4]]]
// CHECK-NOT: gpu.subgroup_mma_extract_thread_local
// CHECK: return %[[LOOP]]#0, %[[X0]], %[[X4]]
func.func @carried(%a: !gpu.mma_matrix<16x16xf16, "AOp">, %b: !gpu.mma_matrix<16x16xf16, "BOp">, %n: i32) -> (f32, f32, f32) {
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %lo = arith.constant 0 : i32
  %st = arith.constant 1 : i32
  %r:9 = scf.for %i = %lo to %n step %st iter_args(%s = %z, %v0 = %z, %v1 = %z, %v2 = %z, %v3 = %z, %v4 = %z, %v5 = %z, %v6 = %z, %v7 = %z) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32) : i32 {
    %m = gpu.subgroup_mma_constant_matrix %z : !gpu.mma_matrix<16x16xf32, "COp">
    %m0 = gpu.subgroup_mma_insert_thread_local %v0, %m[%c0] : f32, !gpu.mma_matrix<16x16xf32, "COp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %m1 = gpu.subgroup_mma_insert_thread_local %v1, %m0[%c1] : f32, !gpu.mma_matrix<16x16xf32, "COp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %m2 = gpu.subgroup_mma_insert_thread_local %v4, %m1[%c2] : f32, !gpu.mma_matrix<16x16xf32, "COp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %m3 = gpu.subgroup_mma_insert_thread_local %v5, %m2[%c3] : f32, !gpu.mma_matrix<16x16xf32, "COp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %m4 = gpu.subgroup_mma_insert_thread_local %v2, %m3[%c4] : f32, !gpu.mma_matrix<16x16xf32, "COp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %m5 = gpu.subgroup_mma_insert_thread_local %v3, %m4[%c5] : f32, !gpu.mma_matrix<16x16xf32, "COp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %m6 = gpu.subgroup_mma_insert_thread_local %v6, %m5[%c6] : f32, !gpu.mma_matrix<16x16xf32, "COp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %m7 = gpu.subgroup_mma_insert_thread_local %v7, %m6[%c7] : f32, !gpu.mma_matrix<16x16xf32, "COp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %p = gpu.subgroup_mma_compute %a, %b, %m7 : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %e0 = gpu.subgroup_mma_extract_thread_local %p[%c0] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    %e1 = gpu.subgroup_mma_extract_thread_local %p[%c1] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    %e2 = gpu.subgroup_mma_extract_thread_local %p[%c2] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    %e3 = gpu.subgroup_mma_extract_thread_local %p[%c3] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    %e4 = gpu.subgroup_mma_extract_thread_local %p[%c4] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    %e5 = gpu.subgroup_mma_extract_thread_local %p[%c5] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    %e6 = gpu.subgroup_mma_extract_thread_local %p[%c6] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    %e7 = gpu.subgroup_mma_extract_thread_local %p[%c7] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    %s2 = arith.addf %s, %s : f32
    scf.yield %s2, %e0, %e1, %e4, %e5, %e2, %e3, %e6, %e7 : f32, f32, f32, f32, f32, f32, f32, f32, f32
  }
  // Results 1 (index 0) and 3 (index 4, the loop's %v2) come back through the extracts.
  return %r#0, %r#1, %r#3 : f32, f32, f32
}

// -----

// A scalar that is also used elsewhere in the loop (here rescaled, as attention rescales its
// output rows) keeps the block as scalars.
// CHECK-LABEL: func.func @rescaled
// CHECK: scf.for {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK: gpu.subgroup_mma_insert_thread_local
func.func @rescaled(%a: !gpu.mma_matrix<16x16xf16, "AOp">, %b: !gpu.mma_matrix<16x16xf16, "BOp">, %n: i32, %alpha: f32) -> f32 {
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %lo = arith.constant 0 : i32
  %st = arith.constant 1 : i32
  %r:8 = scf.for %i = %lo to %n step %st iter_args(%v0 = %z, %v1 = %z, %v2 = %z, %v3 = %z, %v4 = %z, %v5 = %z, %v6 = %z, %v7 = %z) -> (f32, f32, f32, f32, f32, f32, f32, f32) : i32 {
    %w0 = arith.mulf %v0, %alpha : f32
    %m = gpu.subgroup_mma_constant_matrix %z : !gpu.mma_matrix<16x16xf32, "COp">
    %m0 = gpu.subgroup_mma_insert_thread_local %w0, %m[%c0] : f32, !gpu.mma_matrix<16x16xf32, "COp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %m1 = gpu.subgroup_mma_insert_thread_local %v1, %m0[%c1] : f32, !gpu.mma_matrix<16x16xf32, "COp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %m2 = gpu.subgroup_mma_insert_thread_local %v2, %m1[%c2] : f32, !gpu.mma_matrix<16x16xf32, "COp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %m3 = gpu.subgroup_mma_insert_thread_local %v3, %m2[%c3] : f32, !gpu.mma_matrix<16x16xf32, "COp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %m4 = gpu.subgroup_mma_insert_thread_local %v4, %m3[%c4] : f32, !gpu.mma_matrix<16x16xf32, "COp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %m5 = gpu.subgroup_mma_insert_thread_local %v5, %m4[%c5] : f32, !gpu.mma_matrix<16x16xf32, "COp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %m6 = gpu.subgroup_mma_insert_thread_local %v6, %m5[%c6] : f32, !gpu.mma_matrix<16x16xf32, "COp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %m7 = gpu.subgroup_mma_insert_thread_local %v7, %m6[%c7] : f32, !gpu.mma_matrix<16x16xf32, "COp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %p = gpu.subgroup_mma_compute %a, %b, %m7 : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %e0 = gpu.subgroup_mma_extract_thread_local %p[%c0] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    %e1 = gpu.subgroup_mma_extract_thread_local %p[%c1] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    %e2 = gpu.subgroup_mma_extract_thread_local %p[%c2] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    %e3 = gpu.subgroup_mma_extract_thread_local %p[%c3] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    %e4 = gpu.subgroup_mma_extract_thread_local %p[%c4] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    %e5 = gpu.subgroup_mma_extract_thread_local %p[%c5] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    %e6 = gpu.subgroup_mma_extract_thread_local %p[%c6] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    %e7 = gpu.subgroup_mma_extract_thread_local %p[%c7] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    scf.yield %e0, %e1, %e2, %e3, %e4, %e5, %e6, %e7 : f32, f32, f32, f32, f32, f32, f32, f32
  }
  return %r#0 : f32
}

// -----

// The loop yields an element at another index than the one its scalar was inserted at: not the
// identity, so the scalars stay.
// CHECK-LABEL: func.func @swapped
// CHECK: scf.for {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32)
func.func @swapped(%a: !gpu.mma_matrix<16x16xf16, "AOp">, %b: !gpu.mma_matrix<16x16xf16, "BOp">, %n: i32) -> f32 {
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %lo = arith.constant 0 : i32
  %st = arith.constant 1 : i32
  %r:8 = scf.for %i = %lo to %n step %st iter_args(%v0 = %z, %v1 = %z, %v2 = %z, %v3 = %z, %v4 = %z, %v5 = %z, %v6 = %z, %v7 = %z) -> (f32, f32, f32, f32, f32, f32, f32, f32) : i32 {
    %m = gpu.subgroup_mma_constant_matrix %z : !gpu.mma_matrix<16x16xf32, "COp">
    %m0 = gpu.subgroup_mma_insert_thread_local %v0, %m[%c0] : f32, !gpu.mma_matrix<16x16xf32, "COp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %m1 = gpu.subgroup_mma_insert_thread_local %v1, %m0[%c1] : f32, !gpu.mma_matrix<16x16xf32, "COp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %m2 = gpu.subgroup_mma_insert_thread_local %v2, %m1[%c2] : f32, !gpu.mma_matrix<16x16xf32, "COp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %m3 = gpu.subgroup_mma_insert_thread_local %v3, %m2[%c3] : f32, !gpu.mma_matrix<16x16xf32, "COp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %m4 = gpu.subgroup_mma_insert_thread_local %v4, %m3[%c4] : f32, !gpu.mma_matrix<16x16xf32, "COp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %m5 = gpu.subgroup_mma_insert_thread_local %v5, %m4[%c5] : f32, !gpu.mma_matrix<16x16xf32, "COp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %m6 = gpu.subgroup_mma_insert_thread_local %v6, %m5[%c6] : f32, !gpu.mma_matrix<16x16xf32, "COp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %m7 = gpu.subgroup_mma_insert_thread_local %v7, %m6[%c7] : f32, !gpu.mma_matrix<16x16xf32, "COp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %p = gpu.subgroup_mma_compute %a, %b, %m7 : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %e0 = gpu.subgroup_mma_extract_thread_local %p[%c0] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    %e1 = gpu.subgroup_mma_extract_thread_local %p[%c1] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    %e2 = gpu.subgroup_mma_extract_thread_local %p[%c2] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    %e3 = gpu.subgroup_mma_extract_thread_local %p[%c3] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    %e4 = gpu.subgroup_mma_extract_thread_local %p[%c4] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    %e5 = gpu.subgroup_mma_extract_thread_local %p[%c5] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    %e6 = gpu.subgroup_mma_extract_thread_local %p[%c6] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    %e7 = gpu.subgroup_mma_extract_thread_local %p[%c7] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    scf.yield %e1, %e0, %e2, %e3, %e4, %e5, %e6, %e7 : f32, f32, f32, f32, f32, f32, f32, f32
  }
  return %r#0 : f32
}
