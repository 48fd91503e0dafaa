// Everything the shared TileToGPU lowering needs to know about a target, behind one interface.
// Implementations live in backends/<target>/; this header pulls in no target dialect.
#pragma once

#include "tessera/runtime/Package.hpp"

#include "Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"

#include <memory>
#include <optional>
#include <utility>

namespace mlir::gpu {
class GPUModuleOp;
class GPUFuncOp;
} // namespace mlir::gpu

namespace tessera::backend {

/// On a gpu.subgroup_mma_load_matrix: the f16 matrix it loads is a bf16 one (its bits staged as
/// f16; the gpu dialect's matrices have no bf16). TargetInfo::coopMatrixShape.
inline constexpr const char *kBF16MatrixAttr = "tessera.bf16_matrix";

class TargetInfo {
public:
  virtual ~TargetInfo();

  /// Threads of one subgroup (warp): 32 on NVIDIA, the device's size on Vulkan.
  virtual uint32_t subgroupSize() const = 0;

  /// Type of a kernel parameter for argument `spec` with element type `elem`, or a null Type
  /// when the argument does not travel as a parameter (Vulkan scalars: push constants).
  virtual mlir::Type paramType(const ArgSpec &spec, mlir::Type elem) const = 0;
  /// For an argument without a parameter: its value, read from wherever the ABI puts it.
  /// `blockBytes` is the size of the push-constant block of the kernel.
  virtual mlir::Value abiArgument(mlir::OpBuilder &b, mlir::Location loc, const ArgSpec &spec,
                                  mlir::Type type, uint32_t blockBytes) const = 0;
  /// Marks parameter `index` of `func` with what the target's ABI needs (e.g. its binding).
  virtual void annotateParam(mlir::gpu::GPUFuncOp func, unsigned index, const ArgSpec &spec) const = 0;

  /// One element of a buffer: `buffer[index]`, `index` an i32.
  virtual mlir::Value loadElement(mlir::OpBuilder &b, mlir::Location loc, mlir::Value buffer,
                                  mlir::Value index, mlir::Type elem) const = 0;
  virtual void storeElement(mlir::OpBuilder &b, mlir::Location loc, mlir::Value buffer,
                            mlir::Value index, mlir::Value value) const = 0;
  /// A run of contiguous elements buffer[indices[0]], buffer[indices[0] + 1], ... (the caller has
  /// checked that indices[k] = indices[0] + k and that indices[0] is a multiple of the run's
  /// length, a power of two). The default is one access per element, unguarded (a driver may merge
  /// them); a target with wide accesses makes it one access of the whole run (16 bytes for 4 f32).
  virtual llvm::SmallVector<mlir::Value> loadRun(mlir::OpBuilder &b, mlir::Location loc, mlir::Value buffer,
                                                 mlir::ValueRange indices, mlir::Type elem) const;
  virtual void storeRun(mlir::OpBuilder &b, mlir::Location loc, mlir::Value buffer, mlir::ValueRange indices,
                        mlir::ValueRange values) const;
  /// loadRun where `cond` (i1) holds and `otherwise` (a value per element) where it does not,
  /// without a branch: a predicated access (NVPTX), or one that reads the buffer's first 16 bytes
  /// where `cond` does not hold and then selects `otherwise` (SPIR-V, which has no predication),
  /// whose result needs no merge of two paths (each element of a merged run takes a register of
  /// its own on NVIDIA; a load behind a branch waited for the branch before it on NVIDIA's Vulkan
  /// compiler). Empty, creating nothing,
  /// where the target has no such access for this run (hasPredicatedRuns; the caller branches).
  virtual bool hasPredicatedRuns(mlir::Type, int64_t) const { return false; }
  virtual llvm::SmallVector<mlir::Value> loadRunIf(mlir::OpBuilder &, mlir::Location, mlir::Value, mlir::ValueRange,
                                                   mlir::Type, mlir::Value, mlir::ValueRange) const {
    return {};
  }
  /// storeRun where `cond` holds, without a branch; false, creating nothing, where the target
  /// has no such access (hasPredicatedRuns).
  virtual bool storeRunIf(mlir::OpBuilder &, mlir::Location, mlir::Value, mlir::ValueRange, mlir::ValueRange,
                          mlir::Value) const {
    return false;
  }

