// One problem on one device: fresh random inputs in several argument sets (rotated so that the
// timed launches read memory, not cache), the check against a CPU reference, the warm-up, the
// device-timed launches, and the report.
#include "BenchRun.hpp"

#include "report/Report.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace tessera::bench {

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

/// Uniform floats in [lo, hi) from splitmix64: fast enough for a GiB of inputs.
struct Random {
  uint64_t state;
  explicit Random(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  float uniform(float lo, float hi) { return lo + (hi - lo) * float(next() >> 40) * 0x1p-24f; }
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// One set of buffers for a launch, and the host data of set 0 for the check.
struct Arguments {
  std::vector<std::vector<Buffer>> sets; // per set: the problem's buffers in argument order
  int32_t n = 0;                         // the i32 scalar every kernel takes last
  std::vector<float> x, y;               // add: x, y; softmax: x; layernorm: x (as floats)
  std::vector<f16> x16, w16, b16;        // layernorm inputs
  size_t outIndex = 0;                   // which buffer is the output
  DType outType = DType::F32;
  size_t outCount = 0;
};

Status upload(Buffer &b, const void *data, size_t bytes) { return b.upload(data, bytes); }

Result<Arguments> makeArguments(Device &dev, const Problem &p, const Options &opt) {
  Arguments a;
  Random rng(opt.seed ^ std::hash<std::string>{}(p.work));
  const size_t elems = size_t(p.rows) * size_t(p.cols);
  std::vector<std::pair<DType, size_t>> layout; // buffers: dtype, count
  if (p.kernel == "add") {
    a.x.resize(elems), a.y.resize(elems);
    for (size_t i = 0; i < elems; ++i) a.x[i] = rng.uniform(-1000, 1000), a.y[i] = rng.uniform(-1000, 1000);
    layout = {{DType::F32, elems}, {DType::F32, elems}, {DType::F32, elems}};
    a.outIndex = 2;
  } else if (p.kernel == "softmax") {
    a.x.resize(elems);
    for (float &v : a.x) v = rng.uniform(-8, 8);
    layout = {{DType::F32, elems}, {DType::F32, elems}};
    a.outIndex = 1;
  } else {
    a.x16.resize(elems), a.w16.resize(size_t(p.cols)), a.b16.resize(size_t(p.cols));
    for (f16 &v : a.x16) v = f16::fromFloat(rng.uniform(-4, 4));
    for (f16 &v : a.w16) v = f16::fromFloat(rng.uniform(0, 1));
    for (f16 &v : a.b16) v = f16::fromFloat(rng.uniform(-1, 1));
    layout = {{DType::F16, elems}, {DType::F16, elems}, {DType::F16, size_t(p.cols)}, {DType::F16, size_t(p.cols)}};
    a.outIndex = 1;
    a.outType = DType::F16;
  }
  a.n = int32_t(p.cols);
  a.outCount = elems;
  // Enough sets that the timed launches cycle through more memory than any cache holds.
  const uint64_t perSet = p.bytes();
  const uint64_t want = opt.rotateMiB << 20;
  const int sets = int(std::clamp<uint64_t>((want + perSet - 1) / std::max<uint64_t>(perSet, 1), 1, 64));
  for (int s = 0; s < sets; ++s) {
    std::vector<Buffer> buffers;
    for (auto [dtype, count] : layout) {
      Result<Buffer> b = dev.allocate(dtype, count);
      if (!b) return b.status();
      buffers.push_back(*b);
    }
    Status st;
    if (p.kernel == "add") {
      st = upload(buffers[0], a.x.data(), elems * 4);
      if (st) st = upload(buffers[1], a.y.data(), elems * 4);
    } else if (p.kernel == "softmax") {
      st = upload(buffers[0], a.x.data(), elems * 4);
    } else {
      st = upload(buffers[0], a.x16.data(), elems * 2);
      if (st) st = upload(buffers[2], a.w16.data(), a.w16.size() * 2);
      if (st) st = upload(buffers[3], a.b16.data(), a.b16.size() * 2);
    }
    if (!st) return st;
    a.sets.push_back(std::move(buffers));
  }
  return a;
}

std::vector<KernelArg> launchArgs(const Arguments &a, int set) {
  std::vector<KernelArg> args;
  for (const Buffer &b : a.sets[size_t(set)]) args.emplace_back(b);
  args.emplace_back(a.n);
  return args;
}

double f16Ulp(double v) {
  int e = 0;
  std::frexp(std::max(std::fabs(v), 0x1p-14), &e); // |v| in [2^(e-1), 2^e)
  return std::ldexp(1.0, e - 11);
}

/// Checks set 0's output against a double-precision reference; returns the largest error in the
/// check's unit, or a failure naming the first element out of bounds.
Result<double> check(const Problem &p, const Arguments &a, Buffer &out, std::string &unit) {
  const size_t elems = a.outCount;
  std::vector<float> got(elems);
  std::vector<f16> got16;
  if (a.outType == DType::F16) {
    got16.resize(elems);
    if (Status s = out.download(got16.data(), elems * 2); !s) return s;
    for (size_t i = 0; i < elems; ++i) got[i] = got16[i].toFloat();
  } else if (Status s = out.download(got.data(), elems * 4); !s) {
    return s;
  }
  auto bad = [&](size_t i, double ref) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s: out[%zu] = %.9g, expected %.9g", p.work.c_str(), i, double(got[i]), ref);
    return Status(StatusCode::Internal, buf);
  };
  double worst = 0;
  if (p.kernel == "add") {
    unit = "exact";
    for (size_t i = 0; i < elems; ++i)
      if (got[i] != a.x[i] + a.y[i]) return bad(i, double(a.x[i] + a.y[i]));
    return 0.0;
  }
  const size_t cols = size_t(p.cols);
  for (size_t r = 0; r < size_t(p.rows); ++r) {
    if (p.kernel == "softmax") {
      unit = "relative";
      const float *x = &a.x[r * cols];
      double m = *std::max_element(x, x + cols), s = 0;
      for (size_t c = 0; c < cols; ++c) s += std::exp(double(x[c]) - m);
      for (size_t c = 0; c < cols; ++c) {
        double ref = std::exp(double(x[c]) - m) / s, err = std::fabs(got[r * cols + c] - ref) / ref;
        if (!(err <= 1e-5)) return bad(r * cols + c, ref);
        worst = std::max(worst, err);
      }
    } else {
      unit = "f16 ULP (of 1/4 below 1/4)";
      double mean = 0, var = 0;
      for (size_t c = 0; c < cols; ++c) mean += a.x16[r * cols + c].toFloat();
      mean /= double(cols);
      for (size_t c = 0; c < cols; ++c) var += std::pow(a.x16[r * cols + c].toFloat() - mean, 2);
      double rstd = 1 / std::sqrt(var / double(cols) + 1e-5);
      for (size_t c = 0; c < cols; ++c) {
        double ref = (a.x16[r * cols + c].toFloat() - mean) * rstd * a.w16[c].toFloat() + a.b16[c].toFloat();
        // One f16 ULP; near zero (|y| < 1/4, where the terms cancel) one ULP of 1/4 (as in example 03).
        double err = std::fabs(got[r * cols + c] - ref) / std::max(f16Ulp(ref), f16Ulp(0.25));
        if (!(err <= 1.0)) return bad(r * cols + c, ref);
        worst = std::max(worst, err);
      }
    }
  }
  return worst;
}

Status poison(Buffer &b) {
  std::vector<uint8_t> bytes(b.bytes(), 0xFF);
  return b.upload(bytes.data(), bytes.size());
}

/// Times `launch(i)` for i = 0, 1, ...: a few launches that estimate its time, then untimed ones
/// for about 0.1 s of device time (the GPU has idled through the host's reference check, and a
/// clock that is still rising would be measured too: examples/timing.hpp warms up the same
/// way), then enough for about 0.3 s of device time (smoke: 5 and no more warm-up). Device
/// time of each timed launch, in seconds.
Result<std::vector<double>> timeLaunches(Device &dev, const std::function<Status(int)> &launch, bool smoke) {
  if (Status s = dev.beginTiming(); !s) return s;
  for (int i = 0; i < (smoke ? 1 : 5); ++i)
    if (Status s = launch(i); !s) return (void)dev.endTiming(), s;
  Result<std::vector<double>> warm = dev.endTiming();
  if (!warm) return warm.status();
  const double estimate = std::max(median(*warm), 1e-7);
  for (int i = 0, n = smoke ? 0 : int(std::min(0.1 / estimate, 5000.0)); i < n; ++i)
    if (Status s = launch(i); !s) return s;
  const int reps = smoke ? 5 : int(std::clamp(0.3 / estimate, 20.0, 2000.0));
  if (Status s = dev.beginTiming(); !s) return s;
  for (int i = 0; i < reps; ++i)
    if (Status s = launch(i + 1); !s) return (void)dev.endTiming(), s;
  return dev.endTiming();
}

} // namespace

