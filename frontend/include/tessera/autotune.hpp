// Autotuning: the fastest of a list of kernel configurations, measured on the device itself and
// remembered per device and shape bucket.
//
//   std::vector<tessera::TuneConfig> configs{{{{"BLOCK", 1024}}, 4}, {{{"BLOCK", 2048}}, 8}};
//   tessera::Autotuner tuner;                       // cache file under TESSERA_CACHE_DIR
//   auto tuned = tuner.tune(*device, "softmax", tessera::shapeBucket({rows, cols}), configs,
//       [&](const tessera::TuneConfig &c) { return traceSoftmax(c.get("BLOCK"), c.numWarps); },
//       [&](const tessera::Kernel &k, const tessera::TuneConfig &c) { return k.launch(grid(c), args); });
//   tuned->kernel.launch(...);                      // the winner, compiled for the device
#pragma once

#include "tessera/compiler.hpp"
#include "tessera/runtime/Runtime.hpp"

#include <functional>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tessera {

/// One configuration: named integer parameters (tile sizes, ...) and the warps per program.
struct TuneConfig {
  std::vector<std::pair<std::string, int64_t>> params;
  uint32_t numWarps = 4;
  /// The value of parameter `name` (0 when there is none).
  int64_t get(const std::string &name) const;
  /// "BLOCK=1024,warps=4": how the configuration is named in the cache and in messages.
  std::string key() const;
};

/// The bucket of a problem shape: each extent rounded up to a power of two, "4096x1024".
std::string shapeBucket(std::initializer_list<int64_t> dims);

/// What `Autotuner::tune` gives: the winning configuration, its kernel loaded on the device, and
/// how it was chosen.
struct Tuned {
  TuneConfig config;
  Module module;
  Kernel kernel;
  bool fromCache = false;                                 // no measurement was made
  std::vector<std::pair<std::string, double>> seconds;    // per configuration measured: median device time
  std::vector<std::pair<std::string, std::string>> skipped; // configurations that failed, and why
};

/// Picks the fastest configuration by device-side timing (Device::beginTiming) and caches the
/// choice per device (name, backend, driver version), kernel name and shape bucket: in memory, and
/// in a text file when one is given (default: $TESSERA_CACHE_DIR/autotune.txt, else
/// ~/.cache/tessera/autotune.txt). A corrupt or unknown cache line is ignored, never trusted; the
/// file is rewritten whole through a temporary file. One Autotuner may be shared by threads.
class Autotuner {
public:
  using Build = std::function<Result<TracedKernel>(const TuneConfig &)>;
  /// Launches the kernel once for a problem (it may launch several kernels; all are timed).
  using Launch = std::function<Status(const Kernel &, const TuneConfig &)>;

  /// `cacheFile` "" = the default path; "-" = memory only.
  explicit Autotuner(std::string cacheFile = "");
  /// The best of `configs` for `device` and `bucket`. Each configuration is traced, compiled for
  /// the device, loaded, launched `warmup` times and then `reps` times under device timing; the
  /// median decides. Configurations that fail to trace, compile, load or launch are skipped with
  /// their reason; when every one fails, the error lists them all.
  Result<Tuned> tune(Device &device, const std::string &kernelName, const std::string &bucket,
                     std::span<const TuneConfig> configs, const Build &build, const Launch &launch, int reps = 20,
                     int warmup = 3);
  /// The cache file in use ("" when memory only).
  const std::string &cacheFile() const { return file_; }

private:
  std::string file_;
  std::mutex mutex_;
  std::map<std::string, std::string> cache_; // "device|backend|driver|kernel|bucket" -> config key
  bool loaded_ = false;
  void load();
  Status save();
};

} // namespace tessera
