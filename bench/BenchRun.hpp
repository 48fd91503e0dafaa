// Measuring one benchmark problem on one device: inputs, the correctness check, the timed
// launches, and the report (table and JSON).
#pragma once

#include "BenchKernels.hpp"

#include <functional>
#include <string>
#include <vector>

namespace tessera::bench {

struct Options {
  bool smoke = false;
  uint64_t rotateMiB = 0;  // argument sets rotate through at least this much memory
  uint32_t seed = 0;
  std::string json;
  std::string packageDir;  // tessera-bench-aot
};

/// One problem's outcome. Times are device times (Device::beginTiming) unless named host.
struct Measurement {
  Problem problem;
  bool ok = false;
  std::string error;         // why it failed (a check, a compile, a launch)
  bool unsupported = false;  // the device refused the kernel (a limit it lacks): reported, not a failure
  double medianMs = 0, minMs = 0;
  double gbps = 0;           // bytes / median
  double copyFraction = 0;   // gbps / the device's measured copy bandwidth
  uint64_t extraBytes = 0;   // device memory beyond inputs and outputs (kernels have no workspace)
  int launches = 0;          // timed launches
  int argumentSets = 0;      // rotated through
  double maxError = 0;       // of the check, in the check's unit
  std::string checkUnit;
  double loadMs = 0;         // host: Device::load (PTX JIT / pipeline creation)
  double firstLaunchMs = 0;  // host: the first launch until it finished
  std::vector<KernelStatistic> statistics; // what the driver reports about the machine code
};

struct CompileTime {
  std::string stem;
  double traceMs = 0;
  std::vector<std::pair<std::string, double>> ms; // per backend: trace-to-artifact milliseconds
  int repeats = 1;                                  // ms is the median of this many compiles
};

struct Report {
  std::string device, backend, driver;
  uint32_t seed = 0;
  double copyGBps = 0;
  std::string copyWhat;
  std::vector<std::pair<uint64_t, double>> copyBySize; // bytes, GB/s
  double launchOverheadUs = 0; // host time per launch, back to back, of the smallest problem
  std::string launchOverheadWhat;
  double rawLaunchUs = 0;      // the same loop straight through the driver, 0 = not measured
  std::string rawLaunchWhat;   // how, or why not
  std::vector<Measurement> results;
  std::vector<CompileTime> compile;
};

using PackageSource = std::function<Result<Package>(const Problem &)>;

/// Device-to-device copy bandwidth (Buffer::copyFrom of a large buffer), bytes read + written.
Status measureCopy(Device &dev, const Options &opt, Report &report);
/// Loads, checks and times one problem.
Measurement run(Device &dev, const Package &pkg, const Problem &p, const Options &opt, double copyGBps);
/// Host time per launch of `p` launched back to back (the runtime's per-launch overhead).
Status measureLaunchOverhead(Device &dev, const Problem &p, const PackageSource &packageFor, Report &report);

/// `launches` back-to-back launches of `kernel` (the add problem `p`) straight through the
/// driver: the host time per launch, and how the loop launches.
struct RawLoop {
  double us = 0;
  std::string what;
};
/// cuLaunchKernel alone (BenchRawCuda.cpp); Unsupported on other backends.
Result<RawLoop> rawCudaLaunchLoop(Device &dev, const Kernel &kernel, const Problem &p, int launches);
/// vkCmdDispatch, each with its bindings, push constants and a barrier, in one command buffer and
/// one submission (BenchRawVulkan.cpp); Unsupported on other backends.
Result<RawLoop> rawVulkanLaunchLoop(Device &dev, const Kernel &kernel, const Problem &p, int launches);

void printRow(const Measurement &m);
void printSummary(const Report &report);
Status writeJson(const std::string &path, const Report &report);

} // namespace tessera::bench