Status measureCopy(Device &dev, const Options &opt, Report &report) {
  uint64_t largest = opt.smoke ? (64ull << 20) : (2048ull << 20);
  const BackendInfo &bi = dev.backendInfo();
  if (bi.maxBufferBytes) largest = std::min<uint64_t>(largest, bi.maxBufferBytes);
  if (bi.memoryBytes) largest = std::min<uint64_t>(largest, bi.memoryBytes / 8);
  largest &= ~uint64_t(255);
  // Several sizes: a bandwidth that falls with the size shows a problem with large buffers.
  for (uint64_t bytes = std::min<uint64_t>(largest, 64ull << 20);; bytes = std::min(bytes * 4, largest)) {
    Result<Buffer> src = dev.allocate(DType::U8, bytes), dst = dev.allocate(DType::U8, bytes);
    if (!src || !dst) return !src ? src.status() : dst.status();
    Result<std::vector<double>> t = timeLaunches(dev, [&](int) { return dst->copyFrom(*src); }, opt.smoke);
    if (!t) return t.status();
    double gbps = 2.0 * double(bytes) / median(*t) / 1e9;
    report.copyBySize.push_back({bytes, gbps});
    report.copyGBps = gbps; // the largest size's: the roofline for data far larger than the caches
    report.copyWhat = "Buffer::copyFrom of " + std::to_string(bytes >> 20) + " MiB";
    if (bytes == largest) break;
  }
  return Status::success();
}

