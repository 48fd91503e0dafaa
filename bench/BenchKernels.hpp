// The kernels tessera-bench measures (memory-bound work the Triton tutorials made standard), their
// problems, and what each moves through memory. Tracing is in BenchTrace.cpp (compiler builds only).
#pragma once

#include "tessera/runtime/Runtime.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::bench {

/// One measured work item: a kernel, its specialization and its problem size.
struct Problem {
  std::string work;   // "add f32 n=2^28": the name the anchors use too
  std::string kernel; // "add", "softmax", "layernorm"
  int64_t rows = 1;   // add: 1
  int64_t cols = 0;   // add: n
  int block = 0;      // the tile length (a power of two)
  uint32_t warps = 4; // num_warps
  bool portable = false;
  uint32_t subgroup = 32; // the subgroup size the warps were chosen for

  std::string mode() const { return portable ? "portable" : "fast"; }
  /// The package file stem: "add_b1024_w4_fast_sg32".
  std::string stem() const {
    return kernel + "_b" + std::to_string(block) + "_w" + std::to_string(warps) + "_" + mode() + "_sg" +
           std::to_string(subgroup);
  }
  std::string config() const { return "BLOCK=" + std::to_string(block) + " warps=" + std::to_string(warps); }
  /// Bytes every launch must read and write at least (inputs once, outputs once).
  uint64_t bytes() const;
  /// Programs to launch, folded into 2-D when one dimension would pass 65535 (Vulkan's usual limit).
  Grid grid() const;
};

/// The problems of one run: three sizes or more per kernel, each in fast and portable mode, with
/// warps chosen for devices of `subgroup` threads per warp. `smoke` gives small sizes that run in
/// seconds on a CPU Vulkan driver. `addSizes`, when not empty, replaces the vector add's sizes;
/// `rowWarps`, when not 0, the warps of the row kernels (softmax, layernorm) for every size.
std::vector<Problem> problems(bool smoke, uint32_t subgroup, const std::vector<int64_t> &addSizes = {},
                              uint32_t rowWarps = 0);

int nextPow2(int64_t n);

} // namespace tessera::bench
