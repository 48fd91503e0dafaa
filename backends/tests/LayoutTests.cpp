// The matrix-unit accumulator layout with its subgroups on a grid: every element has exactly one
// owner, each lane holds mma.sync's C fragment of its subgroup's blocks, and the grid chosen
// loads the fewest fragments.
#include <set>
#include "common/Layout.h"

#include <doctest/doctest.h>

#include <set>
#include <vector>

using namespace tessera::backend;

namespace {

/// Every element of the tile is held by exactly one thread, once.
void checkCovers(const BlockedLayout &l) {
  const int64_t total = l.shape[0] * l.shape[1];
  std::vector<int> seen(size_t(total), 0);
  for (int64_t tid = 0; tid < l.threads; ++tid)
    for (int64_t e = 0; e < l.perThread(); ++e) {
      const int64_t i = l.linear(tid, e);
      REQUIRE(i >= 0);
      REQUIRE(i < total);
      ++seen[size_t(i)];
    }
  for (int64_t i = 0; i < total; ++i)
    CHECK_MESSAGE(seen[size_t(i)] == 1, "element ", i);
}

} // namespace

TEST_CASE("layout.mma accumulator on a subgroup grid holds C fragments") {
  struct Case {
    int64_t m, n, threads, cols;
  };
  for (Case c : {Case{64, 64, 128, 2}, Case{128, 128, 256, 2}, Case{128, 256, 256, 4}, Case{32, 64, 64, 2},
                 Case{128, 128, 128, 1}, Case{256, 128, 256, 2}}) {
    INFO("tile ", c.m, "x", c.n, ", ", c.threads, " threads, ", c.cols, " subgroup columns");
    REQUIRE(fitsMmaAccumulatorLayout({c.m, c.n}, c.threads, c.cols));
    const BlockedLayout l = mmaAccumulatorLayout({c.m, c.n}, c.threads, c.cols);
    CHECK(l.hasWarpGrid() == (c.cols > 1));
    CHECK_FALSE(l.hasReplicas());
    checkCovers(l);
    // Lane 4g + t of subgroup (wr, wc): element (rep i, rep j, v) sits at row 8 Wr i + 8 wr + g,
    // column 8 (C j + wc) + 2t + v.
    const int64_t warpRows = c.threads / 32 / c.cols;
    for (int64_t tid = 0; tid < c.threads; ++tid) {
      const int64_t lane = tid % 32, warp = tid / 32, g = lane / 4, t = lane % 4;
      const int64_t wr = warp / c.cols, wc = warp % c.cols;
      for (int64_t e = 0; e < l.perThread(); ++e) {
        const int64_t v = e % 2, j = (e / 2) % l.reps[1], i = e / 2 / l.reps[1];
        CHECK(l.coord(tid, e, 0) == 8 * warpRows * i + 8 * wr + g);
        CHECK(l.coord(tid, e, 1) == 8 * (c.cols * j + wc) + 2 * t + v);
      }
    }
  }
}

TEST_CASE("layout.mma accumulator without a grid is the plain split") {
  const BlockedLayout grid = mmaAccumulatorLayout({128, 64}, 256, 1);
  const BlockedLayout plain = BlockedLayout::get({128, 64}, 256, 2, 2, 4);
  for (int64_t tid = 0; tid < 256; ++tid)
    for (int64_t e = 0; e < plain.perThread(); ++e)
      CHECK(grid.linear(tid, e) == plain.linear(tid, e));
}

TEST_CASE("layout.mma subgroup grid loads the fewest fragments") {
  // Loads per k step: M / rows + N / cols of a subgroup's block.
  CHECK(mmaWarpCols({64, 64}, 128) == 2);   // 32 x 32 blocks: 4 loads, not 16 + 64 / 16 = 5
  CHECK(mmaWarpCols({128, 128}, 256) == 2); // 32 x 64 (ties keep more subgroups down the rows)
  CHECK(mmaWarpCols({128, 256}, 256) == 4); // 64 x 64
  CHECK(mmaWarpCols({16, 64}, 128) == 4);   // one 16-row block: the subgroups go across
  CHECK(mmaWarpCols({256, 16}, 256) == 1);  // narrow: 32 + 16 loads, where 2 across would take 64 + 8
  CHECK(mmaWarpCols({128, 256}, 512) == 4);  // 16 subgroups: 32 x 64 blocks, though 16 down the rows do not fit
  CHECK(mmaWarpCols({16, 8}, 128) == 0);     // no grid fits
  CHECK_FALSE(fitsMmaAccumulatorLayout({64, 64}, 128, 16));
  CHECK_FALSE(fitsMmaAccumulatorLayout({16, 64}, 128, 1)); // 16 rows cannot hold 4 subgroups of 16
}

