// The examples' --repeat=R timing. After the host's check the device has been idle for seconds,
// so launches first run for about 200 ms (each waited for) until clocks, caches and the driver are
// as in steady work; then R launches are timed by the device itself. Returns their seconds,
// fastest first.
#pragma once

#include "tessera/runtime/Runtime.hpp"

#include <algorithm>
#include <chrono>
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
