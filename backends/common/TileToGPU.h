// The shared tile -> gpu lowering: type conversion, pattern sets and the pass.
#pragma once

#include "Layout.h"
#include "TargetInfo.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"

#include <map>
#include <set>
#include <optional>
#include <vector>

namespace tessera::backend {

/// Shared-memory bytes a lowered kernel uses (an i32 attribute on its gpu.func).
inline constexpr llvm::StringLiteral kSharedBytesAttr = "tessera.shared_bytes";
/// The tensor maps a lowered kernel takes after its arguments (an array attribute on its
/// gpu.func, one dictionary per map, in parameter order: `param`, `buffer`, `rows`, `cols`,
/// `stride` (each [argument index or -1, constant]), `box` ([rows, cols]) and `swizzle` (bytes);
/// the runtime's TensorMapSpec).
inline constexpr llvm::StringLiteral kTensorMapsAttr = "tessera.tensor_maps";
/// Threads a kernel has beyond its subgroups' (TileLowering::producerDots: a warpgroup that
/// issues a loop's bulk tensor copies); the launch's program size adds them.
inline constexpr llvm::StringLiteral kProducerThreadsAttr = "tessera.producer_threads";

/// Kernel arguments that a kernel's workgroup matmuls assume divisible (formWorkgroupMatmuls), as
/// an i64 array attribute on the kernel: pairs of argument index and divisor.
inline constexpr llvm::StringLiteral kWorkgroupDivisorsAttr = "tessera.workgroup_divisors";

/// Replaces block-matmul loops and their epilogues in kernel `f` (tile IR) with
/// tile.workgroup_matmul ops (WorkgroupMatmul.cpp) and notes the divisors that code assumes
/// (kWorkgroupDivisorsAttr). Gives how many it formed. bf16 matrices only with `bf16` (a chip with
/// +bf16); f16 ones always; none in programs of more than kMaxWorkgroupMatrixThreads `threads`.
inline constexpr int64_t kMaxWorkgroupMatrixThreads = 256;
int64_t formWorkgroupMatmuls(mlir::func::FuncOp f, bool bf16, int64_t threads);
/// The conversion of tile.workgroup_matmul to buffers (memrefs), and its legality.
void populateWorkgroupMatmulToGPUPatterns(mlir::TypeConverter &converter, mlir::RewritePatternSet &patterns,
                                          mlir::ConversionTarget &legal);

/// A tile.load that reads a window of a row-major matrix (tensorWindowOf): element (i, j) of the
/// tile is buffer[(r0 + i) * stride + c0 + j] where r0 + i < rows and c0 + j < cols (signed),
/// zero elsewhere (and where the mask asks r0 + i >= 0 or c0 + j >= 0, zero below 0 too), for
/// r0 = row0 + rowOffset, c0 = col0 + colOffset. row0 and col0 are the scalars the tile IR splats
/// (null: 0), the offsets the starts of its aranges; rows, cols and
/// stride are i32 scalars too (kernel arguments or constants where a launch can build a tensor
/// map). Without a column bound (`cols` null) the columns run from 0 to `colsExtent`, the tile's
/// width. With `slice`, the matrix is slice number `slice` of a stack of rows x stride elements
/// each (the offsets add slice * rows * stride: attention's heads).
struct TensorWindow {
  mlir::Value buffer;
  mlir::Value row0, col0;
  int64_t rowOffset = 0, colOffset = 0; // added to row0 and col0 (arange(a, a + n)'s a)
  mlir::Value rows, cols, stride;
  int64_t colsExtent = 0;
  mlir::Value slice;
  /// The mask also asks r0 + i >= 0 (c0 + j >= 0).
  bool rowLower = false, colLower = false;
};
/// `v` without the tile.broadcast ops around it.
mlir::Value stripBroadcast(mlir::Value v);
/// Do two i32 scalars (non-null) hold the same value: one SSA value, or equal constants?
bool sameScalar(mlir::Value a, mlir::Value b);
/// Also for a tile.store (the window it writes under its mask).
std::optional<TensorWindow> tensorWindowOf(mlir::Operation *load);
/// A splat of +0.0 or integer 0 (through broadcasts; TensorCopies.cpp).
bool isZeroSplat(mlir::Value v);
/// The value of an i32 scalar that a launch knows: {argument index, 0} for a parameter of
/// `kernel`, {-1, value} for a constant; nothing otherwise.
std::optional<std::pair<int64_t, int64_t>> hostScalarOf(mlir::Value v, mlir::Operation *kernel);

/// A scratch array in shared (workgroup) memory, of 32- or 64-bit elements.
struct SharedBuffer {
  mlir::Value handle;
  mlir::Type storedType; // what the memory holds: f32, i32 or i64
};

/// What every lowering pattern of one kernel shares, and the code-building helpers they use.
struct TileLowering {
  const TargetInfo &target;
  int64_t threads;       // threads per program
  mlir::Value threadId;  // i32, this thread's index in the program
  mlir::Operation *kernel; // the gpu.func being lowered
  /// The launch's thread index: threadId, except with a producer warpgroup (producerDots), whose
  /// threads past `threads` run the tile code as copies of the first warpgroup's (threadId less
  /// `threads`). What one thread of the program does alone (a barrier's set-up) takes this one.
  mlir::Value launchThreadId = threadId;
  mutable int64_t sharedBytes = 0; // shared memory allocated so far
  /// Portable numerics: float sums and scans in the canonical order (docs/numerics.md).
  bool portable = false;
  /// Longest run of contiguous elements a thread holds (BlockedLayout::vec): 16 bytes of the
  /// narrowest element type the kernel loads or stores, at least 4 (kernelRunLimit).
  int64_t maxVec = 4;

