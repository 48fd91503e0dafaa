// RUN: tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90" | FileCheck %s
// RUN: tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90 fma-layout=false" | FileCheck %s --check-prefix=PLAIN
// RUN: tessera-opt %s --convert-tile-to-gpu="target=spirv subgroup-size=32" | FileCheck %s --check-prefix=SPIRV
// RUN: tessera-opt %s --convert-tile-to-gpu="target=spirv subgroup-size=32 fma-vector-a=false" | FileCheck %s --check-prefix=SCALAR-A

// A 64 x 256 f32 dot over 8 subgroups runs on the FMA path. Its accumulator's threads split so
// that each k step loads the fewest values (fmaAccumulatorThreads): 32 across the columns, each
// thread 8 rows and 2 runs of 4 columns, so a k step reads 2 runs of 4 of A (staged transposed,
// the thread's rows side by side) and 2 of B, each one 16-byte load, for 64 multiply-adds; the
// subgroups lie on a 2 x 4 grid, each 4 x 8 lanes (LayoutTests). The plain split
// (fma-layout=false) gives a thread 16 rows and 4 columns: 4 loads of A and 1 of B. SPIR-V's
// workgroup arrays are typed, so B is staged there as vectors of 4 (one store per run, one load
// per run of a k step), and A, written transposed element by element (each into its component:
// tile.store_component), as vectors of 4 too, each run of a thread's rows one load
// (fma-vector-a=false: A in scalars, read a value at a time).

// CHECK-LABEL: gpu.func @fma
// CHECK: scf.for
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NOT: llvm.load
// CHECK-COUNT-64: math.fma
// CHECK-NOT: math.fma
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// PLAIN-LABEL: gpu.func @fma
// PLAIN: scf.for
// PLAIN-COUNT-5: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// PLAIN-NOT: llvm.load
// PLAIN-COUNT-64: math.fma
// SPIRV-LABEL: gpu.func @fma
// SPIRV: %[[B:.*]] = memref.alloc() : memref<1024xvector<4xf32>, #spirv.storage_class<Workgroup>>
// SPIRV: %[[A:.*]] = memref.alloc() : memref<272xvector<4xf32>, #spirv.storage_class<Workgroup>>
// SPIRV-COUNT-4: tile.store_component %{{.*}}, %[[A]][%{{.*}}, %{{.*}}] : f32, memref<272xvector<4xf32>
// SPIRV-NOT: tile.store_component
// SPIRV-COUNT-4: memref.store %{{.*}}, %[[B]][%{{.*}}] : memref<1024xvector<4xf32>
// SPIRV: scf.for
// SPIRV-COUNT-2: memref.load %[[A]][%{{.*}}] : memref<272xvector<4xf32>
// SPIRV-COUNT-2: memref.load %[[B]][%{{.*}}] : memref<1024xvector<4xf32>
// SPIRV-NOT: memref.load
// SPIRV: math.fma
// SCALAR-A-LABEL: gpu.func @fma
// SCALAR-A: %[[B:.*]] = memref.alloc() : memref<1024xvector<4xf32>, #spirv.storage_class<Workgroup>>
// SCALAR-A-COUNT-4: memref.store %{{.*}}, %[[B]][%{{.*}}] : memref<1024xvector<4xf32>
// SCALAR-A: scf.for
// SCALAR-A-COUNT-8: memref.load {{.*}} : memref<1088xf32, #spirv.storage_class<Workgroup>>
// SCALAR-A-COUNT-2: memref.load %[[B]][%{{.*}}] : memref<1024xvector<4xf32>
// SCALAR-A: math.fma
func.func @fma(%a: !tile.ptr<f32>, %b: !tile.ptr<f32>, %c: !tile.ptr<f32>)
    attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %r = tile.arange 0, 64 : tensor<64xi32>
  %n = tile.arange 0, 256 : tensor<256xi32>
  %k = tile.arange 0, 16 : tensor<16xi32>
  %rows = tile.expand_dims %r, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %n, 0 : tensor<256xi32> -> tensor<1x256xi32>
  %krow = tile.expand_dims %k, 1 : tensor<16xi32> -> tensor<16x1xi32>
  %kcol = tile.expand_dims %k, 0 : tensor<16xi32> -> tensor<1x16xi32>
  %s16 = arith.constant dense<16> : tensor<64x1xi32>
  %s256 = arith.constant dense<256> : tensor<16x1xi32>
  %s256c = arith.constant dense<256> : tensor<64x1xi32>
  %ar = arith.muli %rows, %s16 : tensor<64x1xi32>
  %arb = tile.broadcast %ar : tensor<64x1xi32> -> tensor<64x16xi32>
  %acb = tile.broadcast %kcol : tensor<1x16xi32> -> tensor<64x16xi32>
  %ao = arith.addi %arb, %acb : tensor<64x16xi32>
  %br = arith.muli %krow, %s256 : tensor<16x1xi32>
  %brb = tile.broadcast %br : tensor<16x1xi32> -> tensor<16x256xi32>
  %bcb = tile.broadcast %cols : tensor<1x256xi32> -> tensor<16x256xi32>
  %bo = arith.addi %brb, %bcb : tensor<16x256xi32>
  %cr = arith.muli %rows, %s256c : tensor<64x1xi32>
  %crb = tile.broadcast %cr : tensor<64x1xi32> -> tensor<64x256xi32>
  %ccb = tile.broadcast %cols : tensor<1x256xi32> -> tensor<64x256xi32>
  %co = arith.addi %crb, %ccb : tensor<64x256xi32>
  %x = tile.load %a[%ao] : (!tile.ptr<f32>, tensor<64x16xi32>) -> tensor<64x16xf32>
  %y = tile.load %b[%bo] : (!tile.ptr<f32>, tensor<16x256xi32>) -> tensor<16x256xf32>
  %zero = arith.constant dense<0.0> : tensor<64x256xf32>
  %d = tile.dot %x, %y, %zero : tensor<64x16xf32>, tensor<16x256xf32> -> tensor<64x256xf32>
  tile.store %c[%co], %d : (!tile.ptr<f32>, tensor<64x256xi32>, tensor<64x256xf32>) -> ()
  return
}