  /// A shared-memory (workgroup) array of `count` elements of `elem` for kernel `func`, usable
  /// at `b`'s insertion point, and access to it with an i32 index.
  /// `align` (bytes, a power of two from 16): the array's alignment where the target honours it.
  virtual mlir::Value allocShared(mlir::OpBuilder &b, mlir::Location loc, mlir::gpu::GPUFuncOp func,
                                  mlir::Type elem, int64_t count, int64_t align = 16) const = 0;
  virtual mlir::Value loadShared(mlir::OpBuilder &b, mlir::Location loc, mlir::Value buffer,
                                 mlir::Value index, mlir::Type elem) const = 0;
  virtual void storeShared(mlir::OpBuilder &b, mlir::Location loc, mlir::Value buffer,
                           mlir::Value index, mlir::Value value) const = 0;
  /// `count` consecutive elements from `index` on (the caller has checked that `index` is a
  /// multiple of `count`, a power of two, and the array aligned to count elements): one vector
  /// access where the target has them (NVPTX: ld.shared.v4.f32 for 4 f32), else one per element.
  virtual llvm::SmallVector<mlir::Value> loadSharedRun(mlir::OpBuilder &b, mlir::Location loc, mlir::Value buffer,
                                                       mlir::Value index, mlir::Type elem, int64_t count) const;
  /// Does a wide access of shared memory need an array of vectors (SPIR-V: workgroup arrays are
  /// typed; loadSharedRun reads one element at a time), where the lowering can stage a tile so?
  virtual bool wantsVectorArrays() const { return false; }
  /// Writes `value` into component `component` of vector `index` of an array of vectors (where
  /// wantsVectorArrays: a tile staged for wide reads but written a value at a time).
  virtual void storeSharedComponent(mlir::OpBuilder &b, mlir::Location loc, mlir::Value buffer, mlir::Value index,
                                    mlir::Value component, mlir::Value value) const;

  /// Shared memory (bytes) that a program already using `sharedBytes`, of `threads` threads, may
  /// add to store a matrix-unit accumulator's tile through it as 16-byte runs (StoreLowering),
  /// without fewer of its programs fitting on a multiprocessor; 0 where the target stores such
  /// tiles as they lie.
  virtual int64_t storeStagingBytes(int64_t /*sharedBytes*/, int64_t /*threads*/) const { return 0; }
  /// The shared memory a kernel may reach with an FMA-path dot's operands staged in two halves
  /// (option fma-halves); 0: never in halves. And whether that is the default (fma-halves=auto):
  /// where measured faster.
  virtual int64_t fmaHalvesLimit() const { return 0; }
  virtual bool prefersFmaHalves() const { return false; }
  /// The k values an FMA-path dot's inner loop takes a step unless fma-unroll names them: 8 by
  /// default (each step one block of multiply-adds for the target's compiler).
  virtual int64_t fmaUnroll() const { return 8; }
  /// The shared memory a kernel may reach with an FMA-path dot's operands copied in stages
  /// (option fma-async-copies).
  virtual int64_t fmaStagingLimit() const { return 0; }

  /// Asynchronous copies from a buffer into shared memory (NVIDIA's cp.async, sm_80+), which
  /// let a dot's operands for later loop iterations arrive while this one computes. A copy
  /// moves `bytes` (16) bytes from buffer[index] (elements of `elem`) to shared[sharedIndex],
  /// both aligned to `bytes`. asyncCommit closes this thread's group of copies issued since the
  /// last one; asyncWait(n) waits until at most n of its groups are in flight. Other threads
  /// see the data after a barrier that follows the wait. With `sourceBytes` (an i32), only that
  /// many bytes are read (0 or `bytes`) and the rest of the copy is zeros.
  virtual bool hasAsyncCopy() const { return false; }
  virtual void asyncCopy(mlir::OpBuilder &b, mlir::Location loc, mlir::Value shared, mlir::Value sharedIndex,
                         mlir::Value buffer, mlir::Value index, mlir::Type elem, int64_t bytes,
                         mlir::Value sourceBytes = {}) const;
  virtual void asyncCommit(mlir::OpBuilder &b, mlir::Location loc) const;
  virtual void asyncWait(mlir::OpBuilder &b, mlir::Location loc, int64_t pending) const;

