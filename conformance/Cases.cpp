// The conformance kernels, traced with the tile language, and the case list.
#include "Cases.hpp"

#ifndef TESSERA_CONFORMANCE_AOT
#include "tessera/tessera.hpp"
#endif

namespace tessera::conformance {

const std::vector<VectorAddCase> &vectorAddCases() {
  static const std::vector<VectorAddCase> cases = [] {
    std::vector<VectorAddCase> v;
    for (int block : {128, 1024})
      for (long n : {0L, 1L, 1023L, 1024L, 1025L, (1L << 24) + 3})
        v.push_back({n, block});
    return v;
  }();
  return cases;
}

static std::string packageName(int block) { return "vector_add_b" + std::to_string(block) + ".tspkg"; }

#ifndef TESSERA_CONFORMANCE_AOT
namespace tl = tessera::tl;

static Result<TracedKernel> traceVectorAdd(int BLOCK) {
  auto add = [BLOCK](tl::Ptr<float> x, tl::Ptr<float> y, tl::Ptr<float> out, tl::Scalar<int32_t> n) {
    tl::Tile pid = tl::program_id(0) + tl::program_id(1) * tl::num_programs(0);
    tl::Tile offs = pid * BLOCK + tl::arange(0, BLOCK);
    tl::Tile mask = offs < n;
    tl::store(out + offs, tl::load(x + offs, mask) + tl::load(y + offs, mask), mask);
  };
  return trace("vector_add", add, {.numWarps = 4, .argNames = {"x", "y", "out", "n"}});
}
#endif

Result<Package> KernelSource::vectorAdd(int block, const TargetDesc &target) {
  auto key = std::make_tuple(block, target.kind, target.chip, target.subgroupSize);
  if (auto it = cache_.find(key); it != cache_.end())
    return it->second;
  Result<Package> pkg = Status(StatusCode::Unavailable, "this build has no compiler; pass --packages=DIR");
  if (!packageDir_.empty()) {
    pkg = readPackageFile(packageDir_ + "/" + packageName(block));
  } else {
#ifndef TESSERA_CONFORMANCE_AOT
    Result<TracedKernel> k = traceVectorAdd(block);
    if (!k)
      return k.status();
    pkg = compile(*k, target);
#endif
  }
  if (pkg)
    cache_.emplace(key, *pkg);
  return pkg;
}

Status KernelSource::writePackages(const std::string &dir) {
#ifdef TESSERA_CONFORMANCE_AOT
  (void)dir;
  return Status(StatusCode::Unavailable, "this build has no compiler: it cannot write packages");
#else
  // What the GPU test machine (CUDA sm_90, NVIDIA Vulkan: subgroup 32) and lavapipe (8) run.
  std::vector<TargetDesc> targets{nvptxTarget("sm_90"), spirvTarget(8), spirvTarget(32)};
  for (int block : {128, 1024}) {
    Result<TracedKernel> k = traceVectorAdd(block);
    if (!k)
      return k.status();
    Result<Package> pkg = compile(std::span(&*k, 1), targets);
    if (!pkg)
      return pkg.status();
    if (Status s = writePackageFile(dir + "/" + packageName(block), *pkg); !s)
      return s;
  }
  return Status();
#endif
}

} // namespace tessera::conformance