  /// Shapes whose tiles take the matrix-unit accumulator layout (mmaAccumulatorLayout): the
  /// accumulators of fast-mode dots the target runs on its matrix units, so that the loop around
  /// a dot keeps them in registers where the units want them. Every tile of such a shape in the
  /// kernel uses it (one layout per shape keeps element-wise ops between them local). The value
  /// is the number of subgroup columns of its grid (mmaWarpCols; 1 in a kernel that reduces a
  /// tile, or where the dot runs on cooperative matrices, which want the subgroups down the rows).
  std::map<std::vector<int64_t>, int64_t> mmaShapes;
  /// Shapes {M} and {M, 1} of the row statistics of such an accumulator (a tile.reduce along its
  /// rows): they take mmaRowSliceLayout, so the reduction ends in registers and its result meets
  /// the accumulator again without going through shared memory.
  std::set<std::vector<int64_t>> rowSliceShapes;
  /// Shapes of the accumulators of dots on the FMA path (not in mmaShapes) whose threads take
  /// another split than the plain one (fmaAccumulatorSplit, fmaAccumulatorLayout). Every tile of
  /// such a shape in the kernel uses it, as above.
  std::map<std::vector<int64_t>, FmaSplit> fmaShapes;

  /// How a fast dot on matrix units gets its operands into shared memory (planDotStaging,
  /// before the conversion). An operand loaded for the dot alone is copied straight from its
  /// buffer (`direct`, null for an operand staged from registers); with `maxStages` > 1, the
  /// copies for the next iterations of the loop around the dot are in flight while it computes
  /// (pipelined, in up to that many stages).
  struct DotStaging {
    mlir::Operation *direct[2] = {nullptr, nullptr}; // tile.load of a and of b
    int64_t maxStages = 1;
  };
  std::map<mlir::Operation *, DotStaging> dotStaging;
  /// Fast dots that run on the warpgroup matrix units (runsOnWarpgroupUnits, decided before the
  /// conversion), and whether each only accumulates across its loop (accumulatesAcrossLoop).
  std::map<mlir::Operation *, bool> warpgroupDots;
  /// Where each warpgroup dot waits for its instructions (planned before the conversion): before
  /// the first op of its block that uses its result (the terminator where none does), until at
  /// most `pending` batches are in flight, one for each warpgroup dot of the block in between,
  /// so that the work between a dot and its result's first use (attention's next scores, issued
  /// before this block's softmax) overlaps its instructions. A dot counted so that takes another
  /// path commits an empty batch (`counted`).
  struct LateWait {
    mlir::Operation *before = nullptr;
    int64_t pending = 0;
  };
  std::map<mlir::Operation *, LateWait> lateWaits;
  std::set<mlir::Operation *> countedDots;
  /// May the operands of warpgroup dots come through the target's bulk tensor copies (the pass's
  /// tensor-copies option)? Those that do (planDotStaging) are in `tensorCopies`: the kernel
  /// parameter holding the load's tensor map (its spec in kTensorMapsAttr), and the tile IR's
  /// scalars of the tile's first row and column.
  bool tensorCopiesAllowed = false;
  bool tensorCopiesForA = false; // also dots whose A is copied from its buffer (option tensor-copies-a)
  /// How an iteration's boxes leave (option tensor-copy-issue): all from the first thread behind
  /// one branch (true, the default), or from the first subgroup's lanes, box b from lane b % 32
  /// behind a branch each.
  bool tensorCopiesOneThread = true;
  /// Where every operand staged in a loop comes by tensor copy: a barrier of the program in each
  /// iteration (true, the default), or the readers' release barriers (option tensor-copy-release).
  bool tensorCopiesProgramBarrier = true;
  /// Two warpgroups take turns at the units in loops with several warpgroup dots (option
  /// warpgroup-pingpong): the dots of such a loop, the first of each loop mapped to true.
  bool warpgroupPingpong = false;
  /// Option staging-barrier: cooperative-matrix dots staged in halves keep the barrier before
  /// their writes (lowerWithCoopMatrixLanes).
  bool stagingBarrier = false;
  /// Options async-copy-fence and copies-after-mma (lowerWithWarpgroupUnits, stagePipelined).
  bool asyncCopyFence = true, copiesAfterMma = true;
  /// Option store-staging: accumulator tiles stored through shared memory (storeThroughShared).
  bool storeStaging = true;
  /// Option wait-before-copies (lowerWithWarpgroupUnits).
  bool waitBeforeCopies = false;
  /// Option fma-layout: accumulators on the FMA path take fmaShapes' split.
  bool fmaLayout = true;
  /// Option coop-hoist-a: a cooperative-matrix dot (lowerWithCoopMatrixLanes) whose A does not
  /// change in the loop around it (attention's queries) loads A's matrices once, before the loop,
  /// and keeps them in registers; the array A was staged in is then free for the loop's staging.
  bool coopHoistA = true;
  /// Option coop-a-lanes: a cooperative-matrix dot whose A is in registers in the accumulator
  /// layout (attention's probabilities) builds A's matrices from the lanes' values instead of
  /// staging A (lowerWithCoopMatrixLanes), on the chip's word that A matrices keep their elements
  /// where accumulators do (the runtime's self-test checks it).
  bool coopALanes = false;
  /// Shared-memory arrays whose readers are done before a loop starts (coop-hoist-a), free for
  /// the staging of the dots inside it: the array, its element type and element count, the loop,
  /// and how many of its elements the loop's dots have taken so far (each takes a range of its
  /// own, first fit).
  struct FreeArray {
    mlir::Value array;
    mlir::Type elem;
    int64_t count = 0;
    mlir::Operation *loop = nullptr;
    int64_t taken = 0;
  };
  mutable std::vector<FreeArray> freeArrays;
  /// Option fma-vector-a: where the target wants vector arrays (SPIR-V), an FMA-path dot's
  /// transposed A is staged in vectors, written a component at a time, read a vector at a time.
  bool fmaVectorA = true;
  /// Option fma-halves: FMA-path dots in a loop stage the operands that change in it in two
  /// halves, one barrier an iteration (DotLowering): off, auto (where the target prefers it:
  /// TargetInfo::prefersFmaHalves) or on (wherever they fit).
  enum class FmaHalves { Off, Auto, On } fmaHalves = FmaHalves::Auto;
  /// Option fma-async-copies: f32 dots on the FMA path in a loop take their operands copied from
  /// their buffers asynchronously, in stages (planDotStaging, DotLowering), where the target has
  /// such copies: off, auto (where a thread holds 128 accumulators or more, or the program is 4
  /// subgroups or fewer: where that measured faster) or on.
  enum class FmaAsyncCopies { Off, Auto, On } fmaAsyncCopies = FmaAsyncCopies::Auto;
  /// fma-unroll: the k values an FMA-path dot's inner loop takes a step (the pass sets the
  /// option's value, else TargetInfo::fmaUnroll).
  int64_t fmaUnroll = 8;
  std::map<mlir::Operation *, bool> pingpongDots;
  /// Dots issued in the previous dot's turn (its wait comes after them: lateWaits), so a turn
  /// holds them all: no barrier before a joining dot, none passed after a dot the next joins.
  std::set<mlir::Operation *> pingpongJoins, pingpongHolds;
  /// Per loop, its first dot whose operands all come by tensor copy behind a barrier of the
  /// program, and the last copies issued after that barrier: a later such dot of the loop issues
  /// its copies there and needs no barrier of its own (stagePipelined; filled while lowering).
  mutable std::map<mlir::Operation *, std::pair<mlir::Operation *, mlir::Operation *>> loopCopies;
  /// A producer warpgroup (option producer-warp): the dots of the loop whose copies it issues,
  /// from 128 threads past the program's `threads` that run that loop's copies ahead of the
  /// others (released by their readers' barriers) and then exit. Filled before the conversion;
  /// `producers` (per loop: the branch the producer runs and its loop's body) while lowering.
  std::set<mlir::Operation *> producerDots;
  mutable std::map<mlir::Operation *, std::pair<mlir::Operation *, mlir::Block *>> producers;
  struct TensorCopy {
    mlir::Value map;
    mlir::Value row0, col0, slice; // slice: the third coordinate of a stacked matrix, else null
    int64_t rowOffset = 0, colOffset = 0; // (TensorWindow's)
  };
  std::map<mlir::Operation *, TensorCopy> tensorCopies;
  /// Per tile.load and tile.store, the run length its offsets and mask are proven uniform over
  /// (uniformRunLengths, before the arguments are replaced): a thread's run of at most that many
  /// elements is one wide access behind its first mask bit, with no element-by-element path.
  std::map<mlir::Operation *, int64_t> uniformRuns;
  /// Are the runs of `vec` elements of this load or store proven whole (uniformRuns)?
  bool provenWhole(mlir::Operation *access, int64_t vec) const {
    auto it = uniformRuns.find(access);
    return vec > 1 && it != uniformRuns.end() && it->second >= vec;
  }

