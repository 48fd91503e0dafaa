// tessera-bench: times the benchmark kernels on the default device (TESSERA_DEVICE / TESSERA_BACKEND
// choose another), after checking each against a CPU reference: device-side median over many
// launches, input sets rotated through more memory than the last-level cache holds, GB/s and the
// fraction of the device's measured copy bandwidth. tessera-bench-aot (TESSERA_BENCH_AOT) runs the
// packages that `tessera-bench --write-packages=DIR` wrote, with the runtime only.
#include "BenchKernels.hpp"
#include "BenchRun.hpp"
#ifndef TESSERA_BENCH_AOT
#include "BenchTrace.hpp"
#endif

#include "tessera/runtime/Runtime.hpp"
#include "vulkan/VulkanFeatures.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <string>

using namespace tessera;
using namespace tessera::bench;

namespace {

const char *kUsage = R"(usage: tessera-bench [options]

Times vector add (f32), row softmax (f32) and layernorm forward (f16) at three sizes each, in fast
and portable mode, on the default device (TESSERA_DEVICE / TESSERA_BACKEND pick another). Every
kernel is checked against a CPU reference before it is timed.

  --smoke             small sizes and few launches (a CPU Vulkan driver runs it in seconds)
  --filter=TEXT       only work items whose name contains TEXT ("softmax", "n=2^28", ...)
  --mode=fast|portable  only one numerics mode
  --json=FILE         write the results as JSON (bench/ratios.py reads it)
  --rotate-mib=N      rotate argument sets through at least N MiB (default 1024; --smoke 4)
  --add-sizes=LIST    the vector add's element counts instead of 2^20,2^24,2^28 ("2^26,100000")
  --seed=N            the input seed (default: random, printed)
  --warps=N           the row kernels' (softmax, layernorm) warps per program, 1 to 32, instead of
                      the per-size choice (to measure others)
  --packages=DIR      read the kernels from DIR/<kernel>_b<BLOCK>_w<warps>_<mode>_sg<subgroup>.tspkg (-aot)
  --write-packages=DIR  also write each kernel's package for every target there (tessera-bench)
  --subgroups=LIST    with --compile-only: the subgroup sizes to compile for (default 8,32; 32 adds PTX)
  --compile-only      trace and compile (time it, write packages), launch nothing (tessera-bench)
  --soft-denormals    portable kernels through their software-f32-denormal SPIR-V (what a Vulkan
                      driver that flushes f32 denormals runs), on any Vulkan device
  --hard-denormals    portable kernels through their plain SPIR-V, its f32 DenormPreserve mode
                      dropped, even where the Vulkan driver flushes f32 denormals: what the
                      software denormals cost (the results may then differ from the interpreter's
                      where denormals occur; to measure)
  --compile-repeat=N  compile each kernel N times for each backend and report the median (the
                      first compile in a process also pays for loading the backends)
)";

bool flag(const char *arg, const char *name, std::string &value) {
  size_t n = std::strlen(name);
  if (std::strncmp(arg, name, n) != 0) return false;
  value = arg + n;
  return true;
}

/// --hard-denormals: a portable SPIR-V artifact without its `OpExecutionMode ... DenormPreserve 32`
/// (and without the DenormPreserve capability once no such mode is left: the Vulkan driver's own
/// strip), so that a driver that does not promise to keep f32 denormals loads it and runs it with
/// its own handling of them.
void dropF32DenormPreserve(Artifact &a) {
  std::vector<uint32_t> words(a.code.size() / 4);
  std::memcpy(words.data(), a.code.data(), words.size() * 4);
  words = vulkan::stripMeasuredDenormPreserve(words, {false, true, false}); // widths 16, 32, 64
  a.code.resize(words.size() * 4);
  std::memcpy(a.code.data(), words.data(), a.code.size());
}

/// A whole number from lo to hi, all of `text`.
bool count(const std::string &text, long lo, long hi, uint32_t &out) {
  char *rest = nullptr;
  long n = std::strtol(text.c_str(), &rest, 10);
  if (text.empty() || *rest || n < lo || n > hi) return false;
  out = uint32_t(n);
  return true;
}

} // namespace