  /// Bulk tensor copies (Hopper's TMA, sm_90+): one thread copies a box of a 2-D matrix
  /// described by a tensor map (a kernel parameter of tensorMapType, built by the runtime) into
  /// shared memory; the box's elements outside the matrix arrive as zeros. A copy signals its
  /// bytes to a barrier in shared memory (an i64 of allocShared's each): initBarrier (one thread;
  /// then fenceBarrierInit and a barrier of the program; a phase completes after `arrivals`
  /// arrivals), expectBytes (one thread, before the copies: one arrival, and the phase also waits
  /// for that many bytes to land), arriveBarrier (one arrival, releasing this thread's reads
  /// before it, the units' included once waited for), waitBarrier (every thread that reads the
  /// data: until the phase of that parity has completed).
  virtual bool hasTensorCopies() const { return false; }
  virtual mlir::Type tensorMapType(mlir::MLIRContext *ctx) const;
  virtual void initBarrier(mlir::OpBuilder &b, mlir::Location loc, mlir::Value barriers, mlir::Value index,
                           int64_t arrivals = 1) const;
  virtual void arriveBarrier(mlir::OpBuilder &b, mlir::Location loc, mlir::Value barriers, mlir::Value index) const;
  virtual void fenceBarrierInit(mlir::OpBuilder &b, mlir::Location loc) const;
  virtual void expectBytes(mlir::OpBuilder &b, mlir::Location loc, mlir::Value barriers, mlir::Value index,
                           int64_t bytes) const;
  /// Copies the box at `coords` (i32 element coordinates, innermost first: column, row, and a
  /// stacked matrix's slice; possibly outside the matrix) of the map into shared memory
  /// `byteOffset` (i32) bytes into `shared`, aligned to the box's swizzle pattern (1024 bytes
  /// for 128-byte rows).
  virtual void tensorCopy(mlir::OpBuilder &b, mlir::Location loc, mlir::Value shared, mlir::Value byteOffset,
                          mlir::Value map, mlir::ValueRange coords, mlir::Value barriers, mlir::Value index) const;
  virtual void waitBarrier(mlir::OpBuilder &b, mlir::Location loc, mlir::Value barriers, mlir::Value index,
                           mlir::Value parity) const;
  /// A barrier of `threads` threads of the program (a multiple of 32), numbered `id` (i32, 1 to
  /// 15; 0 is the program's): some threads wait at it (namedBarrierWait), the others pass it
  /// (namedBarrierArrive), and it completes once `threads` have come either way.
  virtual void namedBarrierWait(mlir::OpBuilder &b, mlir::Location loc, mlir::Value id, int64_t threads) const;
  virtual void namedBarrierArrive(mlir::OpBuilder &b, mlir::Location loc, mlir::Value id, int64_t threads) const;
  /// Ends the executing thread (a producer warpgroup done with its copies); barriers of the
  /// program then wait for the threads left.
  virtual void exitThread(mlir::OpBuilder &b, mlir::Location loc) const;
  /// Sets the registers each thread of the executing warpgroup may hold (all its threads execute
  /// it): fewer returns registers to the multiprocessor's pool, more waits for them there.
  virtual void setRegisters(mlir::OpBuilder &b, mlir::Location loc, int64_t count, bool more) const;

  /// After the lowering of kernel `func`, whose allocShared arrays take `requested` bytes: the
  /// target may rearrange them (NVPTX: past CUDA's 48 KiB of static shared memory, into one
  /// dynamic array). Returns the bytes the kernel's shared memory takes at launch.
  virtual int64_t finalizeShared(mlir::gpu::GPUFuncOp func, int64_t requested) const;