  BlockedLayout layoutOf(mlir::RankedTensorType type) const {
    std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
    if (auto it = mmaShapes.find(shape); it != mmaShapes.end())
      return mmaAccumulatorLayout(type.getShape(), threads, it->second);
    if (rowSliceShapes.count(shape))
      return mmaRowSliceLayout(type.getShape(), threads);
    if (auto it = fmaShapes.find(shape); it != fmaShapes.end())
      return fmaAccumulatorLayout(type.getShape(), threads, maxVec, it->second);
    return BlockedLayout::get(type.getShape(), threads, maxVec);
  }
  mlir::Value i32(mlir::OpBuilder &b, mlir::Location loc, int64_t v) const;
  /// tid[k] * size(k) of this thread: its own offset along dimension k.
  mlir::Value threadOffset(mlir::OpBuilder &b, mlir::Location loc, const BlockedLayout &l, int64_t k) const;
  /// Coordinate along dimension k of element e of this thread.
  mlir::Value elementCoord(mlir::OpBuilder &b, mlir::Location loc, const BlockedLayout &l, int64_t e, int64_t k) const;
  /// Σ_k coef[k] * threadOffset(k): the thread-dependent part of a linear index.
  mlir::Value threadLinear(mlir::OpBuilder &b, mlir::Location loc, const BlockedLayout &l,
                           llvm::ArrayRef<int64_t> coef) const;
  /// tid < owners, or a null Value when every thread owns its elements.
  mlir::Value ownerPredicate(mlir::OpBuilder &b, mlir::Location loc, const BlockedLayout &l) const;