Measurement run(Device &dev, const Package &pkg, const Problem &p, const Options &opt, double copyGBps) {
  Measurement m{p};
  auto failed = [&](const Status &s) {
    m.ok = false;
    m.unsupported = s.code() == StatusCode::Unsupported;
    m.error = s.toString();
    return m;
  };
  auto t0 = Clock::now();
  Result<Module> module = dev.load(pkg);
  if (!module) return failed(module.status());
  m.loadMs = msSince(t0);
  Result<Kernel> kernel = module->kernel(p.kernel);
  if (!kernel) return failed(kernel.status());
  Result<Arguments> args = makeArguments(dev, p, opt);
  if (!args) return failed(args.status());
  m.argumentSets = int(args->sets.size());
  Buffer &out = args->sets[0][args->outIndex];
  if (Status s = poison(out); !s) return failed(s);
  const Grid grid = p.grid();
  t0 = Clock::now();
  if (Status s = kernel->launch(grid, launchArgs(*args, 0)); !s) return failed(s);
  if (Status s = dev.synchronize(); !s) return failed(s);
  m.firstLaunchMs = msSince(t0);
  Result<double> err = check(p, *args, out, m.checkUnit);
  if (!err) return failed(err.status());
  m.maxError = *err;
  const int sets = m.argumentSets;
  Result<std::vector<double>> t =
      timeLaunches(dev, [&](int i) { return kernel->launch(grid, launchArgs(*args, i % sets)); }, opt.smoke);
  if (!t) return failed(t.status());
  m.launches = int(t->size());
  m.medianMs = median(*t) * 1e3;
  m.minMs = *std::min_element(t->begin(), t->end()) * 1e3;
  m.gbps = double(p.bytes()) / (m.medianMs * 1e6);
  m.copyFraction = copyGBps > 0 ? m.gbps / copyGBps : 0;
  m.extraBytes = 0; // a Tessera kernel reads and writes only its argument buffers: no workspace
  // After the launches: the counts of those that ran a specialized variant are among them.
  m.statistics = kernel->statistics();
  m.ok = true;
  return m;
}

