// The examples' --repeat=R timing. After the host's check the device has been idle for seconds,
// so launches first run for about 200 ms (each waited for) until clocks, caches and the driver are
// as in steady work; then R launches are timed by the device itself. Returns their seconds,
// fastest first.
#pragma once

#include "tessera/runtime/Runtime.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

inline tessera::Result<std::vector<double>> timeLaunches(tessera::Device &dev, int repeat,
                                                         const std::function<tessera::Status()> &launch) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 3 || std::chrono::steady_clock::now() - start < std::chrono::milliseconds(200); ++i) {
    if (tessera::Status s = launch(); !s) return s;
    if (tessera::Status s = dev.synchronize(); !s) return s;
  }
  if (tessera::Status s = dev.beginTiming(); !s) return s;
  for (int i = 0; i < repeat; ++i)
    if (tessera::Status s = launch(); !s) return s;
  tessera::Result<std::vector<double>> seconds = dev.endTiming();
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
  std::printf("timed %d launches: median %.4f ms, %.2f TFLOP/s (fastest %.2f, slowest %.2f)\n", repeat, median * 1e3,
              flops / median / 1e12, flops / seconds.front() / 1e12, flops / seconds.back() / 1e12);
}
