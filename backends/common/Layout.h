// The blocked layout: which elements of a tile each thread of a program holds.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cstdint>

namespace tessera::backend {

/// A tile of shape d[0] x ... x d[r-1] (row major, the last dimension fastest) over `threads`
/// threads. Along the last dimension each thread holds runs of `vec` contiguous elements (up to
/// `maxVec`: 16 bytes of the narrowest type the kernel loads or stores, so 4 f32 or 8 f16, when
/// the tile is big enough); other dimensions hold one element per run. Threads are laid out
/// innermost dimension first: t[r-1] threads side by side along the last dimension, then t[r-2]
/// groups of them along the one before, and so on. Each thread repeats its pattern reps[k] times
/// along dimension k. For thread `tid`:
///
///   tid[r-1] = tid % t[r-1],  tid[k] = (tid / (t[k+1] * ... * t[r-1])) % t[k]
///   coordinate k of a run  =  rep[k] * (size[k] * t[k]) + tid[k] * size[k]  (+ v on the last)
///
/// with size[k] = vec on the last dimension and 1 elsewhere. A thread's elements are numbered
/// with rep[0] slowest, then rep[1], ..., rep[r-1], then v fastest. When the tile has fewer
/// runs than there are threads, threads tid >= owners() hold copies of thread tid % owners()'s
/// elements and never store them. All quantities are powers of two.
struct BlockedLayout {
  llvm::SmallVector<int64_t, 4> shape;
  llvm::SmallVector<int64_t, 4> threadsPer; // t[k]
  llvm::SmallVector<int64_t, 4> reps;       // reps[k]
  int64_t threads = 1;
  int64_t vec = 1;
  /// Subgroups on a grid (empty: none). With warpsPer, thread tid is lane tid % laneCount of
  /// subgroup tid / laneCount; lanes and subgroups are each laid out innermost dimension first,
  /// lanesPer(k) = t[k] / warpsPer[k] lanes and warpsPer[k] subgroups along k, and the thread's
  /// index along k is lane[k] + lanesPer(k) * warp[k] in place of tid[k] above. Without it the
  /// plain split is the same as filling the lanes first, so only a grid that puts subgroups
  /// along a dimension whose lanes do not fill the subgroup needs it (mmaAccumulatorLayout).
  llvm::SmallVector<int64_t, 4> warpsPer;
  int64_t laneCount = 0;
  /// Threads that hold the same elements side by side (no grid): thread tid takes the place of
  /// tid / replicaLanes above, so each group of replicaLanes neighbours holds one thread's
  /// elements, and only the first of them owns them. A row statistic of the matrix-unit
  /// accumulator takes this slice of its layout (mmaRowSliceLayout): the 4 lanes of a row hold it.
  int64_t replicaLanes = 1;

  /// `vecOverride` and `lastThreadsOverride` (0: chosen as above) fix the run length and the
  /// threads along the last dimension: the matrix-unit accumulator layout (TileLowering).
  static BlockedLayout get(llvm::ArrayRef<int64_t> shape, int64_t threads, int64_t maxVec = 4, int64_t vecOverride = 0,
                           int64_t lastThreadsOverride = 0) {
    BlockedLayout l;
    l.shape.assign(shape.begin(), shape.end());
    l.threads = threads;
    int64_t r = int64_t(shape.size());
    l.threadsPer.assign(r, 1);
    l.reps.assign(r, 1);
    if (r == 0)
      return l;
    int64_t total = 1;
    for (int64_t d : shape)
      total *= d;
    l.vec = vecOverride ? vecOverride : std::clamp<int64_t>(total / threads, 1, std::min(maxVec, shape.back()));
    int64_t left = threads;
    for (int64_t k = r - 1; k >= 0; --k) {
      int64_t runs = shape[k] / l.size(k);
      l.threadsPer[k] = k == r - 1 && lastThreadsOverride ? lastThreadsOverride : std::min(left, runs);
      left /= l.threadsPer[k];
      l.reps[k] = runs / l.threadsPer[k];
    }
    return l;
  }