Status measureLaunchOverhead(Device &dev, const Problem &smallest, const PackageSource &packageFor, Report &report) {
  // One program of work per launch: the loop is bound by the host, not by the device. In the
  // first problem's mode (a run filtered to portable kernels has no fast package to load).
  Problem p = smallest;
  p.cols = p.block;
  p.rows = 1;
  Result<Package> pkg = packageFor(p);
  if (!pkg) return pkg.status();
  Result<Module> module = dev.load(*pkg);
  if (!module) return module.status();
  Result<Kernel> kernel = module->kernel(p.kernel);
  if (!kernel) return kernel.status();
  Options one;
  one.rotateMiB = 0;
  Result<Arguments> args = makeArguments(dev, p, one);
  if (!args) return args.status();
  const std::vector<KernelArg> launchArgsOf0 = launchArgs(*args, 0);
  constexpr int kLaunches = 200;
  for (int i = 0; i < 5; ++i)
    if (Status s = kernel->launch(p.grid(), launchArgsOf0); !s) return s;
  if (Status s = dev.synchronize(); !s) return s;
  auto t0 = Clock::now();
  for (int i = 0; i < kLaunches; ++i)
    if (Status s = kernel->launch(p.grid(), launchArgsOf0); !s) return s;
  if (Status s = dev.synchronize(); !s) return s;
  report.launchOverheadUs = msSince(t0) * 1e3 / kLaunches;
  report.launchOverheadWhat = std::to_string(kLaunches) + " back-to-back launches of " + p.kernel + " over one program of " +
                              std::to_string(p.block) + " elements (host wall / launch)";
  Result<RawLoop> raw = dev.backend() == Backend::CUDA ? rawCudaLaunchLoop(dev, *kernel, p, kLaunches)
                                                       : rawVulkanLaunchLoop(dev, *kernel, p, kLaunches);
  report.rawLaunchUs = raw ? raw->us : 0;
  report.rawLaunchWhat = raw ? raw->what : raw.status().message();
  return Status::success();
}

void printRow(const Measurement &m) {
  const Problem &p = m.problem;
  if (!m.ok) {
    std::printf("%-26s %-8s %s: %s\n", p.work.c_str(), p.mode().c_str(), m.unsupported ? "UNSUPPORTED" : "FAILED",
                m.error.c_str());
    return;
  }
  std::printf("%-26s %-8s %-20s %9.4f ms %7.0f GB/s %5.1f%% of copy  extra %llu B  (%d launches, %d sets; "
              "check %.3g %s)\n",
              p.work.c_str(), p.mode().c_str(), p.config().c_str(), m.medianMs, m.gbps, m.copyFraction * 100,
              (unsigned long long)m.extraBytes, m.launches, m.argumentSets, m.maxError, m.checkUnit.c_str());
  // The driver's figures about the machine code (registers, spills), where it reports them.
  if (!m.statistics.empty()) {
    std::string line = "    machine code:";
    for (const KernelStatistic &st : m.statistics) {
      char value[32];
      std::snprintf(value, sizeof value, "%.15g", st.value); // integers of up to 15 digits exactly
      line += " " + st.name + " " + value + ";";
    }
    line.pop_back();
    std::printf("%s\n", line.c_str());
  }
}

