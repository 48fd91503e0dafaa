// The examples' --repeat=R timing. After the host's check the device has been idle for seconds,
// so launches first run for about 200 ms (each waited for) until clocks, caches and the driver are
// as in steady work; then R launches are timed by the device itself, back to back or (--flush-l2)
// each after a copy that empties L2. Returns their seconds, fastest first.
#pragma once

#include "tessera/runtime/Runtime.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

/// --flush-l2: each timed launch follows a device-to-device copy of 128 MiB (256 MiB through
/// memory, several times any L2), as triton.testing.do_bench empties L2 before each launch of the
/// anchors (it writes 256 MB): the kernel's operands come from device memory, and the matrix units
/// idle for the copy's time. The copies are timed too and left out. Without it, launches run back
/// to back, which keeps a matrix-bound kernel's clock lower (docs/bench.md, twenty-seventh session).
inline bool flushL2 = false;
/// --stats: after the timed launches, one line of what the driver reports about the kernel's
/// machine code (Kernel::statistics: registers, spills, shared memory), to compare forms.
inline bool printStats = false;

/// Takes the examples' timing options (--flush-l2, --stats); false where `arg` is none of them.
inline bool parseTimingOption(const char *arg) {
  const std::string_view a(arg);
  if (a == "--flush-l2") return flushL2 = true;
  if (a == "--stats") return printStats = true;
  return false;
}

/// With --stats: "driver: NAME = VALUE; ..." for `kernel` ("driver: none reported" where the driver
/// reports nothing, as lavapipe).
inline void printStatistics(const tessera::Kernel &kernel) {
  if (!printStats) return;
  std::string line;
  for (const tessera::KernelStatistic &s : kernel.statistics())
    line += (line.empty() ? "" : "; ") + s.name + " = " + std::to_string(int64_t(s.value));
  std::printf("driver: %s\n", line.empty() ? "none reported" : line.c_str());
}

inline tessera::Result<std::vector<double>> timeLaunches(tessera::Device &dev, int repeat,
                                                         const std::function<tessera::Status()> &launch) {
  tessera::Buffer from, to;
  if (flushL2) {
    const size_t words = size_t(32) << 20; // 128 MiB of i32
    auto a = dev.allocate(tessera::DType::I32, words), b = dev.allocate(tessera::DType::I32, words);
    if (!a) return a.status();
    if (!b) return b.status();
    from = *a, to = *b;
  }
  auto flushed = [&]() -> tessera::Status {
    if (flushL2)
      if (tessera::Status s = to.copyFrom(from); !s) return s;
    return launch();
  };
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 3 || std::chrono::steady_clock::now() - start < std::chrono::milliseconds(200); ++i) {
    if (tessera::Status s = flushed(); !s) return s;
    if (tessera::Status s = dev.synchronize(); !s) return s;
  }
  if (tessera::Status s = dev.beginTiming(); !s) return s;
  for (int i = 0; i < repeat; ++i)
    if (tessera::Status s = flushed(); !s) return s;
  tessera::Result<std::vector<double>> seconds = dev.endTiming();
  if (seconds && seconds->size() != size_t(flushL2 ? 2 * repeat : repeat))
    return tessera::Status(tessera::StatusCode::Internal,
                           "device timing gave " + std::to_string(seconds->size()) + " times for " +
                               std::to_string(repeat) + (flushL2 ? " copies and launches each" : " launches"));
  if (seconds && flushL2) { // copy, launch, copy, launch, ...: keep the launches
    std::vector<double> launches;
    for (size_t i = 1; i < seconds->size(); i += 2) launches.push_back((*seconds)[i]);
    *seconds = std::move(launches);
  }
  if (seconds) std::sort(seconds->begin(), seconds->end());
  return seconds;
}

/// Where the kernel's code reads its operands through bulk tensor copies (CUDA on Hopper: the
/// driver's "tensor maps" figure), how many of its launches so far did.
inline void printTensorCopies(const tessera::Kernel &kernel) {
  double maps = -1, launches = 0;
  for (const tessera::KernelStatistic &s : kernel.statistics()) {
    if (s.name == "tensor maps") maps = s.value;
    if (s.name == "tensor-copy launches") launches = s.value;
  }
  if (maps >= 0) std::printf("bulk tensor copies: %.0f tensor maps, %.0f launches used them\n", maps, launches);
}

/// Prints R timed launches of `flops` each: the median time and TFLOP/s, the fastest and slowest.
inline void printTflops(int repeat, const std::vector<double> &seconds, double flops) {
  const double median = seconds[seconds.size() / 2];
  std::printf("timed %d launches%s: median %.4f ms, %.2f TFLOP/s (fastest %.2f, slowest %.2f)\n", repeat,
              flushL2 ? " (each after a 128 MiB copy: L2 flushed)" : "", median * 1e3, flops / median / 1e12,
              flops / seconds.front() / 1e12, flops / seconds.back() / 1e12);
}
