// The Vulkan pipeline cache on disk: written when a device closes, read when the next one opens,
// a damaged file ignored (and replaced), never handed to the driver.
#include "TestSupport.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

using namespace tessera;
using namespace tessera::test;
namespace fs = std::filesystem;

namespace {

/// Opens every Vulkan device, loads and runs add_scalar on it, and closes it.
int useEveryVulkanDevice() {
  std::shared_ptr<Runtime> rt = runtime();
  int used = 0;
  for (const TargetRef &t : everyTarget(*rt)) {
    if (t.backend != Backend::Vulkan) continue;
    std::shared_ptr<Device> dev = openTarget(*rt, t);
    Result<Module> module = dev->load(packageFor(*dev));
    REQUIRE_MESSAGE(module.ok(), module.status().toString());
    Result<Kernel> k = module->kernel("add_scalar");
    REQUIRE(k.ok());
    Buffer a = *dev->allocate(DType::F32, 64), out = *dev->allocate(DType::F32, 64);
    std::vector<float> host(64, 2.0f), result(64, 0.0f);
    REQUIRE(a.upload(std::span<const float>(host)).ok());
    REQUIRE(k->launch({1}, {a, out, 0.5f, int32_t(64)}).ok());
    REQUIRE(out.download(std::span<float>(result)).ok());
    CHECK(result[63] == 2.5f);
    ++used;
  }
  return used;
}

std::string bytesOf(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

} // namespace

TEST_CASE("pipeline_cache.written_on_close_read_on_open_and_damage_ignored") {
  ScopedCacheDir cache("tessera-pipeline-cache-");
  if (useEveryVulkanDevice() == 0) {
    MESSAGE("no Vulkan device present: the pipeline cache was not exercised");
    return;
  }
  std::vector<fs::path> files = cache.files("vulkan-pipelines");
  REQUIRE(!files.empty());
  const std::string first = bytesOf(files[0]);
  CHECK(first.rfind("tessera vulkan pipeline cache v1\n", 0) == 0);
  CHECK(first.size() > 64);

  // The same work again: the pipelines come from the cache, which does not grow, so the file
  // is left as it was.
  useEveryVulkanDevice();
  CHECK(bytesOf(files[0]) == first);

  // Damaged files (a flipped byte in the data, a truncated file, garbage) are ignored: the
  // device opens, the kernel runs, and a whole file replaces them.
  std::string flipped = first;
  flipped[flipped.size() - 5] ^= 0x10;
  for (const std::string &bad : {flipped, first.substr(0, first.size() / 2), std::string("garbage")}) {
    std::ofstream(files[0], std::ios::binary | std::ios::trunc).write(bad.data(), std::streamsize(bad.size()));
    useEveryVulkanDevice();
    CHECK(bytesOf(files[0]) == first); // the same pipelines give the same cache, whole again
  }
}