  /// Shared scratch for `count` values of `elem` (stored widened to 32 bits where narrower).
  SharedBuffer allocShared(mlir::OpBuilder &b, mlir::Location loc, mlir::Type elem, int64_t count) const;
  void storeShared(mlir::OpBuilder &b, mlir::Location loc, const SharedBuffer &buf, mlir::Value index,
                   mlir::Value value) const;
  /// `count` consecutive values from `index` on, as TargetInfo::loadSharedRun reads them.
  llvm::SmallVector<mlir::Value> loadSharedRun(mlir::OpBuilder &b, mlir::Location loc, const SharedBuffer &buf,
                                               mlir::Value index, mlir::Type elem, int64_t count) const;
  mlir::Value loadShared(mlir::OpBuilder &b, mlir::Location loc, const SharedBuffer &buf, mlir::Value index,
                         mlir::Type elem) const;
  void barrier(mlir::OpBuilder &b, mlir::Location loc) const;

  /// Redistributes a tile: element e of this thread in `dst` becomes the source element at
  /// row-major index Σ_k coef[k] * coord_k(e) of `src`. Stays in registers when every thread
  /// already holds what it needs at one position for all threads; otherwise goes through
  /// shared memory.
  llvm::SmallVector<mlir::Value> remap(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange src,
                                       const BlockedLayout &srcLayout, const BlockedLayout &dstLayout,
                                       llvm::ArrayRef<int64_t> coef) const;
  /// The part of remap that stays in registers: nothing when some thread would need an element
  /// another thread holds.
  std::optional<llvm::SmallVector<mlir::Value>> remapInRegisters(mlir::ValueRange src, const BlockedLayout &srcLayout,
                                                                 const BlockedLayout &dstLayout,
                                                                 llvm::ArrayRef<int64_t> coef) const;
};

/// The run limit of a kernel: 16 bytes / the narrowest element (in bytes, at least 1) of its
/// loads and stores, at least 4. One limit for every tile of the kernel, whatever its element
/// type, so that values keep one layout through conversions (f16 loads, f32 math, f16 stores).
int64_t kernelRunLimit(mlir::Operation *kernel);

/// Can this fast dot run on the warpgroup matrix units (TargetInfo::wgmmaShape)? B must come
/// straight from its buffer; A from its buffer too, or, in a pipelined loop, from registers (the
/// loop does not change it, or it has another dot's accumulator shape). Its accumulator keeps the
/// subgroups down the rows. Asked before the conversion (it reads the tile ops around the dot).
bool runsOnWarpgroupUnits(mlir::Operation *dot, const TileLowering &lowering);

/// Do two stages of every dot of `dots` (one loop's, in order, all planned for the warpgroup
/// units: dotStaging) fit the units' shared memory together, as lowerWithWarpgroupUnits lays
/// them out? A producer warpgroup needs them (TileToGPUPass, producer-warp=auto).
bool warpgroupStagesFit(llvm::ArrayRef<mlir::Operation *> dots, const TileLowering &lowering);

/// Is this dot the only use of its loop's iteration argument `acc`, and its result only what the
/// loop yields for it? Then nothing reads the accumulator until the loop ends.
bool accumulatesAcrossLoop(mlir::Operation *dot);

/// Plans the staging of the fast dots of `kernel` that will run on matrix units (dotStaging),
/// and which of their operands come through bulk tensor copies (tensorCopies: each gets a
/// tensor map parameter after the kernel's arguments).
void planDotStaging(mlir::Operation *kernel, TileLowering &lowering);
/// After the lowering: removes the tensor map parameters nothing reads (an operand that was not
/// pipelined after all) from the kernel and from its kTensorMapsAttr.
void dropUnusedTensorMaps(mlir::Operation *kernel);

/// Per tile.load and tile.store of `kernel` (a tile-IR function): the longest power-of-two L such
/// that along the last dimension every aligned group of L elements has offsets o, o + 1, ...,
/// o + L - 1 with o a multiple of L, and one mask value (RunAnalysis.cpp). Integer arguments
/// marked tile.divisibility = d count as multiples of d.
std::map<mlir::Operation *, int64_t> uniformRunLengths(mlir::Operation *kernel);

/// Can the thread's run of `vec` elements from j on be one wide access at run time: offsets
/// contiguous, the first a multiple of vec, every mask bit set (LoadStoreOpToGPU.cpp)?
mlir::Value wholeRunCondition(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange offsets, mlir::ValueRange mask,
                              size_t j, int64_t vec);
/// Are all the thread's runs of `vec` elements whole (wholeRunCondition of each)? Loads and copies
/// into shared memory decide once for all their runs.
mlir::Value allRunsWhole(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange offsets, mlir::ValueRange mask,
                         int64_t vec);

/// buffer[offset], where `mask` is set (a null mask: always), else `otherwise`: a masked-off
/// offset, which may lie outside the buffer, is never read.
mlir::Value loadMaskedElement(mlir::OpBuilder &b, mlir::Location loc, const TargetInfo &target, mlir::Value buffer,
                              mlir::Value offset, mlir::Value mask, mlir::Value otherwise, mlir::Type elem);

/// Row-major strides of a shape.
llvm::SmallVector<int64_t, 4> stridesOf(llvm::ArrayRef<int64_t> shape);

/// Does `op` take or produce a tile (and so still need lowering)?
inline bool touchesTiles(mlir::Operation *op) {
  auto isTile = [](mlir::Type t) { return mlir::isa<mlir::RankedTensorType>(t); };
  return llvm::any_of(op->getOperandTypes(), isTile) || llvm::any_of(op->getResultTypes(), isTile);
}

/// Converts a tile type to the scalars one thread holds (1:N); other types stay.
class TileTypeConverter : public mlir::TypeConverter {
public:
  explicit TileTypeConverter(const TileLowering &lowering);
};

void populateGridOpToGPUPatterns(const TileLowering &lowering, mlir::TypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);
void populateElementwiseOpToGPUPatterns(const TileLowering &lowering, mlir::TypeConverter &converter,
                                        mlir::RewritePatternSet &patterns);
void populateShapeOpToGPUPatterns(const TileLowering &lowering, mlir::TypeConverter &converter,
                                  mlir::RewritePatternSet &patterns);
void populateReduceOpToGPUPatterns(const TileLowering &lowering, mlir::TypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);
void populateAtomicOpToGPUPatterns(const TileLowering &lowering, mlir::TypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);
void populateDotOpToGPUPatterns(const TileLowering &lowering, mlir::TypeConverter &converter,
                                mlir::RewritePatternSet &patterns);
void populateLoadStoreOpToGPUPatterns(const TileLowering &lowering, mlir::TypeConverter &converter,
                                      mlir::RewritePatternSet &patterns);

/// Portable float inclusive scan along `axis` (blocks of the pairwise tree), through shared
/// memory: CanonicalOrderToGPU.cpp. It returns this thread's result elements.
llvm::SmallVector<mlir::Value> lowerCanonicalScan(mlir::OpBuilder &b, mlir::Location loc, const TileLowering &l,
                                                  mlir::RankedTensorType type, mlir::ValueRange src, int64_t axis);

#define GEN_PASS_DECL
#include "common/Passes.h.inc"

/// Registers the passes of backends/ with the global registry (for tessera-opt).
void registerBackendPasses();

} // namespace tessera::backend