  /// Matrix units (tensor cores) for tile.dot in fast mode. A target that has them for operand
  /// type `in` and accumulator `acc` gives the shape of one step: a 32-lane subgroup multiplies
  /// an m x k block of A by a k x n block of B into an m x n accumulator, each lane holding
  /// `accPerLane` of its elements. Only m16n8 with 4 per lane is used (mmaAccumulatorLayout).
  struct MmaShape {
    int64_t m = 0, n = 0, k = 0, accPerLane = 0;
    /// Shared memory a program may use (CUDA's opt-in limit of the chip: 227 KiB on sm_90):
    /// the staged operands of a dot on the units must fit, else the FMA path runs.
    int64_t sharedLimit = 0;
  };
  virtual std::optional<MmaShape> mmaShape(mlir::Type in, mlir::Type acc) const;
  /// This lane's fragment of an A block from shared memory holding A row-major (rows of `lda`
  /// elements of `in`, 16-byte aligned): the block's rows 0..7 start at element aBase, its rows
  /// 8..15 `rowStep` rows further (8 for a plain 16-row block).
  virtual llvm::SmallVector<mlir::Value> mmaLoadA(mlir::OpBuilder &b, mlir::Location loc, mlir::Value shared,
                                                  mlir::Value aBase, int64_t lda, int64_t rowStep, mlir::Value lane,
                                                  mlir::Type in) const;
  /// This lane's fragments of `groups` (1 or 2) neighbouring k x n blocks of B from shared memory
  /// holding B row-major (rows of `ldb` elements, 16-byte aligned; with `transposed`, B^T
  /// row-major); bBase indexes B[k0][n0] (B^T[n0][k0]), the second block starts `groupStep`
  /// columns (rows of B^T) further. The fragments follow each other in the result.
  virtual llvm::SmallVector<mlir::Value> mmaLoadB(mlir::OpBuilder &b, mlir::Location loc, mlir::Value shared,
                                                  mlir::Value bBase, int64_t ldb, int64_t groups, int64_t groupStep,
                                                  bool transposed, mlir::Value lane, mlir::Type in) const;
  /// One 32-bit word of an A fragment from two values of `in` (lo in the low half), for an A
  /// that is already in registers in the accumulator layout.
  virtual bool hasMmaPack() const { return false; }
  virtual mlir::Value mmaPack(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lo, mlir::Value hi, mlir::Type in) const;
  /// acc + A x B for one step from the fragments; `acc` and the result are the lane's C fragment
  /// (element i at row g + 8 (i / 2), column 2t + i % 2 of the block, lane = 4g + t).
  virtual llvm::SmallVector<mlir::Value> mma(mlir::OpBuilder &b, mlir::Location loc, mlir::Type in,
                                             mlir::ValueRange a, mlir::ValueRange bFrag, mlir::ValueRange acc) const;

  /// Warpgroup matrix units (Hopper's wgmma, sm_90a) for tile.dot in fast mode: a warpgroup of 4
  /// subgroups multiplies a 64 x k block of A by a k x n block of B (n a multiple of 8 up to
  /// `maxN`), both read from shared memory through descriptors, into a 64 x n accumulator in
  /// registers: subgroup w of the group holds rows 16w + g and 16w + 8 + g of it as mma.sync's C
  /// fragments of its n / 8 column groups (lane 4g + t, element 4j + i at row g + 8 (i / 2),
  /// column 8j + 2t + i % 2). The operands lie in shared memory in rows of `swizzle` bytes (32,
  /// 64 or 128) whose 16-byte chunks are permuted within each group of 8 rows (swizzledIndex).
  struct WgmmaShape {
    int64_t k = 0, maxN = 0;
    int64_t sharedLimit = 0; // as MmaShape's
    /// Shared memory of one multiprocessor, which the programs on it share, each with
    /// `sharedReserved` bytes of its own on top of what it asks for.
    int64_t sharedPerProcessor = 0, sharedReserved = 0;
    /// 32-bit registers of one multiprocessor, which its programs' threads share.
    int64_t registersPerProcessor = 0;
  };
  virtual std::optional<WgmmaShape> wgmmaShape(mlir::Type in, mlir::Type acc) const;
  /// The descriptor of an operand in shared memory: the matrix starts `byteOffset` (i32) bytes
  /// into `shared`, which is aligned to 1024 bytes; groups of 8 rows are `strideBytes` apart and,
  /// for an operand whose rows run along M or N (B as it lies in a row-major K x N tile),
  /// groups of swizzle / 2 columns `leadingBytes` apart; rows of `swizzle` bytes.
  virtual mlir::Value wgmmaDescriptor(mlir::OpBuilder &b, mlir::Location loc, mlir::Value shared, mlir::Value byteOffset,
                                      int64_t leadingBytes, int64_t strideBytes, int64_t swizzle) const;
  /// Orders this thread's earlier writes of shared memory (st.shared, cp.async once waited for)
  /// before the matrix units' reads of it; a barrier after it extends that to every thread.
  virtual void wgmmaSharedFence(mlir::OpBuilder &b, mlir::Location loc) const;
  /// acc + A x B over one k step for an n-column block: `acc` and the result are the thread's
  /// n / 2 values in the order above. `bRowsAlongN`: B lies K x N (rows along N), else as B^T.
  /// Issued asynchronously: wgmmaBegin before a batch (orders the registers' earlier accesses),
  /// wgmmaCommit after it closes the batch, wgmmaWait(n) waits until at most n batches of this
  /// warpgroup are in flight; until then the batch's accumulators may only feed later wgmmas.
  virtual llvm::SmallVector<mlir::Value> wgmma(mlir::OpBuilder &b, mlir::Location loc, mlir::Type in, mlir::Value descA,
                                               mlir::Value descB, int64_t n, bool bRowsAlongN, mlir::ValueRange acc) const;
  /// The same with A from registers: `aWords` are the thread's 4 words of A's 64 x 16 block (as
  /// mmaPack makes them), laid out over the warpgroup like mma.sync's A fragments.
  virtual llvm::SmallVector<mlir::Value> wgmmaRegisterA(mlir::OpBuilder &b, mlir::Location loc, mlir::Type in,
                                                        mlir::ValueRange aWords, mlir::Value descB, int64_t n,
                                                        bool bRowsAlongN, mlir::ValueRange acc) const;
  virtual void wgmmaBegin(mlir::OpBuilder &b, mlir::Location loc) const;
  virtual void wgmmaCommit(mlir::OpBuilder &b, mlir::Location loc) const;
  virtual void wgmmaWait(mlir::OpBuilder &b, mlir::Location loc, int64_t pending) const;