int main(int argc, char **argv) {
  Options opt;
  opt.seed = std::random_device{}();
  std::string filter, mode, writeDir, value;
  bool compileOnly = false;
  std::vector<uint32_t> subgroups{8, 32};
  std::vector<int64_t> addSizes;
  uint32_t rowWarps = 0;
  uint32_t compileRepeat = 1;
  bool softDenormals = false, hardDenormals = false;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!std::strcmp(a, "--help") || !std::strcmp(a, "-h")) return std::fputs(kUsage, stdout), 0;
    if (!std::strcmp(a, "--smoke")) opt.smoke = true;
    else if (!std::strcmp(a, "--compile-only")) compileOnly = true;
    else if (!std::strcmp(a, "--soft-denormals")) softDenormals = true;
    else if (!std::strcmp(a, "--hard-denormals")) hardDenormals = true;
    else if (flag(a, "--filter=", filter)) {}
    else if (flag(a, "--mode=", mode)) {
      if (mode != "fast" && mode != "portable") return std::fprintf(stderr, "tessera-bench: --mode is fast or portable\n"), 2;
    } else if (flag(a, "--json=", opt.json)) {}
    else if (flag(a, "--rotate-mib=", value)) opt.rotateMiB = std::strtoull(value.c_str(), nullptr, 10);
    else if (flag(a, "--warps=", value)) {
      if (!count(value, 1, 32, rowWarps))
        return std::fprintf(stderr, "tessera-bench: --warps: '%s' is not a warp count from 1 to 32\n", value.c_str()), 2;
    }
    else if (flag(a, "--compile-repeat=", value)) {
      if (!count(value, 1, 1000, compileRepeat))
        return std::fprintf(stderr, "tessera-bench: --compile-repeat: '%s' is not a count from 1 to 1000\n", value.c_str()), 2;
    }
    else if (flag(a, "--seed=", value)) opt.seed = uint32_t(std::strtoul(value.c_str(), nullptr, 10));
    else if (flag(a, "--packages=", opt.packageDir)) {}
    else if (flag(a, "--write-packages=", writeDir)) {}
    else if (flag(a, "--add-sizes=", value)) {
      for (size_t at = 0; at < value.size();) {
        size_t end = std::min(value.find(',', at), value.size());
        std::string item = value.substr(at, end - at);
        char *rest = nullptr;
        const bool power = item.rfind("2^", 0) == 0;
        int64_t n = std::strtoll(item.c_str() + (power ? 2 : 0), &rest, 10);
        if (power) n = n >= 0 && n <= 30 ? int64_t(1) << n : 0;
        if (item.empty() || *rest || n < 1 || n > (int64_t(1) << 30))
          return std::fprintf(stderr, "tessera-bench: --add-sizes: '%s' is not an element count from 1 to 2^30\n", item.c_str()), 2;
        addSizes.push_back(n);
        at = end + 1;
      }
    }
    else if (flag(a, "--subgroups=", value)) {
      subgroups.clear();
      for (size_t at = 0; at < value.size();) {
        subgroups.push_back(uint32_t(std::strtoul(value.c_str() + at, nullptr, 10)));
        at = value.find(',', at);
        at = at == std::string::npos ? value.size() : at + 1;
      }
    }
    else return std::fprintf(stderr, "tessera-bench: unknown option '%s'\n%s", a, kUsage), 2;
  }
  if (opt.smoke && opt.rotateMiB == 0) opt.rotateMiB = 4;
  if (opt.rotateMiB == 0) opt.rotateMiB = 1024;

  auto rt = Runtime::create();
  if (!rt) return std::fprintf(stderr, "tessera-bench: %s\n", rt.status().toString().c_str()), 2;
  auto device = (*rt)->openDefault();
  if (!device) return std::fprintf(stderr, "tessera-bench: %s\n", device.status().toString().c_str()), 2;
  Device &dev = **device;
  if ((softDenormals || hardDenormals) && dev.backend() != Backend::Vulkan)
    return std::fprintf(stderr, "tessera-bench: --%s-denormals is for Vulkan devices; %s is not one\n",
                        softDenormals ? "soft" : "hard", dev.describe().c_str()), 2;
  if (softDenormals && hardDenormals)
    return std::fprintf(stderr, "tessera-bench: --soft-denormals and --hard-denormals exclude each other\n"), 2;

  // Warps are chosen per subgroup size: the device's, or (compiling packages) each one asked for.
  std::vector<Problem> work;
  const std::vector<uint32_t> forSubgroups =
      compileOnly ? subgroups : std::vector<uint32_t>{dev.backendInfo().subgroupSize};
  for (uint32_t sg : forSubgroups)
    for (const Problem &p : problems(opt.smoke, sg, addSizes, rowWarps))
      if ((filter.empty() || p.work.find(filter) != std::string::npos) && (mode.empty() || p.mode() == mode))
        work.push_back(p);

  Report report;
  report.device = dev.info().name;
  report.backend = toString(dev.backend());
  report.driver = dev.backendInfo().driverVersion;
  report.seed = opt.seed;
  std::printf("tessera-bench on %s (driver %s), seed %u%s\n", dev.describe().c_str(), report.driver.c_str(), opt.seed,
              opt.smoke ? ", smoke sizes" : "");

