// tessera-kernel-cache-fill DIR: compiles a fixed set of kernels for two targets through a
// KernelCache on DIR and prints "hits H misses M rebuilt R". CTest runs two at once on one
// directory, then a third that must find every entry whole (all hits).
#define DOCTEST_CONFIG_DISABLE // only the test kernels are used here
#include "TestSupport.hpp"

#include <cstdio>

int main(int argc, char **argv) {
  if (argc != 2) return std::fprintf(stderr, "usage: tessera-kernel-cache-fill DIR\n"), 2;
  tessera::KernelCache cache(argv[1]);
  for (int block : {128, 256, 512, 1024})
    for (uint32_t warps : {1u, 2u, 4u, 8u}) {
      auto k = tessera::test::traceVectorAdd(block, warps);
      if (!k) return std::fprintf(stderr, "%s\n", k.status().toString().c_str()), 1;
      for (const tessera::TargetDesc &t : {tessera::spirvTarget(8), tessera::nvptxTarget("sm_90")})
        if (auto pkg = cache.compile(*k, t); !pkg) return std::fprintf(stderr, "%s\n", pkg.status().toString().c_str()), 1;
    }
  tessera::KernelCacheStats s = cache.stats();
  std::printf("hits %llu misses %llu rebuilt %llu\n", (unsigned long long)s.hits, (unsigned long long)s.misses,
              (unsigned long long)s.rebuilt);
  return 0;
}