  int64_t rank() const { return int64_t(shape.size()); }
  /// Elements per run along dimension k.
  int64_t size(int64_t k) const { return k == rank() - 1 ? vec : 1; }
  int64_t owners() const {
    int64_t o = 1;
    for (int64_t t : threadsPer)
      o *= t;
    return o;
  }
  bool hasReplicas() const { return owners() * replicaLanes < threads || replicaLanes > 1; }
  int64_t perThread() const {
    int64_t n = vec;
    for (int64_t r : reps)
      n *= r;
    return rank() == 0 ? 1 : n;
  }
  /// Product of threadsPer[j] for j > k: how far apart in thread index neighbours along k are.
  int64_t threadStride(int64_t k) const {
    int64_t s = 1;
    for (int64_t j = k + 1; j < rank(); ++j)
      s *= threadsPer[j];
    return s;
  }
  bool hasWarpGrid() const { return !warpsPer.empty(); }
  int64_t lanesPer(int64_t k) const { return threadsPer[k] / warpsPer[k]; }
  /// With a subgroup grid: how far apart in lane index neighbours along k are, and in subgroup
  /// index.
  int64_t laneStride(int64_t k) const {
    int64_t s = 1;
    for (int64_t j = k + 1; j < rank(); ++j)
      s *= lanesPer(j);
    return s;
  }
  int64_t warpStride(int64_t k) const {
    int64_t s = 1;
    for (int64_t j = k + 1; j < rank(); ++j)
      s *= warpsPer[j];
    return s;
  }
  int64_t threadIndex(int64_t tid, int64_t k) const {
    if (!hasWarpGrid())
      return (tid / replicaLanes / threadStride(k)) % threadsPer[k];
    const int64_t lane = tid % laneCount, warp = tid / laneCount;
    return (lane / laneStride(k)) % lanesPer(k) + lanesPer(k) * ((warp / warpStride(k)) % warpsPer[k]);
  }

