// RUN: tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90a tensor-copies=1 tensor-copies-a=1" | FileCheck %s
// RUN: tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90a tensor-copies=1" | FileCheck %s --check-prefix=NOCOPIES
// RUN: tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90a" | FileCheck %s --check-prefix=NOCOPIES
// RUN: tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90a tensor-copies=1 tensor-copies-a=1 tensor-copy-issue=lanes tensor-copy-release=mbarrier" | FileCheck %s --check-prefix=RELEASED
// RUN: tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90a tensor-copies=1 tensor-copies-a=1 producer-warp=on" | FileCheck %s --check-prefix=PRODUCER
// RUN: not tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90a tensor-copies=1 producer-warp=1" 2>&1 | FileCheck %s --check-prefix=BADPRODUCER
// RUN: not tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90a tensor-copies=1 tensor-copy-issue=warp" 2>&1 | FileCheck %s --check-prefix=BADISSUE
// RUN: not tessera-opt %s --convert-tile-to-gpu="target=nvptx chip=sm_90a tensor-copies=1 tensor-copy-release=none" 2>&1 | FileCheck %s --check-prefix=BADRELEASE

// A masked 64 x 64 block of a matmul on the warpgroup units, its operands read as windows of
// row-major matrices: a[(row0 + i) * k + kk + j] where row0 + i < m and kk + j < k, zeros
// elsewhere (A), b[(kk + i) * n + j] where kk + i < k and j < n (B, its window from column 0).
// With tensor copies each load gets a tensor map parameter after the arguments (spec in
// tessera.tensor_maps: argument indices of the buffer, the bounds and the row stride; boxes of
// 8 rows of A, 32 of B; A in rows of 64 bytes, B of 128). Before the loop one thread initializes
// a barrier per stage (4) the copies signal (1 arrival), and fences. The copies of an iteration
// are the first thread's, behind one branch: it expects the stage's bytes (64 x 32 + 32 x 64
// halves = 8192) and copies the 8 boxes of A (their staged places in 512-byte steps: placeA's
// rows of 64 bytes, groups of 8 rows 16 apart for h = 1) and the one of B, at (column, row)
// coordinates. In the loop every thread waits for its iteration's stage with the parity of its
// use, then a barrier of the program (no proxy fence: the copies write as the units read) keeps
// the copies it then issues off the stages the units may still read. No cp.async remains.
// CHECK-LABEL: gpu.func @copies
// CHECK-SAME: %{{.*}}: i32, %[[MAPA:.*]]: !llvm.ptr, %[[MAPB:.*]]: !llvm.ptr) kernel
// CHECK-SAME: tessera.tensor_maps = [{box = array<i64: 8, 32>, buffer = 0 : i32, cols = array<i64: 5, 0>, param = 6 : i32, rank = 2 : i32, rows = array<i64: 3, 0>, stride = array<i64: 5, 0>, swizzle = 64 : i32}, {box = array<i64: 32, 64>, buffer = 1 : i32, cols = array<i64: 4, 0>, param = 7 : i32, rank = 2 : i32, rows = array<i64: 5, 0>, stride = array<i64: 4, 0>, swizzle = 128 : i32}]
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK-COUNT-4: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK: gpu.barrier
// CHECK: arith.cmpi ult, %{{.*}}, %c32_i32
// CHECK-NOT: nvvm.mbarrier.try_wait
// CHECK: arith.cmpi eq, %{{.*}}, %c0_i32
// CHECK-NEXT: scf.if
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c8192_i32 : !llvm.ptr<3>, i32
// CHECK-NOT: arith.cmpi eq
// CHECK-COUNT-8: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAPA]], %{{.*}}, box[%{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK-NOT: arith.cmpi eq
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAPB]], %{{.*}}, box[%{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NEXT: gpu.barrier
// CHECK: arith.cmpi ult, %{{.*}}, %c32_i32
// CHECK-NOT: nvvm.mbarrier.try_wait
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK-NOT: arith.cmpi eq
// CHECK-COUNT-9: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: nvvm.mbarrier.arrive %
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NOT: nvvm.mbarrier.arrive %
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK-NOT: nvvm.cp.async.wait.group

// With tensor-copy-issue=lanes and tensor-copy-release=mbarrier (the eleventh session's scheme,
// measured slower: docs/bench.md): two barriers per stage, the copies' (1 arrival) and one each
// subgroup's first lane arrives on once the units have read the stage (4 arrivals); lane b of
// the first subgroup copies box b behind a branch of its own; in the loop no barrier of the
// program: the first subgroup, from the fifth iteration copied on, first waits for the stage's
// readers, and after the units' batch is waited for (one left in flight) each subgroup's first
// lane releases the previous iteration's stage.
// RELEASED-LABEL: gpu.func @copies
// RELEASED-SAME: %{{.*}}: i32, %[[MAPA:.*]]: !llvm.ptr, %[[MAPB:.*]]: !llvm.ptr) kernel
// RELEASED-SAME: tessera.tensor_maps = [{box = array<i64: 8, 32>, buffer = 0 : i32, cols = array<i64: 5, 0>, param = 6 : i32, rank = 2 : i32, rows = array<i64: 3, 0>, stride = array<i64: 5, 0>, swizzle = 64 : i32}, {box = array<i64: 32, 64>, buffer = 1 : i32, cols = array<i64: 4, 0>, param = 7 : i32, rank = 2 : i32, rows = array<i64: 5, 0>, stride = array<i64: 4, 0>, swizzle = 128 : i32}]
// RELEASED-NOT: nvvm.cp.async.shared.global
// RELEASED-COUNT-4: nvvm.mbarrier.init %{{.*}}, %c1_i32
// RELEASED-COUNT-4: nvvm.mbarrier.init %{{.*}}, %c4_i32
// RELEASED-NEXT: nvvm.fence.mbarrier.init
// RELEASED: gpu.barrier
// RELEASED: arith.cmpi ult, %{{.*}}, %c32_i32
// RELEASED-NOT: nvvm.mbarrier.try_wait
// RELEASED: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c8192_i32 : !llvm.ptr<3>, i32
// RELEASED-COUNT-8: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAPA]], %{{.*}}, box[%{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// RELEASED: arith.cmpi eq, %{{.*}}, %c8_i32
// RELEASED-NEXT: scf.if
// RELEASED: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAPB]], %{{.*}}, box[%{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// RELEASED: scf.for
// RELEASED: nvvm.mbarrier.try_wait.parity
// RELEASED-NOT: nvvm.fence.proxy
// RELEASED-NOT: gpu.barrier
// RELEASED: arith.cmpi ult, %{{.*}}, %c32_i32
// RELEASED: arith.cmpi uge, %{{.*}}, %c4_i32
// RELEASED: nvvm.mbarrier.try_wait.parity
// RELEASED: nvvm.mbarrier.arrive.expect_tx
// RELEASED-NOT: gpu.barrier
// RELEASED: nvvm.wgmma.mma_async
// RELEASED-NOT: gpu.barrier
// RELEASED: nvvm.wgmma.wait.group.sync.aligned 1
// RELEASED: arith.cmpi uge, %{{.*}}, %c1_i32
// RELEASED: scf.if
// RELEASED: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// RELEASED: scf.yield
// RELEASED-NEXT: }
// RELEASED-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// RELEASED-NOT: nvvm.cp.async.shared.global
// RELEASED-NOT: nvvm.cp.async.wait.group

// With producer-warp a warpgroup more (256 threads) issues the copies: the readers' release
// barriers (4 arrivals), then, past the setup, threads 128 and up give registers back and their
// first subgroup runs the loop's iterations (from the fifth on waiting for the stage's release;
// the first thread expecting the bytes and copying 9 boxes) and exits; the others take 240
// registers each and run the loop without copies or a barrier of the program, each iteration
// releasing the previous one's stage once the batch left in flight is done.
// PRODUCER-LABEL: gpu.func @copies
// PRODUCER-SAME: known_block_size = array<i32: 256, 1, 1>
// PRODUCER-SAME: tessera.producer_threads = 128
// PRODUCER-COUNT-4: nvvm.mbarrier.init %{{.*}}, %c1_i32
// PRODUCER-COUNT-4: nvvm.mbarrier.init %{{.*}}, %c4_i32
// PRODUCER: nvvm.setmaxregister decrease 40
// PRODUCER: arith.cmpi ult, %{{.*}}, %c160_i32
// PRODUCER: scf.for
// PRODUCER: arith.cmpi uge, %{{.*}}, %c4_i32
// PRODUCER: nvvm.mbarrier.try_wait.parity
// PRODUCER: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c8192_i32
// PRODUCER-COUNT-9: nvvm.cp.async.bulk.tensor.shared.cluster.global
// PRODUCER: nvvm.exit
// PRODUCER-NEXT: } else {
// PRODUCER-NEXT: nvvm.setmaxregister increase 240
// PRODUCER: scf.for
// PRODUCER-NOT: gpu.barrier
// PRODUCER-NOT: nvvm.cp.async.bulk.tensor
// PRODUCER: nvvm.mbarrier.try_wait.parity
// PRODUCER: nvvm.wgmma.wait.group.sync.aligned 1
// PRODUCER: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// PRODUCER: scf.yield
// PRODUCER-NEXT: }
// PRODUCER-NEXT: nvvm.wgmma.wait.group.sync.aligned 0

// BADPRODUCER: producer-warp='1': use auto, on or off
// BADISSUE: tensor-copy-issue='warp': use lanes or one
// BADRELEASE: tensor-copy-release='none': use mbarrier or barrier

// Without the options, or with tensor-copies alone (this dot copies A from its buffer, which
// tensor-copies-a alone lets through: the matmul's default block is no faster that way): cp.async
// copies, no tensor maps.

// NOCOPIES-LABEL: gpu.func @copies
// NOCOPIES-NOT: tessera.tensor_maps
// NOCOPIES-NOT: nvvm.cp.async.bulk.tensor
// NOCOPIES: nvvm.cp.async.shared.global
func.func @copies(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>, %m: i32, %n: i32, %k: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pid = tile.program_id 0 : i32
  %c64 = arith.constant 64 : i32
  %row0 = arith.muli %pid, %c64 : i32
  %r = tile.arange 0, 64 : tensor<64xi32>
  %rs = tile.splat %row0 : tensor<64xi32>
  %r1 = arith.addi %rs, %r : tensor<64xi32>
  %rows = tile.expand_dims %r1, 1 : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r, 0 : tensor<64xi32> -> tensor<1x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %acc = scf.for %kk = %c0 to %k step %c32 iter_args(%s = %zero) -> (tensor<64x64xf32>) : i32 {
    %q = tile.arange 0, 32 : tensor<32xi32>
    %ks = tile.splat %kk : tensor<32xi32>
    %kq = arith.addi %ks, %q : tensor<32xi32>
    %kcol = tile.expand_dims %kq, 0 : tensor<32xi32> -> tensor<1x32xi32>
    %krow = tile.expand_dims %kq, 1 : tensor<32xi32> -> tensor<32x1xi32>
    %sk = tile.splat %k : tensor<64x1xi32>
    %ar = arith.muli %rows, %sk : tensor<64x1xi32>
    %arb = tile.broadcast %ar : tensor<64x1xi32> -> tensor<64x32xi32>
    %acb = tile.broadcast %kcol : tensor<1x32xi32> -> tensor<64x32xi32>
    %ao = arith.addi %arb, %acb : tensor<64x32xi32>
    %sm = tile.splat %m : tensor<64x1xi32>
    %am1 = arith.cmpi slt, %rows, %sm : tensor<64x1xi32>
    %sk2 = tile.splat %k : tensor<1x32xi32>
    %am2 = arith.cmpi slt, %kcol, %sk2 : tensor<1x32xi32>
    %am1b = tile.broadcast %am1 : tensor<64x1xi1> -> tensor<64x32xi1>
    %am2b = tile.broadcast %am2 : tensor<1x32xi1> -> tensor<64x32xi1>
    %am = arith.andi %am1b, %am2b : tensor<64x32xi1>
    %zh = arith.constant 0.0 : f16
    %za = tile.splat %zh : tensor<64x32xf16>
    %x = tile.load %a[%ao] mask %am other %za : (!tile.ptr<f16>, tensor<64x32xi32>, tensor<64x32xi1>, tensor<64x32xf16>) -> tensor<64x32xf16>
    %sn = tile.splat %n : tensor<32x1xi32>
    %br = arith.muli %sn, %krow : tensor<32x1xi32>
    %brb = tile.broadcast %br : tensor<32x1xi32> -> tensor<32x64xi32>
    %bcb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<32x64xi32>
    %bo = arith.addi %bcb, %brb : tensor<32x64xi32>
    %sk3 = tile.splat %k : tensor<32x1xi32>
    %bm1 = arith.cmpi slt, %krow, %sk3 : tensor<32x1xi32>
    %sn2 = tile.splat %n : tensor<1x64xi32>
    %bm2 = arith.cmpi slt, %cols, %sn2 : tensor<1x64xi32>
    %bm1b = tile.broadcast %bm1 : tensor<32x1xi1> -> tensor<32x64xi1>
    %bm2b = tile.broadcast %bm2 : tensor<1x64xi1> -> tensor<32x64xi1>
    %bm = arith.andi %bm2b, %bm1b : tensor<32x64xi1>
    %y = tile.load %b[%bo] mask %bm : (!tile.ptr<f16>, tensor<32x64xi32>, tensor<32x64xi1>) -> tensor<32x64xf16>
    %d = tile.dot %x, %y, %s : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %s64c = arith.constant dense<64> : tensor<64x1xi32>
  %cr = arith.muli %rows, %s64c : tensor<64x1xi32>
  %crb = tile.broadcast %cr : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %co = arith.addi %crb, %ccb : tensor<64x64xi32>
  tile.store %c[%co], %acc : (!tile.ptr<f32>, tensor<64x64xi32>, tensor<64x64xf32>) -> ()
  return
}

