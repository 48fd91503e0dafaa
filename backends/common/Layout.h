// The blocked layout: which elements of a 1-D tile each thread of a program holds.
#pragma once

#include <algorithm>
#include <cstdint>

namespace tessera::backend {

/// A tile of `length` elements over `threads` threads. Each thread holds runs of `vec`
/// contiguous elements (a 16-byte vector of 32-bit values when the tile is big enough), the
/// runs of all threads side by side, repeated `reps` times:
///
///   element j of thread t  =  (j / vec) * (vec * owners) + (t % owners) * vec + j % vec
///
/// When the tile has fewer runs than there are threads, threads t >= owners hold copies of
/// thread t % owners's elements; only owners store. All quantities are powers of two.
struct BlockedLayout {
  int64_t length = 1;
  int64_t threads = 1;
  int64_t vec = 1;
  int64_t owners = 1;
  int64_t reps = 1;

  static BlockedLayout get(int64_t length, int64_t threads, int64_t maxVec = 4) {
    BlockedLayout l;
    l.length = length;
    l.threads = threads;
    l.vec = std::clamp<int64_t>(length / threads, 1, maxVec);
    l.owners = std::min<int64_t>(threads, length / l.vec);
    l.reps = length / (l.vec * l.owners);
    return l;
  }
  int64_t perThread() const { return vec * reps; }
  bool hasReplicas() const { return owners < threads; }
  /// Offset of element j of a thread from that thread's first element.
  int64_t strideOffset(int64_t j) const { return (j / vec) * (vec * owners) + j % vec; }
};

} // namespace tessera::backend
