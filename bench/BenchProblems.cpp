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
  // As few lines of programs as fit, each as short as covers them all: 2^18 programs are 5 lines
  // of 52429 (one program idle), not 5 of 65535 (65531 idle programs to launch).
  const uint64_t programs = kernel == "add" ? (uint64_t(cols) + block - 1) / block : uint64_t(rows);
  const uint64_t lines = std::max<uint64_t>(1, (programs + 65534) / 65535);
  return {uint32_t((programs + lines - 1) / lines), uint32_t(lines), 1};
}

namespace {

// Row kernels hold a row in registers. Threads per row (then warps for the device's subgroup
// size), from the H100 sweep of 2026-12-05 (run 25, docs/bench.md: 4, 8, 16 and 32 warps through
// both backends). Softmax: 128 threads up to 2048 columns, 256 up to 4096, 512 beyond (256 at
// 16384 ran as fast through CUDA and 8% faster through Vulkan, but its 64 values per thread
// take 250 ms to compile to PTX here, against 70-100). Layernorm: 16 values per thread, 128 to
// 1024 threads (8 values, the earlier choice, ran 1290 GB/s at 8192 columns through CUDA against
// 2373; 32 values need 134 registers, one program per SM).
uint32_t warpsFor(int64_t threads, uint32_t subgroup) {
  return uint32_t(std::clamp<int64_t>(threads / int64_t(subgroup), 1, 32));
}
uint32_t softmaxWarps(int block, uint32_t subgroup) {
  return warpsFor(block <= 2048 ? 128 : block <= 4096 ? 256 : 512, subgroup);
}
uint32_t layernormWarps(int block, uint32_t subgroup) { return warpsFor(std::clamp<int64_t>(block / 16, 128, 1024), subgroup); }

std::string pow2Name(int64_t n) {
  int k = 0;
  while ((int64_t(1) << k) < n) ++k;
  return (int64_t(1) << k) == n ? "2^" + std::to_string(k) : std::to_string(n);
}

} // namespace

std::vector<Problem> problems(bool smoke, uint32_t subgroup, const std::vector<int64_t> &addSizes, uint32_t rowWarps) {
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
    both({"softmax f32 " + std::to_string(rows) + "x" + std::to_string(cols), "softmax", rows, cols, block,
          rowWarps ? rowWarps : softmaxWarps(block, subgroup), false, subgroup});
  }
  for (int64_t cols : layernormCols) {
    int block = nextPow2(cols);
    both({"layernorm f16 " + std::to_string(rows) + "x" + std::to_string(cols), "layernorm", rows, cols, block,
          rowWarps ? rowWarps : layernormWarps(block, subgroup), false, subgroup});
  }
  return out;
}

} // namespace tessera::bench
