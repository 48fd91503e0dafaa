// Autotuner: picks the configuration the device times fastest, caches it per device and shape
// bucket (memory and file), ignores a corrupt cache, skips configurations that fail.
#include "TestSupport.hpp"

#include "tessera/autotune.hpp"

#include <filesystem>
#include <fstream>

using namespace tessera;
using namespace tessera::test;

namespace {

std::shared_ptr<Device> firstDevice() {
  Result<std::shared_ptr<Runtime>> rt = Runtime::create();
  REQUIRE_MESSAGE(rt.ok(), rt.status().toString());
  if ((*rt)->devices().empty()) skipTest("no Vulkan or CUDA device present");
  return require((*rt)->openDefault(), "open the default device");
}

std::string tempCache(const char *name) {
  auto dir = std::filesystem::temp_directory_path() / ("tessera-autotune-" + std::to_string(freshSeed()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

/// Configurations of vector add that differ in BLOCK; the launch callback launches the kernel
/// `times(config)` times, so the device time of a configuration is set by the test.
struct AddProblem {
  Device &dev;
  size_t n = 1 << 16;
  Buffer x, y, out;
  int launches = 0; // launch callbacks made
  explicit AddProblem(Device &d) : dev(d) {
    std::vector<float> host(n, 1.5f);
    x = require(dev.allocate(DType::F32, n), "allocate");
    y = require(dev.allocate(DType::F32, n), "allocate");
    out = require(dev.allocate(DType::F32, n), "allocate");
    REQUIRE(x.upload(std::span<const float>(host)).ok());
    REQUIRE(y.upload(std::span<const float>(host)).ok());
  }
  Autotuner::Build build() {
    return [](const TuneConfig &c) { return traceVectorAdd(int(c.get("BLOCK")), c.numWarps); };
  }
  Autotuner::Launch launch(std::function<int(const TuneConfig &)> times) {
    return [this, times](const Kernel &k, const TuneConfig &c) {
      ++launches;
      const int block = int(c.get("BLOCK"));
      for (int i = 0; i < times(c); ++i)
        if (Status s = k.launch({uint32_t((n + block - 1) / block), 1, 1}, {x, y, out, int32_t(n)}); !s) return s;
      return Status::success();
    };
  }
};

} // namespace

TEST_CASE("autotune.picks_the_fastest_and_caches_it") {
  std::shared_ptr<Device> dev = firstDevice();
  AddProblem p(*dev);
  const std::vector<TuneConfig> configs{{{{"BLOCK", 256}}, 2}, {{{"BLOCK", 512}}, 4}, {{{"BLOCK", 1024}}, 4}};
  const std::string file = tempCache("autotune.txt");
  // BLOCK 512 launches once per repetition, the others eight times: it must win.
  auto times = [](const TuneConfig &c) { return c.get("BLOCK") == 512 ? 1 : 8; };
  {
    Autotuner tuner(file);
    Result<Tuned> t = tuner.tune(*dev, "vector_add", shapeBucket({int64_t(p.n)}), configs, p.build(), p.launch(times), 5, 1);
    REQUIRE_MESSAGE(t.ok(), t.status().toString());
    CHECK(t->config.key() == "BLOCK=512,warps=4");
    CHECK_FALSE(t->fromCache);
    CHECK(t->seconds.size() == 3);
    CHECK(t->skipped.empty());
    const int measured = p.launches;
    CHECK(measured == 3 * (5 + 1));

    // The same device and bucket again: from the cache, nothing launched.
    Result<Tuned> again = tuner.tune(*dev, "vector_add", shapeBucket({int64_t(p.n)}), configs, p.build(), p.launch(times));
    REQUIRE(again.ok());
    CHECK(again->fromCache);
    CHECK(again->config.key() == "BLOCK=512,warps=4");
    CHECK(p.launches == measured);
    // The cached kernel runs.
    REQUIRE(again->kernel.launch({uint32_t(p.n / 512), 1, 1}, {p.x, p.y, p.out, int32_t(p.n)}).ok());
    std::vector<float> got(p.n);
    REQUIRE(p.out.download(std::span<float>(got)).ok());
    CHECK(std::count(got.begin(), got.end(), 3.0f) == long(p.n));

    // Another bucket is tuned on its own.
    Result<Tuned> other = tuner.tune(*dev, "vector_add", "7", configs, p.build(), p.launch(times), 2, 0);
    REQUIRE(other.ok());
    CHECK_FALSE(other->fromCache);
  }
  // A new tuner (another run of the program) finds the choice in the file.
  {
    Autotuner tuner(file);
    const int before = p.launches;
    Result<Tuned> t = tuner.tune(*dev, "vector_add", shapeBucket({int64_t(p.n)}), configs, p.build(), p.launch(times));
    REQUIRE(t.ok());
    CHECK(t->fromCache);
    CHECK(p.launches == before);
  }
  std::filesystem::remove_all(std::filesystem::path(file).parent_path());
}

TEST_CASE("autotune.corrupt_cache_is_ignored_and_rewritten") {
  std::shared_ptr<Device> dev = firstDevice();
  AddProblem p(*dev);
  const std::vector<TuneConfig> configs{{{{"BLOCK", 256}}, 2}, {{{"BLOCK", 1024}}, 4}};
  const std::string file = tempCache("autotune.txt");
  for (const char *garbage : {"\x01\x02 not a cache\n", "# tessera autotune cache v1\nno tab here\n\tempty key\n"}) {
    std::ofstream(file, std::ios::trunc) << garbage;
    Autotuner tuner(file);
    // One launch against 32, measured after a warm-up: the choice does not hinge on a first
    // launch's one-time costs or on a busy CPU driver.
    auto times = [](const TuneConfig &c) { return c.get("BLOCK") == 256 ? 1 : 32; };
    Result<Tuned> t = tuner.tune(*dev, "vector_add", "65536", configs, p.build(), p.launch(times), 5, 1);
    REQUIRE_MESSAGE(t.ok(), t.status().toString());
    CHECK_FALSE(t->fromCache);
    CHECK(t->config.key() == "BLOCK=256,warps=2");
    std::ifstream in(file);
    std::string header;
    std::getline(in, header);
    CHECK(header == "# tessera autotune cache v1");
  }
  // A cached configuration that is no longer offered is measured again, not trusted.
  {
    std::ofstream(file, std::ios::trunc) << "# tessera autotune cache v1\n";
    Autotuner tuner(file);
    auto once = [](const TuneConfig &) { return 1; };
    REQUIRE(tuner.tune(*dev, "vector_add", "b", {configs.data(), 1}, p.build(), p.launch(once), 2, 0).ok());
    Autotuner fresh(file);
    Result<Tuned> t = fresh.tune(*dev, "vector_add", "b", {configs.data() + 1, 1}, p.build(), p.launch(once), 2, 0);
    REQUIRE(t.ok());
    CHECK_FALSE(t->fromCache);
    CHECK(t->config.key() == "BLOCK=1024,warps=4");
  }
  std::filesystem::remove_all(std::filesystem::path(file).parent_path());
}

TEST_CASE("autotune.failing_configurations_are_skipped_with_their_reason") {
  std::shared_ptr<Device> dev = firstDevice();
  AddProblem p(*dev);
  // numWarps 3 is not a power of two: the trace fails with a user error.
  const std::vector<TuneConfig> configs{{{{"BLOCK", 1024}}, 3}, {{{"BLOCK", 1024}}, 4}};
  Autotuner tuner("-");
  CHECK(tuner.cacheFile().empty());
  auto once = [](const TuneConfig &) { return 1; };
  Result<Tuned> t = tuner.tune(*dev, "vector_add", "65536", configs, p.build(), p.launch(once), 2, 0);
  REQUIRE_MESSAGE(t.ok(), t.status().toString());
  CHECK(t->config.key() == "BLOCK=1024,warps=4");
  REQUIRE(t->skipped.size() == 1);
  CHECK(t->skipped[0].first == "BLOCK=1024,warps=3");
  CHECK(contains(t->skipped[0].second, "numWarps = 3"));

  Result<Tuned> none = tuner.tune(*dev, "vector_add", "x", {configs.data(), 1}, p.build(), p.launch(once), 2, 0);
  REQUIRE_FALSE(none.ok());
  CHECK(contains(none.status().message(), "no configuration ran"));
  CHECK(contains(none.status().message(), "BLOCK=1024,warps=3"));
  CHECK_FALSE(tuner.tune(*dev, "vector_add", "x", {}, p.build(), p.launch(once)).ok());
}

TEST_CASE("autotune.shape_buckets") {
  CHECK(shapeBucket({4096, 1000}) == "4096x1024");
  CHECK(shapeBucket({1}) == "1");
  CHECK(shapeBucket({3, 5, 1025}) == "4x8x2048");
  TuneConfig c{{{"BLOCK", 64}, {"K", 2}}, 8};
  CHECK(c.key() == "BLOCK=64,K=2,warps=8");
  CHECK(c.get("K") == 2);
  CHECK(c.get("missing") == 0);
}
