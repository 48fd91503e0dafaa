// Passes of the shared lowering, alphabetical.
#ifndef TESSERA_BACKENDS_COMMON_PASSES
#define TESSERA_BACKENDS_COMMON_PASSES

include "mlir/Pass/PassBase.td"

def CarryMmaMatrices : Pass<"carry-mma-matrices", "mlir::ModuleOp"> {
  let summary = "Carry cooperative-matrix accumulators across loops instead of their lanes' scalars";
  let description = [{
    A fast dot on cooperative matrices in mma.sync's lanes (`--coopmat=lanes`) builds each
    16 x 16 accumulator block from the thread's scalars and takes them back out after its
    products. In an `scf.for` that only carries such a block from one dot to the next (each
    scalar argument used by its `gpu.subgroup_mma_insert_thread_local` alone, and yielding the
    element extracted at the same index of one matrix), the loop carries the matrix instead:
    built once before the loop, its elements extracted once after it.
  }];
  let options = [
    Option<"subgroupSize", "subgroup-size", "unsigned", /*default=*/"32",
           "lanes of a subgroup: a block of R x C elements has R * C / subgroup-size per lane">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect", "mlir::arith::ArithDialect"];
}

def ConvertTileToGPU : Pass<"convert-tile-to-gpu", "mlir::ModuleOp"> {
  let summary = "Lower tile kernels to per-thread gpu.func kernels for one target";
  let description = [{
    Every `func.func` marked `tile.kernel` becomes a `gpu.func` kernel in the module's
    `gpu.module @tessera_kernels`, running `tile.num_warps` x subgroup-size threads per program.
    Each tile is spread over the threads in a blocked layout (runs of up to four contiguous
    elements per thread), so a tile value of N elements becomes N / threads scalar values per
    thread:

      tile.arange s, e            => s + owner(tid) * vec + run offsets
      arith.<op> on tiles         => arith.<op> on each thread's elements
      tile.load p[o] mask m       => scf.if m[j] { load p[o[j]] } per element
      tile.store p[o], v mask m   => scf.if m[j] & owner { store } per element
      tile.program_id / num_programs => gpu.block_id / gpu.grid_dim

    How arguments, loads and stores look on the target (memref bindings and push constants
    for SPIR-V, `!llvm.ptr<1>` parameters for NVPTX) comes from the target's TargetInfo.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"spirv\"",
           "target to lower for: nvptx or spirv">,
    Option<"subgroupSize", "subgroup-size", "unsigned", /*default=*/"32",
           "subgroup size the code is specialized for (SPIR-V; NVPTX is always 32)">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"", "NVPTX chip">,
    Option<"coopMatrix", "coop-matrix", "bool", /*default=*/"false",
           "SPIR-V: fast-mode dot on cooperative matrices (chip vulkan1.3+coopmat)">,
    Option<"mmaLanes", "mma-lanes", "bool", /*default=*/"false",
           "SPIR-V with coop-matrix: accumulators in registers as mma.sync's fragments (chip ...+mma-lanes)">,
    Option<"coopBF16", "coop-bf16", "bool", /*default=*/"false",
           "SPIR-V with coop-matrix: dot on bf16 on cooperative matrices too (chip vulkan1.3+coopmat+bf16)">,
    Option<"workgroupMatrices", "workgroup-matrices", "bool", /*default=*/"false",
           "SPIR-V with coop-matrix: block-matmul loops and their epilogues become tile.workgroup_matmul "
           "(workgroup-scope cooperative matrices, VK_NV_cooperative_matrix2; chip ...+wgmat)">,
    Option<"tensorCopies", "tensor-copies", "bool", /*default=*/"false",
           "NVPTX sm_90+: warpgroup dots read their operands through bulk tensor copies (TMA) with "
           "tensor maps the runtime passes after the arguments (attribute tessera.tensor_maps), "
           "for dots whose A is not copied from its buffer (attention's)">,
    Option<"tensorCopiesA", "tensor-copies-a", "bool", /*default=*/"false",
           "with tensor-copies, also dots whose A is copied from its buffer (A in boxes of 8 rows: "
           "run 32 measured the matmul no faster, docs/bench.md)">,
    Option<"tensorCopyIssue", "tensor-copy-issue", "std::string", /*default=*/"\"one\"",
           "how an iteration's boxes leave: one (all from the first thread, behind one branch) or "
           "lanes (box b from lane b % 32 of the first subgroup, a branch each: runs 35/36 measured "
           "it slower, docs/bench.md)">,
    Option<"tensorCopyRelease", "tensor-copy-release", "std::string", /*default=*/"\"barrier\"",
           "where every operand staged in a loop comes by tensor copy, what keeps the copies off a "
           "stage the units may still read: barrier (one barrier of the program per iteration) or "
           "mbarrier (each subgroup releases the stage through a second mbarrier: measured slower)">,
    Option<"warpgroupPingpong", "warpgroup-pingpong", "bool", /*default=*/"false",
           "NVPTX sm_90a, programs of two warpgroups: in a loop with several warpgroup dots whose "
           "stages the readers release (tensor-copy-release=mbarrier), the warpgroups take turns "
           "issuing each dot (named barriers), so that one's other work overlaps the other's matrix "
           "instructions (measured slower, docs/bench.md)">,
    Option<"asyncCopyFence", "async-copy-fence", "bool", /*default=*/"true",
           "NVPTX sm_90a: each thread fences its landed cp.async copies for the warpgroup units' "
           "async proxy before the barrier that lets the units read them (a measurement switch: "
           "TESSERA_ASYNC_COPY_FENCE=0)">,
    Option<"copiesAfterMma", "copies-after-mma", "bool", /*default=*/"true",
           "NVPTX sm_90a, a pipelined warpgroup dot whose operands come by cp.async: each iteration "
           "issues the copies for the iteration ahead after committing its own matrix instructions, "
           "not before them (run 84: 128 x 128 x 64 +5%, 128 x 256 x 64 the same; "
           "TESSERA_COPIES_AFTER_MMA=0 turns it off, to measure)">,
    Option<"waitBeforeCopies", "wait-before-copies", "bool", /*default=*/"false",
           "NVPTX sm_90a, with copies-after-mma: where a warpgroup dot's batch stays in flight into "
           "the next iteration, the wait for the batch before it comes before the copies for the "
           "iteration ahead, not after them (TESSERA_WAIT_BEFORE_COPIES=1, to measure)">,
    Option<"storeStaging", "store-staging", "bool", /*default=*/"true",
           "NVPTX: a matrix-unit accumulator's tile stored into a matrix window with 16-byte runs "
           "proven whole goes through shared memory in bands of rows, each thread then storing "
           "16-byte runs (TESSERA_STORE_STAGING=0 turns it off, to measure)">,
    Option<"fmaLayout", "fma-layout", "bool", /*default=*/"true",
           "The accumulator of a dot on the FMA path splits its threads between rows and columns "
           "so that each k step loads the fewest values of A and B (fmaAccumulatorThreads; "
           "TESSERA_FMA_LAYOUT=0 keeps the plain split, to measure)">,
    Option<"fmaVectorA", "fma-vector-a", "bool", /*default=*/"true",
           "SPIR-V (typed workgroup arrays): a dot on the FMA path stages a transposed A in vectors "
           "of 4, each value written into its component, so that a k step reads a thread's rows "
           "4 at a time (TESSERA_FMA_VECTOR_A=0 stages it value by value, to measure)">,
    Option<"coopHoistA", "coop-hoist-a", "bool", /*default=*/"true",
           "A dot on cooperative matrices in mma.sync's lanes whose A does not change in the loop "
           "around it loads A's matrices once before the loop and keeps them in registers, its "
           "array then free for the loop's staging (TESSERA_COOP_HOIST_A=0 reads them from shared "
           "memory each iteration, to measure)">,
    Option<"coopALanes", "coop-a-lanes", "bool", /*default=*/"false",
           "A dot on cooperative matrices in mma.sync's lanes whose A is in registers in the "
           "accumulator layout (attention's probabilities) builds A's matrices from the lanes' "
           "values instead of staging A (TESSERA_COOP_A_LANES=1; off until measured)">,
    Option<"fmaHalves", "fma-halves", "std::string", /*default=*/"\"auto\"",
           "A dot on the FMA path in a loop stages the operands that change in it in two halves, "
           "iteration t writing half t % 2, with one barrier an iteration instead of two, where both "
           "halves fit the target's limit for them (TargetInfo::fmaHalvesLimit): on, off, or auto "
           "(the default): on targets where that measured faster (NVPTX; TESSERA_FMA_HALVES=1|0 "
           "for on|off)">,
    Option<"fmaAsyncCopies", "fma-async-copies", "std::string", /*default=*/"\"auto\"",
           "NVPTX sm_80+: an f32 dot on the FMA path in a loop takes the operands it loads from its "
           "buffers by cp.async copies in stages (A row-major, B as it comes), as the matrix units' "
           "dots do: on, off, or auto (the default): where a thread holds 128 accumulators or more "
           "or the program has 4 subgroups or fewer, where that measured faster "
           "(TESSERA_FMA_ASYNC_COPIES=1|0 for on|off)">,
    Option<"fmaUnroll", "fma-unroll", "int64_t", /*default=*/"0",
           "A dot on the FMA path walks k in steps of this many values (a power of two, 1 to 64; "
           "capped at the dot's K), each step's loads and multiply-adds in one block for the "
           "target's compiler; 0 (the default): the target's choice (TargetInfo::fmaUnroll: 32 on "
           "NVPTX, the whole K of the usual blocks, run 97; on SPIR-V 16 for subgroups of 32 or "
           "more, 8 for narrower, where llvmpipe took far longer to make pipelines of larger "
           "blocks; TESSERA_FMA_UNROLL=N)">,
    Option<"stagingBarrier", "staging-barrier", "bool", /*default=*/"false",
           "SPIR-V, cooperative matrices in mma.sync's lanes: a dot whose operands are staged in two "
           "halves (one barrier an iteration) also meets the program at a barrier before writing "
           "them, as a dot staged once does (a measurement switch: TESSERA_STAGING_BARRIER=1)">,
    Option<"producerWarp", "producer-warp", "std::string", /*default=*/"\"auto\"",
           "NVPTX sm_90a, with tensor-copies: a kernel's one loop whose warpgroup dots take every "
           "operand they copy by tensor copy gets a warpgroup of its own that issues the copies, "
           "ahead of the others, which release each stage once read (the program has 128 threads "
           "more: tessera.producer_threads). on, off, or auto (the default): programs of two "
           "warpgroups or more whose loop copies no dot's A (attention's: measured 7-9% faster) and "
           "whose accumulators take 96 values a thread or more (with fewer a second program fits a "
           "multiprocessor without it; the matmul's tensor-copy form was no faster, docs/bench.md)">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect"];
}

#endif // TESSERA_BACKENDS_COMMON_PASSES
