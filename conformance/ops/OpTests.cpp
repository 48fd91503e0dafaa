// tessera-op-tests: every op of the tile language on every dtype it accepts, on masked tails
// and 2-D tiles, on every device and backend present, against a CPU reference (exact where
// the op is exact, a stated tolerance otherwise). Tolerances: docs/op-tests.md.
//
// `--write-packages=DIR` compiles every case for the test machines; the runtime-only build
// (TESSERA_OPTESTS_AOT) runs them from `--packages=DIR`.
#include "OpCases.hpp"

#include <cstdio>
#include <cstring>
#include <random>

using namespace tessera;
using namespace tessera::optests;

int main(int argc, char **argv) {
  std::string packages, write, only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--packages=", 11)) packages = argv[i] + 11;
    else if (!std::strncmp(argv[i], "--write-packages=", 17)) write = argv[i] + 17;
    else if (!std::strncmp(argv[i], "--family=", 9)) only = argv[i] + 9;
    else {
      std::fprintf(stderr, "usage: %s [--family=F] [--write-packages=DIR] [--packages=DIR]\n", argv[0]);
      return 2;
    }
  }
  std::vector<OpCase> cases = allCases();
  Package pkg;
#ifndef TESSERA_OPTESTS_AOT
  if (packages.empty()) {
    std::vector<TracedKernel> kernels;
    for (OpCase &c : cases) {
      Result<TracedKernel> k = c.trace();
      if (!k) {
        std::printf("FAIL %s: trace: %s\n", c.name.c_str(), k.status().toString().c_str());
        return 1;
      }
      kernels.push_back(*k);
    }
    std::vector<TargetDesc> targets{nvptxTarget("sm_90"), spirvTarget(8), spirvTarget(32)};
    if (!write.empty()) {
      Result<Package> all = compile(kernels, targets);
      if (!all || !writePackageFile(write + "/op_tests.tspkg", *all)) {
        std::printf("cannot write the op-test package: %s\n", all.status().toString().c_str());
        return 1;
      }
      std::printf("wrote %s/op_tests.tspkg (%zu kernels)\n", write.c_str(), kernels.size());
    }
    // Here every device compiles for its own target below.
    for (size_t i = 0; i < cases.size(); ++i)
      cases[i].traced = kernels[i];
  } else
#endif
  {
    Result<Package> p = readPackageFile(packages + "/op_tests.tspkg");
    if (!p) {
      std::printf("cannot read packages: %s\n", p.status().toString().c_str());
      return 1;
    }
    pkg = *p;
  }

  unsigned seed = std::random_device{}();
  std::printf("tessera-op-tests: seed %u\n", seed);
  auto rt = Runtime::create();
  if (!rt) {
    std::printf("runtime: %s\n", rt.status().toString().c_str());
    return 1;
  }
  int passed = 0, failed = 0;
  for (const DeviceInfo &info : (*rt)->devices())
    for (const BackendInfo &b : info.backends) {
      auto dev = (*rt)->open(info.index, b.backend);
      if (!dev) {
        std::printf("FAIL open %s: %s\n", info.name.c_str(), dev.status().toString().c_str());
        ++failed;
        continue;
      }
      Package devicePkg = pkg;
#ifndef TESSERA_OPTESTS_AOT
      if (packages.empty()) {
        std::vector<TracedKernel> ks;
        for (OpCase &c : cases)
          if (only.empty() || c.family == only)
            ks.push_back(*c.traced);
        TargetDesc t = (*dev)->target();
        Result<Package> p = compile(ks, std::span(&t, 1));
        if (!p) {
          std::printf("FAIL compile for %s: %s\n", (*dev)->describe().c_str(), p.status().toString().c_str());
          ++failed;
          continue;
        }
        devicePkg = *p;
      }
#endif
      Result<Module> module = (*dev)->load(devicePkg);
      if (!module) {
        std::printf("FAIL load on %s: %s\n", (*dev)->describe().c_str(), module.status().toString().c_str());
        ++failed;
        continue;
      }
      std::mt19937 rng(seed);
      for (OpCase &c : cases) {
        if (!only.empty() && c.family != only)
          continue;
        Result<Kernel> k = module->kernel(c.name);
        std::string error = k ? c.run(**dev, *k, rng) : k.status().toString();
        if (error.empty()) {
          ++passed;
        } else {
          ++failed;
          std::printf("FAIL %-7s %-28s %s: %s\n", toString(b.backend), c.name.c_str(), info.name.c_str(), error.c_str());
        }
      }
      std::printf("%s via %s: done\n", info.name.c_str(), toString(b.backend));
    }
  std::printf("tessera-op-tests: %d passed, %d failed (seed %u)\n", passed, failed, seed);
  return failed || passed == 0 ? 1 : 0;
}
