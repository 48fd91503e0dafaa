// Device-side timing (Device::beginTiming / endTiming) and device copies (Buffer::copyFrom) on
// every device × backend present.
#include "TestSupport.hpp"

#include <algorithm>
#include <cmath>

using namespace tessera;
using namespace tessera::test;

namespace {

constexpr uint32_t kBlock = 64; // add_scalar's workgroup size

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace

TEST_CASE("buffer.copy_from") {
  auto rt = runtime();
  for (const TargetRef &t : everyTarget(*rt)) {
    CAPTURE(t.label);
    std::shared_ptr<Device> dev = openTarget(*rt, t);
    const uint32_t seed = freshSeed();
    CAPTURE(seed);
    std::vector<float> host = randomFloats(3001, seed);
    Buffer src = allocateOrFail(*dev, DType::F32, host.size());
    Buffer dst = allocateOrFail(*dev, DType::F32, host.size() + 7); // larger: its tail keeps its poison
    REQUIRE(src.upload(std::span<const float>(host)).ok());
    REQUIRE(poison(dst).ok());
    Status copied = dst.copyFrom(src);
    REQUIRE_MESSAGE(copied.ok(), copied.toString());
    std::vector<float> got(dst.count());
    REQUIRE(dst.download(std::span<float>(got)).ok());
    size_t wrong = 0;
    for (size_t i = 0; i < host.size(); ++i) wrong += bitsOf(got[i]) != bitsOf(host[i]);
    CHECK(wrong == 0);
    for (size_t i = host.size(); i < got.size(); ++i) CHECK_MESSAGE(bitsOf(got[i]) == kPoisonBits, "copied past the end at " << i);

    Status tooSmall = src.copyFrom(dst);
    REQUIRE_FALSE(tooSmall.ok());
    CHECK(codeOf(tooSmall) == codeName(StatusCode::InvalidArgument));
    CHECK_MESSAGE(contains(tooSmall.message(), "does not fit"), tooSmall.message());
    CHECK_FALSE(Buffer().copyFrom(src).ok());
  }
}

TEST_CASE("timing.every_launch_and_copy_gets_a_device_time") {
  auto rt = runtime();
  for (const TargetRef &t : everyTarget(*rt)) {
    CAPTURE(t.label);
    std::shared_ptr<Device> dev = openTarget(*rt, t);
    auto module = dev->load(packageFor(*dev));
    REQUIRE_MESSAGE(module.ok(), module.status().toString());
    Kernel kernel = *module->kernel("add_scalar");

    CHECK(codeOf(dev->endTiming().status()) == codeName(StatusCode::InvalidArgument)); // not on yet
    auto timeLaunches = [&](int32_t n, int repeats) {
      Buffer in = allocateOrFail(*dev, DType::F32, size_t(n));
      Buffer out = allocateOrFail(*dev, DType::F32, size_t(n));
      REQUIRE(in.upload(std::span<const float>(randomFloats(size_t(n), freshSeed()))).ok());
      Status began = dev->beginTiming();
      REQUIRE_MESSAGE(began.ok(), began.toString());
      CHECK(codeOf(dev->beginTiming()) == codeName(StatusCode::InvalidArgument)); // no nesting
      for (int i = 0; i < repeats; ++i)
        REQUIRE(kernel.launch({uint32_t((n + kBlock - 1) / kBlock), 1, 1}, {in, out, 1.0f, n}).ok());
      REQUIRE(out.copyFrom(in).ok()); // a copy is timed like a launch
      Result<std::vector<double>> seconds = dev->endTiming();
      REQUIRE_MESSAGE(seconds.ok(), seconds.status().toString());
      REQUIRE(seconds->size() == size_t(repeats) + 1);
      for (double s : *seconds) CHECK_MESSAGE((std::isfinite(s) && s > 0 && s < 10), "a device time of " << s << " s");
      seconds->pop_back();
      return median(*seconds);
    };
    const double launched = timeLaunches(1 << 12, 5);
    MESSAGE(t.label << ": add_scalar 2^12 " << launched * 1e6 << " us");
    // 16384 times the bytes take longer: the times measure the work, not a constant. (Copies, as
    // small kernels are all launch latency on a fast GPU: add_scalar at 2^12 and 2^18 elements
    // both took about 9 us on an H200.)
    auto timeCopies = [&](size_t bytes) {
      Buffer from = allocateOrFail(*dev, DType::U8, bytes), to = allocateOrFail(*dev, DType::U8, bytes);
      REQUIRE(dev->beginTiming().ok());
      for (int i = 0; i < 5; ++i) REQUIRE(to.copyFrom(from).ok());
      Result<std::vector<double>> seconds = dev->endTiming();
      REQUIRE_MESSAGE(seconds.ok(), seconds.status().toString());
      REQUIRE(seconds->size() == 5);
      return median(*seconds);
    };
    double small = timeCopies(4 << 10), large = timeCopies(64 << 20);
    MESSAGE(t.label << ": copy 4 KiB " << small * 1e6 << " us, 64 MiB " << large * 1e6 << " us");
    CHECK(large > small);
    // Off again: later launches are not recorded.
    CHECK(codeOf(dev->endTiming().status()) == codeName(StatusCode::InvalidArgument));
  }
}