  /// Cooperative matrices (Vulkan's VK_KHR_cooperative_matrix) for tile.dot in fast mode: one
  /// subgroup multiplies an m x k block of A by a k x n block of B into an m x n accumulator, all
  /// three spread over its lanes in a layout only the driver knows, so they come from and go to
  /// shared memory (gpu.subgroup_mma_load_matrix / compute / store_matrix, which the target's own
  /// conversion lowers). Null when the target has none for operand `in` and accumulator `acc`.
  /// (bf16 matrices go through the gpu ops as f16 ones, their staged bits f16's: each
  /// gpu.subgroup_mma_load_matrix of such a matrix carries kBF16MatrixAttr, and the target's
  /// lowering gives it its bf16 type.)
  struct CoopMatrixShape {
    int64_t m = 0, n = 0, k = 0;
    /// Shared memory the staged operands and accumulator may take, else the FMA path runs.
    int64_t sharedLimit = 0;
    /// The device keeps a 32-lane subgroup's m x n = 16 x 16 f32 accumulator as mma.sync's C
    /// fragments (lane 4g + t, element i at row g + 8 (i / 4), column 2t + i % 2 + 8 ((i / 2) % 2)):
    /// accumulators then stay in registers in mmaAccumulatorLayout and only A and B go through
    /// shared memory. It keeps a 16 x 16 f16 A matrix's elements in the same places (the
    /// runtime's self-test checks both), so an A in that layout may be built from registers
    /// (coop-a-lanes).
    bool mmaLanes = false;
  };
  virtual std::optional<CoopMatrixShape> coopMatrixShape(mlir::Type in, mlir::Type acc) const;

  /// One atomic on `buffer[index]` at device scope; gives the old value. `cmp` is set exactly
  /// for compare-and-swap.
  virtual mlir::Value atomic(mlir::OpBuilder &b, mlir::Location loc, tile::AtomicKind kind, tile::MemoryOrder order,
                             mlir::Value buffer, mlir::Value index, mlir::Value value, mlir::Value cmp) const = 0;

  /// Target attributes on the kernel module (SPIR-V target environment, ...).
  virtual void annotateModule(mlir::gpu::GPUModuleOp module) const = 0;
  /// Launch-shape attributes on a kernel: `threads` threads per program.
  virtual void annotateKernel(mlir::gpu::GPUFuncOp func, uint32_t threads) const = 0;
};

/// The TargetInfo for `target` (PTX or SPIR-V); the target must have passed validateTarget.
std::unique_ptr<TargetInfo> createTargetInfo(const TargetDesc &target);

} // namespace tessera::backend
