// tessera-conformance: runs every conformance case on every device and backend present and
// checks the results bit for bit against the CPU. Exit code 0 only if every case passed.
//
// Built with TESSERA_CONFORMANCE_AOT it has no compiler and loads the packages that
// `tessera-conformance --write-packages=DIR` wrote (for machines that carry only the runtime).
#include "Cases.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace tessera::conformance {
namespace {

struct Outcome {
  std::string device, backend, kase;
  bool pass = false;
  std::string detail;
};

/// Launches `kernel` over enough programs for `programs`, folding the grid into 2-D when one
/// axis would exceed the device's limit (the kernels linearize program ids).
Status launchLinear(const Kernel &kernel, const Device &dev, uint32_t programs, std::span<const KernelArg> args) {
  uint32_t gx = std::min(programs, dev.backendInfo().maxGroupCount[0]);
  uint32_t gy = (programs + gx - 1) / gx;
  return kernel.launch({gx, gy}, args);
}

/// out[i] = x[i] + y[i] for n elements. The output buffer has a guard region past n, poisoned
/// like the rest, that must survive: masked-off lanes may not write.
Outcome runVectorAdd(Device &dev, const Package &pkg, const VectorAddCase &c, std::mt19937 &rng) {
  Outcome o{dev.info().name, toString(dev.backend()), c.name()};
  auto fail = [&](const std::string &what, const Status &s) {
    o.detail = what + ": " + s.toString();
    return o;
  };
  constexpr size_t kGuard = 67;
  size_t n = c.n;
  std::uniform_real_distribution<float> dist(-1e4f, 1e4f);
  std::vector<float> x(n), y(n), out(n + kGuard);
  for (size_t i = 0; i < n; ++i) {
    x[i] = dist(rng);
    y[i] = dist(rng);
  }
  const uint32_t poison = 0x7fc0dead; // a NaN no kernel computes here
  for (float &v : out)
    std::memcpy(&v, &poison, 4);

  Result<Module> module = dev.load(pkg);
  if (!module)
    return fail("load", module.status());
  Result<Kernel> kernel = module->kernel("vector_add");
  if (!kernel)
    return fail("kernel", kernel.status());
  auto bx = dev.allocate(DType::F32, n), by = dev.allocate(DType::F32, n), bo = dev.allocate(DType::F32, n + kGuard);
  for (auto *b : {&bx, &by, &bo})
    if (!*b)
      return fail("allocate", b->status());
  for (auto [b, h] : {std::pair{&*bx, &x}, {&*by, &y}, {&*bo, &out}})
    if (Status s = b->upload(std::span<const float>(*h)); !s)
      return fail("upload", s);
  uint32_t programs = uint32_t((n + c.block - 1) / c.block);
  if (programs > 0) {
    KernelArg args[] = {*bx, *by, *bo, int32_t(n)};
    if (Status s = launchLinear(*kernel, dev, programs, args); !s)
      return fail("launch", s);
  }
  if (Status s = bo->download(std::span<float>(out)); !s)
    return fail("download", s);
  for (size_t i = 0; i < n + kGuard; ++i) {
    float expect = i < n ? x[i] + y[i] : out[i];
    uint32_t got, want;
    std::memcpy(&got, &out[i], 4);
    std::memcpy(&want, &expect, 4);
    if (i >= n)
      want = poison;
    if (got != want) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "first difference at [%zu]%s: got 0x%08x, expected 0x%08x", i,
                    i >= n ? " (past the end: a masked lane wrote)" : "", got, want);
      o.detail = buf;
      return o;
    }
  }
  o.pass = true;
  return o;
}

int run(int argc, char **argv) {
  std::string packageDir, writeDir;
  for (int i = 1; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--packages=", 11))
      packageDir = argv[i] + 11;
    else if (!std::strncmp(argv[i], "--write-packages=", 17))
      writeDir = argv[i] + 17;
    else {
      std::fprintf(stderr, "usage: %s [--write-packages=DIR] [--packages=DIR]\n", argv[0]);
      return 2;
    }
  }
  unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  std::printf("tessera-conformance: seed %u\n", seed);

  KernelSource source(packageDir);
  if (!writeDir.empty()) {
    if (Status s = source.writePackages(writeDir); !s) {
      std::fprintf(stderr, "tessera-conformance: %s\n", s.toString().c_str());
      return 1;
    }
    std::printf("wrote packages to %s\n", writeDir.c_str());
  }

  auto rt = Runtime::create();
  if (!rt) {
    std::fprintf(stderr, "tessera-conformance: %s\n", rt.status().toString().c_str());
    return 1;
  }
  for (const BackendAbsence &a : (*rt)->absentBackends())
    std::printf("absent: %s: %s\n", toString(a.backend), a.reason.c_str());
  std::vector<Outcome> outcomes;
  for (const DeviceInfo &info : (*rt)->devices()) {
    for (const BackendInfo &b : info.backends) {
      auto dev = (*rt)->open(info.index, b.backend);
      if (!dev) {
        outcomes.push_back({info.name, toString(b.backend), "open", false, dev.status().toString()});
        continue;
      }
      for (const VectorAddCase &c : vectorAddCases()) {
        Result<Package> pkg = source.vectorAdd(c.block, (*dev)->target());
        Outcome o = pkg ? runVectorAdd(**dev, *pkg, c, rng)
                        : Outcome{info.name, toString(b.backend), c.name(), false, pkg.status().toString()};
        std::printf("  %-4s %-44.44s %-7s %-28s %s\n", o.pass ? "ok" : "FAIL", o.device.c_str(),
                    o.backend.c_str(), o.kase.c_str(), o.detail.c_str());
        std::fflush(stdout);
        outcomes.push_back(std::move(o));
      }
    }
  }
  size_t failed = std::count_if(outcomes.begin(), outcomes.end(), [](const Outcome &o) { return !o.pass; });
  std::printf("tessera-conformance: %zu cases, %zu passed, %zu failed (seed %u)\n", outcomes.size(),
              outcomes.size() - failed, failed, seed);
  if (outcomes.empty()) {
    std::printf("tessera-conformance: no device present, nothing was checked\n");
    return 1;
  }
  return failed ? 1 : 0;
}

} // namespace
} // namespace tessera::conformance

int main(int argc, char **argv) { return tessera::conformance::run(argc, argv); }