#ifdef TESSERA_BENCH_AOT
  if (opt.packageDir.empty()) return std::fprintf(stderr, "tessera-bench-aot: give --packages=DIR\n"), 2;
  auto packageFor = [&](const Problem &p) -> Result<Package> {
    Result<Package> pkg = readPackageFile(opt.packageDir + "/" + p.stem() + ".tspkg");
    if (pkg && (softDenormals || hardDenormals) && p.portable)
      for (KernelEntry &k : pkg->kernels) {
        std::erase_if(k.artifacts, [&](const Artifact &a) {
          return a.target.kind != TargetKind::SPIRV || hasSoftDenormals(a.target.chip) != softDenormals;
        });
        if (hardDenormals)
          for (Artifact &a : k.artifacts) dropF32DenormPreserve(a);
      }
    return pkg;
  };
#else
  if (!writeDir.empty()) std::filesystem::create_directories(writeDir);
  std::map<std::string, Package> compiled; // by stem: the add kernel serves every size
  auto packageFor = [&](const Problem &p) -> Result<Package> {
    if (auto it = compiled.find(p.stem()); it != compiled.end()) return it->second;
    auto t0 = std::chrono::steady_clock::now();
    Result<TracedKernel> kernel = traceProblem(p);
    if (!kernel) return kernel.status();
    CompileTime ct{p.stem(), std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count()};
    // Trace-to-artifact cost per backend, on this machine (PTX for sm_90, SPIR-V for the subgroup).
    for (const TargetDesc &t : {nvptxTarget("sm_90"), spirvTarget(p.subgroup)}) {
      std::vector<double> times;
      for (uint32_t i = 0; i < compileRepeat; ++i) {
        auto c0 = std::chrono::steady_clock::now();
        Result<Artifact> a = compileArtifact(*kernel, t);
        if (!a) return a.status();
        times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - c0).count());
      }
      std::sort(times.begin(), times.end());
      ct.ms.push_back({t.kind == TargetKind::PTX ? "ptx" : "spirv", times[times.size() / 2]});
    }
    ct.repeats = int(compileRepeat);
    report.compile.push_back(ct);
    if (!writeDir.empty()) {
      std::vector<TargetDesc> all{spirvTarget(p.subgroup), spirvTarget(p.subgroup, true)};
      if (p.subgroup == 32) all.push_back(nvptxTarget("sm_90"));
      Result<Package> pkg = compile(std::span(&*kernel, 1), all);
      if (!pkg) return pkg.status();
      if (Status s = writePackageFile(writeDir + "/" + p.stem() + ".tspkg", *pkg); !s) return s;
    }
    if (compileOnly) return Package{};
    const bool chosen = (softDenormals || hardDenormals) && p.portable && dev.backend() == Backend::Vulkan;
    Result<Package> pkg =
        compile(*kernel, chosen ? spirvTarget(dev.backendInfo().subgroupSize, softDenormals) : dev.target());
    if (pkg && hardDenormals && p.portable && dev.backend() == Backend::Vulkan)
      for (KernelEntry &k : pkg->kernels)
        for (Artifact &a : k.artifacts) dropF32DenormPreserve(a);
    if (pkg) compiled[p.stem()] = *pkg;
    return pkg;
  };
#endif

#ifdef TESSERA_BENCH_AOT
  if (compileOnly) return std::fprintf(stderr, "tessera-bench-aot: --compile-only needs the compiler (tessera-bench)\n"), 2;
#endif
  int failures = 0;
  if (compileOnly) {
    for (const Problem &p : work)
      if (Result<Package> pkg = packageFor(p); !pkg)
        ++failures, std::fprintf(stderr, "tessera-bench: %s: %s\n", p.work.c_str(), pkg.status().toString().c_str());
  } else {
    if (Status s = measureCopy(dev, opt, report); !s) {
      std::fprintf(stderr, "tessera-bench: copy bandwidth not measured: %s\n", s.toString().c_str());
    } else {
      std::printf("device copy (read + write):");
      for (auto [bytes, gbps] : report.copyBySize) std::printf("  %llu MiB %.0f GB/s", (unsigned long long)(bytes >> 20), gbps);
      std::printf("\n");
    }
    for (const Problem &p : work) {
      Result<Package> pkg = packageFor(p);
      Measurement m = pkg ? run(dev, *pkg, p, opt, report.copyGBps) : Measurement{p, false, pkg.status().toString()};
      if (!m.ok && !m.unsupported) ++failures;
      printRow(m);
      report.results.push_back(std::move(m));
    }
    if (!work.empty())
      if (Status s = measureLaunchOverhead(dev, work.front(), packageFor, report); !s)
        std::fprintf(stderr, "tessera-bench: launch overhead not measured: %s\n", s.toString().c_str());
  }
  printSummary(report);
  if (!opt.json.empty())
    if (Status s = writeJson(opt.json, report); !s) return std::fprintf(stderr, "tessera-bench: %s\n", s.toString().c_str()), 2;
  return failures ? 1 : 0;
}