  /// Coordinate along dimension k of element e of a thread, minus the thread's own offset
  /// tid[k] * size(k): the part known at compile time.
  int64_t staticCoord(int64_t e, int64_t k) const {
    int64_t v = e % vec, rest = e / vec;
    llvm::SmallVector<int64_t, 4> rep(rank());
    for (int64_t j = rank() - 1; j >= 0; --j) {
      rep[j] = rest % reps[j];
      rest /= reps[j];
    }
    return rep[k] * size(k) * threadsPer[k] + (k == rank() - 1 ? v : 0);
  }
  /// Full coordinate along k of element e of thread tid (for compile-time planning).
  int64_t coord(int64_t tid, int64_t e, int64_t k) const {
    return staticCoord(e, k) + threadIndex(tid, k) * size(k);
  }
  /// Row-major linear index of element e of thread tid.
  int64_t linear(int64_t tid, int64_t e) const {
    int64_t idx = 0;
    for (int64_t k = 0; k < rank(); ++k)
      idx = idx * shape[k] + coord(tid, e, k);
    return idx;
  }
};

/// The layout of an M x N accumulator on 32-lane matrix units (16 x 8 blocks, mma.sync's C
/// fragment) with the subgroups on a (W / warpCols) x warpCols grid: runs of 2 along a row, 4
/// lanes across and 8 down, so lane l = 4g + t of subgroup (wr, wc) holds columns
/// 8 (warpCols j + wc) + 2t, + 1 of rows 8 (W / warpCols) i + 8 wr + g for every repetition i, j;
/// two consecutive row repetitions 2p, 2p + 1 form the rows g and g + 8 of one 16 x 8 block.
/// With warpCols = 1 this is the plain split of 4 threads across (no grid).
inline BlockedLayout mmaAccumulatorLayout(llvm::ArrayRef<int64_t> shape, int64_t threads, int64_t warpCols = 1) {
  BlockedLayout l = BlockedLayout::get(shape, threads, 2, 2, 4 * warpCols);
  if (warpCols > 1) {
    l.laneCount = 32;
    l.warpsPer = {threads / 32 / warpCols, warpCols};
  }
  return l;
}
/// The layout of a row statistic of an M x N accumulator in mmaAccumulatorLayout without a grid
/// (shape {M}, or {M, 1}): the 4 lanes that hold a row of the accumulator all hold its value, at
/// the accumulator's row repetitions, so a reduction along the rows ends in registers and its
/// result meets the accumulator again (expand_dims, broadcast) without moving.
inline BlockedLayout mmaRowSliceLayout(llvm::ArrayRef<int64_t> shape, int64_t threads) {
  const int64_t rows = threads / 4;
  BlockedLayout l;
  l.shape.assign(shape.begin(), shape.end());
  l.threads = threads;
  l.replicaLanes = 4;
  l.threadsPer.assign(shape.size(), 1);
  l.reps.assign(shape.size(), 1);
  l.threadsPer[0] = rows;
  l.reps[0] = shape[0] / rows;
  return l;
}
/// Can an M x N accumulator over `threads` threads (32-lane subgroups) take that layout, each
/// subgroup's columns a whole number of blocks `blockCols` wide (8: mma.sync's; 16: cooperative
/// matrices')?
inline bool fitsMmaAccumulatorLayout(llvm::ArrayRef<int64_t> shape, int64_t threads, int64_t warpCols = 1,
                                     int64_t blockCols = 8) {
  if (shape.size() != 2 || threads % 32 || (threads / 32) % warpCols)
    return false;
  const int64_t warpRows = threads / 32 / warpCols;
  return shape[1] % (blockCols * warpCols) == 0 && shape[0] % (16 * warpRows) == 0;
}
/// The subgroup grid for an M x N accumulator on matrix units that loads the fewest fragments:
/// each k step a subgroup loads one 16 x 16 block of A per 16 of its rows and one of B per 16 of
/// its columns, M / rows + N / cols in all. Ties keep more subgroups down the rows. 0 when no
/// grid fits (`blockCols` as in fitsMmaAccumulatorLayout).
inline int64_t mmaWarpCols(llvm::ArrayRef<int64_t> shape, int64_t threads, int64_t blockCols = 8) {
  const int64_t warps = threads / 32;
  int64_t best = 0, bestLoads = 0;
  for (int64_t cols = 1; cols <= warps; cols *= 2) {
    if (!fitsMmaAccumulatorLayout(shape, threads, cols, blockCols))
      continue;
    const int64_t loads = shape[0] / (warps / cols) + shape[1] / cols;
    if (best == 0 || loads < bestLoads)
      best = cols, bestLoads = loads;
  }
  return best;
}

/// How an M x N accumulator of a dot on the FMA path (DotLowering's register blocking) splits
/// its threads (fmaAccumulatorSplit): `across` threads along the columns (runs of the plain vec),
/// and, with 32-lane subgroups, `warpCols` subgroups across on a grid (0: none).
struct FmaSplit {
  int64_t across = 0, warpCols = 0;
  bool operator==(const FmaSplit &) const = default;
  explicit operator bool() const { return across || warpCols; } // another split than the plain one
};
/// The layout of that split (BlockedLayout::get with `across` threads along the columns, and
/// the subgroup grid where warpCols is set).
inline BlockedLayout fmaAccumulatorLayout(llvm::ArrayRef<int64_t> shape, int64_t threads, int64_t maxVec, FmaSplit s) {
  BlockedLayout l = BlockedLayout::get(shape, threads, maxVec, 0, s.across);
  if (s.warpCols) {
    l.laneCount = 32;
    l.warpsPer = {threads / 32 / s.warpCols, s.warpCols};
  }
  return l;
}
/// The split of an FMA-path accumulator that loads the fewest values, then moves the fewest
/// bytes through shared memory, each k step. A thread loads one value of A per row it holds and
/// one of B per column, M / (threads / t) + N / t with t threads across; the plain split puts as
/// many across as there are runs of columns (64 x 256 over 256 threads: 16 rows and 4 columns a
/// thread, 20 values, where 32 across give 8 and 8, 16). A subgroup's loads read its lanes'
/// distinct rows and columns, lanes down × rows + lanes across × columns of them, which a grid
/// of subgroups makes fewer: 4 x 8 lanes read 4 × 8 + 8 × 8 values of 64 x 256 a k step, where
/// a row of 32 lanes reads 8 + 32 × 8. Ties keep more threads and lanes across. {0, 0} where the
/// plain split is already best, or where the shape is not a 2-D one every thread holds a part
/// of. `subgroupSize`: the grid only where it is 32.
inline FmaSplit fmaAccumulatorSplit(llvm::ArrayRef<int64_t> shape, int64_t threads, int64_t maxVec,
                                    int64_t subgroupSize) {
  if (shape.size() != 2)
    return {};
  const BlockedLayout plain = BlockedLayout::get(shape, threads, maxVec);
  if (plain.owners() != threads)
    return {};
  auto loads = [&](int64_t across) { return shape[0] * across / threads + shape[1] / across; };
  int64_t across = plain.threadsPer[1];
  for (int64_t t = plain.threadsPer[1] / 2; t >= 1; t /= 2)
    if (shape[0] % (threads / t) == 0 && loads(t) < loads(across))
      across = t;
  FmaSplit best{across == plain.threadsPer[1] ? 0 : across, 0};
  if (subgroupSize == 32 && threads % 32 == 0) {
    const int64_t down = threads / across, rows = shape[0] / down, cols = shape[1] / across, warps = threads / 32;
    // A subgroup's distinct values a k step: lanes down x rows + lanes across x cols.
    auto values = [&](int64_t lanesAcross) { return (32 / lanesAcross) * rows + lanesAcross * cols; };
    const int64_t plainLanes = std::min<int64_t>(32, across); // (lanes fill the columns first)
    int64_t bestLanes = plainLanes;
    for (int64_t lanes = plainLanes / 2; lanes >= 1; lanes /= 2) {
      const int64_t warpCols = across / lanes;
      if (warpCols > warps || warps % warpCols || down % (warps / warpCols) || down / (warps / warpCols) != 32 / lanes)
        continue;
      if (values(lanes) < values(bestLanes))
        bestLanes = lanes;
    }
    if (bestLanes != plainLanes)
      best = {across, across / bestLanes};
  }
  return best;
}

} // namespace tessera::backend