TEST_CASE("layout.an FMA-path accumulator splits its threads so that a k step loads the fewest values") {
  // A thread loads one value of A per row it holds and one of B per column: M t / T + N / t; then
  // a subgroup's lanes read lanes down x rows + lanes across x columns of them.
  CHECK(fmaAccumulatorSplit({64, 256}, 256, 4, 32) == FmaSplit{32, 4});  // 8 + 8 a thread; 4 x 8 lanes
  CHECK(fmaAccumulatorSplit({64, 256}, 256, 4, 8) == FmaSplit{32, 0});   // no grid without 32 lanes
  CHECK(fmaAccumulatorSplit({128, 128}, 256, 4, 32) == FmaSplit{16, 2}); // 8 + 8; 4 x 8 lanes
  CHECK(fmaAccumulatorSplit({64, 64}, 128, 4, 8) == FmaSplit{});          // 8 across would tie with 16: plain
  CHECK(fmaAccumulatorSplit({16, 16}, 128, 4, 32) == FmaSplit{8, 2});     // 1 + 2 a thread; 8 x 4 lanes
  CHECK(fmaAccumulatorSplit({16, 16}, 512, 4, 32) == FmaSplit{});         // fewer runs than threads: plain
  CHECK(fmaAccumulatorSplit({64}, 128, 4, 32) == FmaSplit{});
  const BlockedLayout l = fmaAccumulatorLayout({64, 256}, 256, 4, FmaSplit{32, 4});
  CHECK(l.threadsPer == llvm::SmallVector<int64_t, 4>{8, 32});
  CHECK(l.reps == llvm::SmallVector<int64_t, 4>{8, 2});
  CHECK(l.lanesPer(0) == 4);
  CHECK(l.lanesPer(1) == 8);
  // Every element has one owner, and thread tid's rows are T apart from its index down the rows.
  std::set<int64_t> seen;
  for (int64_t tid = 0; tid < 256; ++tid)
    for (int64_t e = 0; e < l.perThread(); ++e) {
      CHECK(seen.insert(l.linear(tid, e)).second);
      CHECK(l.coord(tid, e, 0) % 8 == l.threadIndex(tid, 0));
    }
  CHECK(seen.size() == 64 * 256);
}

TEST_CASE("layout.the cooperative matrices' grid gives each subgroup whole 16-column blocks") {
  CHECK(fitsMmaAccumulatorLayout({64, 48}, 128, 2));          // 24 columns a subgroup: 3 groups of 8
  CHECK_FALSE(fitsMmaAccumulatorLayout({64, 48}, 128, 2, 16)); // but not whole 16-column blocks
  CHECK(mmaWarpCols({64, 64}, 128, 16) == 2);  // 32 x 32: 2 + 2 blocks per k step, not 1 + 4
  CHECK(mmaWarpCols({256, 128}, 256, 16) == 2); // 64 x 64 (05_matmul's Vulkan default)
  CHECK(mmaWarpCols({64, 32}, 128, 16) == 1);  // 2 across would tie: subgroups stay down the rows
  CHECK(mmaWarpCols({16, 64}, 128, 16) == 4);  // one 16-row block: 4 across, 16 columns each
  CHECK(mmaWarpCols({16, 32}, 128, 16) == 0);  // 8 columns a subgroup: no grid fits
}

TEST_CASE("layout.row slice of the mma accumulator: each row's 4 lanes hold its statistic") {
  for (int64_t threads : {128, 256}) {
    const BlockedLayout acc = mmaAccumulatorLayout({128, 64}, threads);
    const BlockedLayout row = mmaRowSliceLayout({128}, threads), col = mmaRowSliceLayout({128, 1}, threads);
    INFO(threads, " threads");
    CHECK(row.hasReplicas());
    CHECK(row.owners() * row.replicaLanes == threads);
    for (int64_t tid = 0; tid < threads; ++tid) {
      // The rows a thread holds of the accumulator are exactly the rows it holds of the slice.
      std::vector<int64_t> accRows, sliceRows, colRows;
      for (int64_t e = 0; e < acc.perThread(); ++e)
        if (acc.coord(tid, e, 1) % 8 == 2 * (tid % 4) && (e % 2) == 0 && acc.coord(tid, e, 1) < 8)
          accRows.push_back(acc.coord(tid, e, 0));
      for (int64_t e = 0; e < row.perThread(); ++e) {
        sliceRows.push_back(row.coord(tid, e, 0));
        colRows.push_back(col.coord(tid, e, 0));
        CHECK(col.coord(tid, e, 1) == 0);
      }
      CHECK(accRows == sliceRows);
      CHECK(colRows == sliceRows);
    }
  }
}