void printSummary(const Report &r) {
  if (r.launchOverheadUs > 0) std::printf("launch overhead: %.1f us per launch (%s)\n", r.launchOverheadUs, r.launchOverheadWhat.c_str());
  if (r.rawLaunchUs > 0)
    std::printf("raw driver loop: %.1f us per launch (%s): the runtime takes %.2fx\n", r.rawLaunchUs,
                r.rawLaunchWhat.c_str(), r.launchOverheadUs / r.rawLaunchUs);
  else if (!r.rawLaunchWhat.empty())
    std::printf("raw driver loop: not measured (%s)\n", r.rawLaunchWhat.c_str());
  for (const CompileTime &c : r.compile) {
    std::printf("compile %-24s trace %6.1f ms", c.stem.c_str(), c.traceMs);
    for (auto &[target, ms] : c.ms) std::printf("  %s %6.1f ms", target.c_str(), ms);
    if (c.repeats > 1) std::printf("  (median of %d)", c.repeats);
    std::printf("\n");
  }
  int failed = 0, unsupported = 0;
  for (const Measurement &m : r.results) (m.unsupported ? unsupported : failed) += !m.ok;
  std::printf("tessera-bench: %zu measured, %d unsupported, %d failed\n", r.results.size() - failed - unsupported,
              unsupported, failed);
}

Status writeJson(const std::string &path, const Report &r) {
  using conformance::appendJsonNumber;
  using conformance::appendJsonString;
  std::string j = "{\n  ";
  // `"name": value, ` for a string, a number or an integer.
  auto text = [&](const char *name, const std::string &v) { j += std::string("\"") + name + "\": ", appendJsonString(j, v), j += ", "; };
  auto number = [&](const char *name, double v) { j += std::string("\"") + name + "\": ", appendJsonNumber(j, v), j += ", "; };
  auto integer = [&](const char *name, uint64_t v) { j += std::string("\"") + name + "\": " + std::to_string(v) + ", "; };
  auto close = [&](const char *closing) { j.resize(j.size() - 2), j += closing; }; // drops the last ", "
  text("device", r.device); text("backend", r.backend); text("driver", r.driver);
  text("date", conformance::utcTimestamp()); integer("seed", r.seed);
  j += "\n  ";
  number("copy_gbps", r.copyGBps); text("copy", r.copyWhat); number("launch_overhead_us", r.launchOverheadUs);
  text("launch_overhead", r.launchOverheadWhat); number("raw_launch_us", r.rawLaunchUs); text("raw_launch", r.rawLaunchWhat);
  j += "\n  \"copy_by_size\": [";
  for (auto [bytes, gbps] : r.copyBySize) {
    j += "{";
    integer("bytes", bytes); number("gbps", gbps); close("}, ");
  }
  if (!r.copyBySize.empty()) j.resize(j.size() - 2);
  j += "],\n  \"results\": [";
  for (const Measurement &m : r.results) {
    const Problem &p = m.problem;
    j += "\n    {";
    text("work", p.work); text("kernel", p.kernel); text("mode", p.mode()); text("config", p.config());
    integer("bytes", p.bytes());
    j += std::string("\"checked\": ") + (m.ok ? "true" : "false") + ", \"unsupported\": " + (m.unsupported ? "true" : "false") + ", ";
    if (!m.ok) text("error", m.error);
    number("median_ms", m.medianMs); number("min_ms", m.minMs); number("gbps", m.gbps); number("copy_fraction", m.copyFraction);
    integer("extra_bytes", m.extraBytes); integer("launches", uint64_t(m.launches)); integer("argument_sets", uint64_t(m.argumentSets));
    number("max_error", m.maxError); text("error_unit", m.checkUnit); number("load_ms", m.loadMs);
    number("first_launch_ms", m.firstLaunchMs);
    j += "\"statistics\": {";
    for (const KernelStatistic &st : m.statistics) appendJsonString(j, st.name), j += ": ", appendJsonNumber(j, st.value), j += ", ";
    if (!m.statistics.empty()) j.resize(j.size() - 2);
    j += "}, ";
    close("},");
  }
  if (!r.results.empty()) j.pop_back();
  j += "\n  ],\n  \"compile\": [";
  for (const CompileTime &c : r.compile) {
    j += "\n    {";
    text("kernel", c.stem); number("trace_ms", c.traceMs);
    for (auto &[target, ms] : c.ms) number((target + "_ms").c_str(), ms);
    number("repeats", c.repeats);
    close("},");
  }
  if (!r.compile.empty()) j.pop_back();
  j += "\n  ]\n}\n";
  if (std::string e = conformance::writeFile(path, j); !e.empty()) return Status(StatusCode::InvalidArgument, e);
  return Status::success();
}

} // namespace tessera::bench
