// KernelCache: a miss compiles and stores, a hit reads the same package back, and an entry that
// is truncated, corrupt or for another key is compiled again, never trusted.
#include "TestSupport.hpp"
#include "CompileVariables.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

using namespace tessera;
using namespace tessera::test;
namespace fs = std::filesystem;

namespace {

std::string freshDir(const char *name) {
  fs::path dir = fs::temp_directory_path() / ("tessera-kernel-cache-" + std::string(name) + "-" + std::to_string(freshSeed()));
  fs::remove_all(dir);
  return dir.string();
}

std::string fileBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size()));
}

} // namespace

TEST_CASE("kernel cache: a miss compiles and stores, a hit reads the same package without compiling") {
  std::string dir = freshDir("hit");
  TracedKernel k = require(traceVectorAdd(1024, 4), "trace");
  KernelCache cache(dir);
  for (const TargetDesc &target : {spirvTarget(8), nvptxTarget("sm_90")}) {
    Package first = require(cache.compile(k, target), "compile (miss)");
    CHECK(fs::exists(cache.entryPath(k, target)));
    auto start = std::chrono::steady_clock::now();
    Package again = require(cache.compile(k, target), "compile (hit)");
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    MESSAGE("cache hit for " << nameOf(target.kind) << ": " << ms << " ms");
    CHECK(serializePackage(again) == serializePackage(first));
  }
  CHECK(cache.stats().misses == 2);
  CHECK(cache.stats().hits == 2);
  CHECK(cache.stats().rebuilt == 0);
  // Another cache object on the same directory (another process, later) finds the entries.
  KernelCache later(dir);
  require(later.compile(k, spirvTarget(8)), "compile");
  CHECK(later.stats().hits == 1);
  fs::remove_all(dir);
}

TEST_CASE("kernel cache: the key holds the kernel, its options and the target") {
  KernelCache cache(freshDir("key"));
  TracedKernel a = require(traceVectorAdd(1024, 4), "trace");
  TracedKernel wider = require(traceVectorAdd(1024, 8), "trace");
  TracedKernel block = require(traceVectorAdd(512, 4), "trace");
  std::set<std::string> paths{cache.entryPath(a, spirvTarget(8)), cache.entryPath(a, spirvTarget(32)),
                              cache.entryPath(a, nvptxTarget("sm_90")), cache.entryPath(a, nvptxTarget("sm_80")),
                              cache.entryPath(wider, spirvTarget(8)), cache.entryPath(block, spirvTarget(8))};
  CHECK(paths.size() == 6);
  CHECK(cache.entryPath(a, spirvTarget(8)) == cache.entryPath(require(traceVectorAdd(1024, 4), "trace"), spirvTarget(8)));
  // The variables compile() reads change the code, so each one set is another entry.
  const std::string plain = cache.entryPath(a, nvptxTarget("sm_90a"));
  for (const backend::CompileVariable &v : backend::kCompileVariables) {
    const char *variable = v.variable.data();
    CAPTURE(variable);
    ::setenv(variable, "0", 1);
    CHECK(cache.entryPath(a, nvptxTarget("sm_90a")) != plain);
    ::unsetenv(variable);
    CHECK(cache.entryPath(a, nvptxTarget("sm_90a")) == plain);
  }
}

TEST_CASE("kernel cache: truncated, corrupt and foreign entries are compiled again, never trusted") {
  std::string dir = freshDir("corrupt");
  KernelCache cache(dir);
  TracedKernel k = require(traceVectorAdd(1024, 4), "trace");
  const TargetDesc target = spirvTarget(8);
  Package good = require(cache.compile(k, target), "compile");
  const std::string path = cache.entryPath(k, target), whole = fileBytes(path);
  REQUIRE(whole.size() > 100);

  std::string flipped = whole;
  flipped[flipped.size() - 10] ^= 0x40; // inside the package: its checksum no longer matches
  for (const std::string &bad : {whole.substr(0, whole.size() / 2), flipped, std::string("not a cache entry"), std::string()}) {
    writeBytes(path, bad);
    KernelCacheStats before = cache.stats();
    Package again = require(cache.compile(k, target), "compile over a bad entry");
    CHECK(serializePackage(again) == serializePackage(good));
    CHECK(cache.stats().misses == before.misses + 1);
    CHECK(fileBytes(path) == whole); // the entry is whole again
  }
  // An entry for another kernel under this kernel's file name (a hash collision): not used.
  TracedKernel other = require(traceVectorAdd(512, 4), "trace");
  require(cache.compile(other, target), "compile other");
  writeBytes(path, fileBytes(cache.entryPath(other, target)));
  uint64_t rebuilt = cache.stats().rebuilt;
  Package mine = require(cache.compile(k, target), "compile");
  CHECK(cache.stats().rebuilt == rebuilt + 1);
  CHECK(serializePackage(mine) == serializePackage(good));
  fs::remove_all(dir);
}

TEST_CASE("kernel cache: a package from the cache runs on every device") {
  std::string dir = freshDir("run");
  Result<std::shared_ptr<Runtime>> rt = Runtime::create();
  REQUIRE(rt.ok());
  if ((*rt)->devices().empty()) {
    skipTest("no device present");
    return;
  }
  std::shared_ptr<Device> dev = require((*rt)->openDefault(), "open");
  TracedKernel k = require(traceVectorAdd(1024, 4), "trace");
  KernelCache cache(dir);
  require(cache.compile(k, dev->target()), "compile (miss)");
  Module module = require(dev->load(require(cache.compile(k, dev->target()), "compile (hit)")), "load");
  CHECK(cache.stats().hits == 1);
  Kernel add = require(module.kernel("vector_add"), "kernel");
  const uint32_t seed = freshSeed();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-100, 100);
  std::vector<float> x(3000), y(3000), out(3000, std::nanf(""));
  for (size_t i = 0; i < x.size(); ++i) x[i] = dist(rng), y[i] = dist(rng);
  Buffer bx = require(dev->allocate(DType::F32, x.size()), "allocate"), by = require(dev->allocate(DType::F32, y.size()), "allocate");
  Buffer bo = require(dev->allocate(DType::F32, out.size()), "allocate");
  REQUIRE(bx.upload(std::span<const float>(x)).ok());
  REQUIRE(by.upload(std::span<const float>(y)).ok());
  REQUIRE(bo.upload(std::span<const float>(out)).ok());
  REQUIRE(add.launch({3, 1}, {bx, by, bo, int32_t(x.size())}).ok());
  REQUIRE(bo.download(std::span<float>(out)).ok());
  for (size_t i = 0; i < x.size(); ++i)
    REQUIRE_MESSAGE(out[i] == x[i] + y[i], "[" << i << "] seed " << seed);
  fs::remove_all(dir);
}
