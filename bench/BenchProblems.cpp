// The problems tessera-bench runs: sizes, tile shapes and what each launch moves.
#include "BenchKernels.hpp"

#include <algorithm>

namespace tessera::bench {

int nextPow2(int64_t n) {
  int b = 1;
  while (b < n) b *= 2;
  return b;
}

uint64_t Problem::bytes() const {
  const uint64_t elems = uint64_t(rows) * uint64_t(cols);
  if (kernel == "add") return 3 * 4 * elems;                        // x, y in; out
  if (kernel == "softmax") return 2 * 4 * elems;                    // in; out
  if (kernel == "layernorm") return 2 * 2 * elems + 2 * 2 * cols;   // x in, y out (f16); w, b
  return 0;
}

Grid Problem::grid() const {
  uint64_t programs = kernel == "add" ? (uint64_t(cols) + block - 1) / block : uint64_t(rows);
  uint32_t x = uint32_t(std::min<uint64_t>(programs, 65535));
  return {x, uint32_t((programs + x - 1) / x), 1};
}

namespace {

// Row kernels hold a row in registers. Threads per row (then warps for the device's subgroup
// size), chosen from H200 measurements (docs/bench.md): softmax 128 threads up to 2048 columns,
// 256 up to 4096, 512 beyond (16 and 32 values per thread ran best); layernorm 8 values per thread
// up to 1024 threads (with 16 or 32 values per thread it needed 144 registers, one program per SM).
uint32_t warpsFor(int64_t threads, uint32_t subgroup) {
  return uint32_t(std::clamp<int64_t>(threads / int64_t(subgroup), 1, 32));
}
uint32_t softmaxWarps(int block, uint32_t subgroup) {
  return warpsFor(block <= 2048 ? 128 : block <= 4096 ? 256 : 512, subgroup);
}
uint32_t layernormWarps(int block, uint32_t subgroup) { return warpsFor(std::clamp<int64_t>(block / 8, 32, 1024), subgroup); }

std::string pow2Name(int64_t n) {
  int k = 0;
  while ((int64_t(1) << k) < n) ++k;
  return (int64_t(1) << k) == n ? "2^" + std::to_string(k) : std::to_string(n);
}

} // namespace

std::vector<Problem> problems(bool smoke, uint32_t subgroup, const std::vector<int64_t> &addSizes) {
  std::vector<Problem> out;
  auto both = [&](Problem p) {
    out.push_back(p);
    p.portable = true;
    out.push_back(p);
  };
  std::vector<int64_t> adds = smoke ? std::vector<int64_t>{1 << 12, 1 << 16, 100003} : std::vector<int64_t>{1 << 20, 1 << 24, 1 << 28};
  if (!addSizes.empty()) adds = addSizes;
  for (int64_t n : adds)
    both({"add f32 n=" + pow2Name(n), "add", 1, n, 1024, 4, false, subgroup});
  // Smoke rows fit a CPU driver's 32 KiB of shared memory in portable mode too (lavapipe).
  const int64_t rows = smoke ? 16 : 4096;
  const std::vector<int64_t> softmaxCols = smoke ? std::vector<int64_t>{100, 1000, 1024} : std::vector<int64_t>{1024, 4096, 16384};
  const std::vector<int64_t> layernormCols = smoke ? std::vector<int64_t>{100, 1000, 1024} : std::vector<int64_t>{1000, 4096, 8192};
  for (int64_t cols : softmaxCols) {
    int block = nextPow2(cols);
    both({"softmax f32 " + std::to_string(rows) + "x" + std::to_string(cols), "softmax", rows, cols, block, softmaxWarps(block, subgroup), false, subgroup});
  }
  for (int64_t cols : layernormCols) {
    int block = nextPow2(cols);
    both({"layernorm f16 " + std::to_string(rows) + "x" + std::to_string(cols), "layernorm", rows, cols, block,
          layernormWarps(block, subgroup), false, subgroup});
  }
  return out;
}

} // namespace tessera::bench
