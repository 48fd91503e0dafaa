// Compiled kernels give bit-exact results on every device × backend present (lavapipe on the build machine).
#include "TestSupport.hpp"

#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/SPIRV/Serialization.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace tessera;
using namespace tessera::test;

namespace {

struct DeviceUnderTest {
  std::shared_ptr<Device> device;
  std::string label;
};

/// Every device opened through every backend it has; empty (and the test reported as skipped)
/// when the machine has none.
std::vector<DeviceUnderTest> everyDevice() {
  Result<std::shared_ptr<Runtime>> rt = Runtime::create();
  REQUIRE_MESSAGE(rt.ok(), rt.status().toString());
  std::vector<DeviceUnderTest> out;
  for (const DeviceInfo &d : (*rt)->devices())
    for (const BackendInfo &b : d.backends) {
      Result<std::shared_ptr<Device>> dev = (*rt)->open(d.index, b.backend);
      REQUIRE_MESSAGE(dev.ok(), d.name << " via " << toString(b.backend) << ": " << dev.status().toString());
      out.push_back({*dev, (*dev)->describe()});
      MESSAGE("launching on " << (*dev)->describe());
    }
  if (out.empty()) {
    std::string why;
    for (const BackendAbsence &a : (*rt)->absentBackends()) why += std::string("; ") + toString(a.backend) + ": " + a.reason;
    skipTest("no Vulkan or CUDA device present: kernels were not launched" + why);
  }
  return out;
}

Kernel loadKernel(Device &dev, const TracedKernel &k) {
  Package pkg = require(compile(k, dev.target()), "compile for the device");
  Module module = require(dev.load(pkg), "load");
  return require(module.kernel(k.name()), "kernel");
}

template <class T> Buffer deviceBuffer(Device &dev, const std::vector<T> &host) {
  Buffer b = require(dev.allocate(DTypeOf<T>::value, host.size()), "allocate");
  Status s = b.upload(std::span<const T>(host));
  REQUIRE_MESSAGE(s.ok(), s.toString());
  return b;
}

/// An output buffer of all-ones bytes (a NaN as f32, -1 as i32): anything a kernel fails to
/// write, or writes where it should not, shows.
Buffer poisonedBuffer(Device &dev, DType dtype, size_t count) {
  Buffer b = require(dev.allocate(dtype, count), "allocate");
  std::vector<uint8_t> bytes(b.bytes(), 0xFF);
  Status s = b.upload(bytes.data(), bytes.size());
  REQUIRE_MESSAGE(s.ok(), s.toString());
  return b;
}

template <class T> std::vector<T> downloaded(const Buffer &b) {
  std::vector<T> host(b.count());
  Status s = b.download(std::span<T>(host));
  REQUIRE_MESSAGE(s.ok(), s.toString());
  return host;
}

/// Compares bit patterns (so NaN poison counts as a value) and reports the first few misses.
template <class T> void checkExact(const std::vector<T> &got, const std::vector<T> &expected, uint32_t seed) {
  REQUIRE(got.size() == expected.size());
  size_t bad = 0;
  std::string first;
  for (size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &expected[i], sizeof(T)) != 0 && bad++ < 5)
      first += "  [" + std::to_string(i) + "] = " + std::to_string(got[i]) + ", expected " +
               std::to_string(expected[i]) + "\n";
  CHECK_MESSAGE(bad == 0, bad << " of " << got.size() << " elements differ (seed " << seed << "):\n" << first);
}

uint32_t programsFor(size_t n, int block) { return uint32_t((n + block - 1) / block); }

float poisonFloat() {
  float f;
  uint32_t bits = 0xFFFFFFFFu;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// n that is not a multiple of any block, so the masked tail is exercised.
size_t randomLength(std::mt19937 &rng) { return std::uniform_int_distribution<size_t>(3000, 9000)(rng) | 1; }

} // namespace

TEST_CASE("launch.vector_add") {
  for (DeviceUnderTest &d : everyDevice()) {
    for (int block : {128, 1024}) {
      uint32_t seed = freshSeed();
      CAPTURE(d.label);
      CAPTURE(block);
      CAPTURE(seed);
      std::mt19937 rng(seed);
      std::uniform_real_distribution<float> dist(-1000.f, 1000.f);
      size_t n = randomLength(rng);
      std::vector<float> x(n), y(n), expected(n);
      for (size_t i = 0; i < n; ++i) x[i] = dist(rng), y[i] = dist(rng), expected[i] = x[i] + y[i];

      Kernel k = loadKernel(*d.device, require(traceVectorAdd(block, 4), "trace"));
      Buffer bx = deviceBuffer(*d.device, x), by = deviceBuffer(*d.device, y);
      Buffer out = poisonedBuffer(*d.device, DType::F32, n);
      Status s = k.launch({programsFor(n, block), 1, 1}, {bx, by, out, int32_t(n)});
      REQUIRE_MESSAGE(s.ok(), s.toString());
      checkExact(downloaded<float>(out), expected, seed);
    }
  }
}

TEST_CASE("launch.masked_scale") {
  for (DeviceUnderTest &d : everyDevice()) {
    uint32_t seed = freshSeed();
    CAPTURE(d.label);
    CAPTURE(seed);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1000.f, 1000.f);
    size_t n = randomLength(rng);
    // A power-of-two scale keeps x * s exact, so a fused multiply-add on the device and a
    // separate multiply and add on the CPU round the same way.
    float s = std::ldexp(1.0f, std::uniform_int_distribution<int>(-4, 4)(rng));
    // Only n - 7 elements are in range: the last ones must keep their poison.
    int32_t limit = int32_t(n) - 7;
    std::vector<float> x(n), expected(n, poisonFloat());
    for (size_t i = 0; i < n; ++i) x[i] = dist(rng);
    for (int32_t i = 0; i < limit; ++i) expected[i] = maskedScaleReference(x[i], s);

    Kernel k = loadKernel(*d.device, require(traceMaskedScale(), "trace"));
    Buffer bx = deviceBuffer(*d.device, x);
    Buffer out = poisonedBuffer(*d.device, DType::F32, n);
    Status st = k.launch({programsFor(n, kScaleBlock), 1, 1}, {bx, out, s, limit});
    REQUIRE_MESSAGE(st.ok(), st.toString());
    checkExact(downloaded<float>(out), expected, seed);
  }
}

TEST_CASE("launch.int_mix") {
  for (DeviceUnderTest &d : everyDevice()) {
    uint32_t seed = freshSeed();
    CAPTURE(d.label);
    CAPTURE(seed);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int32_t> numerators(-100000, 100000), denominators(-60, 60);
    size_t n = randomLength(rng);
    std::vector<int32_t> a(n), b(n), expected(n, -1); // -1 is the poison's bit pattern
    for (size_t i = 0; i < n; ++i) {
      a[i] = numerators(rng);
      do b[i] = denominators(rng);
      while (b[i] == 0);
      int32_t value;
      if (intMixWrites(a[i], b[i], &value)) expected[i] = value;
    }

    Kernel k = loadKernel(*d.device, require(traceIntMix(), "trace"));
    Buffer ba = deviceBuffer(*d.device, a), bb = deviceBuffer(*d.device, b);
    Buffer out = poisonedBuffer(*d.device, DType::I32, n);
    Status s = k.launch({programsFor(n, kIntBlock), 1, 1}, {ba, bb, out, int32_t(n)});
    REQUIRE_MESSAGE(s.ok(), s.toString());
    checkExact(downloaded<int32_t>(out), expected, seed);
  }
}

TEST_CASE("launch.small_tile") {
  for (DeviceUnderTest &d : everyDevice()) {
    uint32_t seed = freshSeed();
    CAPTURE(d.label);
    CAPTURE(seed);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1000.f, 1000.f);
    size_t n = randomLength(rng);
    std::vector<float> x(n), y(n), expected(n);
    for (size_t i = 0; i < n; ++i) x[i] = dist(rng), y[i] = dist(rng), expected[i] = -x[i] + y[i];

    Kernel k = loadKernel(*d.device, require(traceSmallTile(), "trace"));
    CHECK(k.artifact().blockSize[0] == 4 * d.device->backendInfo().subgroupSize);
    Buffer bx = deviceBuffer(*d.device, x), by = deviceBuffer(*d.device, y);
    Buffer out = poisonedBuffer(*d.device, DType::F32, n);
    Status s = k.launch({programsFor(n, kSmallBlock), 1, 1}, {bx, by, out, int32_t(n)});
    REQUIRE_MESSAGE(s.ok(), s.toString());
    checkExact(downloaded<float>(out), expected, seed);
  }
}

// Portable kernels compiled both ways (native and software f32 denormals) in one package: the
// device picks the artifact its Device::target() names (lavapipe keeps denormals: native), and
// the software artifact alone computes the same IEEE products, denormal results included.
TEST_CASE("launch.soft_denormals") {
  for (DeviceUnderTest &d : everyDevice()) {
    if (d.device->backend() != Backend::Vulkan)
      continue;
    uint32_t seed = freshSeed();
    CAPTURE(d.label);
    CAPTURE(seed);
    static constexpr int kBlock = 256;
    auto mul = [](tl::Ptr<float> x, tl::Ptr<float> y, tl::Ptr<float> out, tl::Scalar<int32_t> n) {
      tl::Tile offs = tl::program_id(0) * kBlock + tl::arange(0, kBlock);
      tl::Tile mask = offs < n;
      tl::store(out + offs, tl::load(x + offs, mask) * tl::load(y + offs, mask), mask);
    };
    TracedKernel k = require(trace("mul", mul, {.numWarps = 2, .numerics = Numerics::Portable}), "trace");
    uint32_t subgroup = d.device->backendInfo().subgroupSize;
    std::vector<TargetDesc> both{spirvTarget(subgroup), spirvTarget(subgroup, true)};
    Package pkg = require(compile(std::span(&k, 1), both), "compile both ways");
    Kernel chosen = require(require(d.device->load(pkg), "load").kernel("mul"), "kernel");
    CHECK(chosen.artifact().target.chip == d.device->target().chip);

    // Products of normals that land in the denormal range, and denormals times small factors.
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> exponent(-80.f, -60.f), factor(-2.f, 2.f);
    size_t n = randomLength(rng);
    std::vector<float> x(n), y(n), expected(n);
    for (size_t i = 0; i < n; ++i) {
      x[i] = std::ldexp(factor(rng), int(exponent(rng)));
      y[i] = i % 3 ? std::ldexp(factor(rng), int(exponent(rng))) : factor(rng) * 0x1p-140f;
      expected[i] = x[i] * y[i];
    }
    size_t denormals = std::count_if(expected.begin(), expected.end(),
                                     [](float v) { return v != 0 && std::fabs(v) < 0x1p-126f; });
    REQUIRE(denormals > n / 4);
    Package soft = pkg;
    std::erase_if(soft.kernels[0].artifacts, [](const Artifact &a) { return !hasSoftDenormals(a.target.chip); });
    Kernel k2 = require(require(d.device->load(soft), "load soft").kernel("mul"), "kernel");
    Buffer bx = deviceBuffer(*d.device, x), by = deviceBuffer(*d.device, y);
    Buffer out = poisonedBuffer(*d.device, DType::F32, n);
    Status s = k2.launch({programsFor(n, kBlock), 1, 1}, {bx, by, out, int32_t(n)});
    REQUIRE_MESSAGE(s.ok(), s.toString());
    checkExact(downloaded<float>(out), expected, seed);
  }
}

// The software f32 path rounds like IEEE single precision in every corner: x * y + z (two
// roundings, the product handed to the sum in f64 without its f32 bits) and x - y, over ties to
// even, results in and out of the denormal range, overflow at the rounding boundary, signed
// zeros, infinities and NaN. Run through the software artifact on every Vulkan device.
TEST_CASE("launch.soft_denormals_round_like_ieee") {
  for (DeviceUnderTest &d : everyDevice()) {
    if (d.device->backend() != Backend::Vulkan)
      continue;
    uint32_t seed = freshSeed();
    CAPTURE(d.label);
    CAPTURE(seed);
    static constexpr int kBlock = 256;
    auto kernel = [](tl::Ptr<float> x, tl::Ptr<float> y, tl::Ptr<float> z, tl::Ptr<float> fused, tl::Ptr<float> diff,
                     tl::Ptr<f16> half, tl::Scalar<int32_t> n) {
      tl::Tile offs = tl::program_id(0) * kBlock + tl::arange(0, kBlock);
      tl::Tile mask = offs < n;
      tl::Tile a = tl::load(x + offs, mask), b = tl::load(y + offs, mask), c = tl::load(z + offs, mask);
      tl::Tile r = a * b + c;
      tl::store(fused + offs, r, mask);
      tl::store(diff + offs, a - b, mask);
      tl::store(half + offs, tl::cast(r * 0x1p-100f, DType::F16), mask); // f16 denormals and ties too
    };
    TracedKernel k = require(trace("round", kernel, {.numWarps = 2, .numerics = Numerics::Portable}), "trace");
    uint32_t subgroup = d.device->backendInfo().subgroupSize;
    std::vector<TargetDesc> soft{spirvTarget(subgroup, true)};
    Kernel run = require(require(d.device->load(require(compile(std::span(&k, 1), soft), "compile")), "load").kernel("round"),
                         "kernel");

    const float max = std::numeric_limits<float>::max(), tiny = std::numeric_limits<float>::denorm_min();
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> wide(-150, 127), low(-80, -60);
    std::uniform_real_distribution<float> factor(-2.f, 2.f);
    std::uniform_int_distribution<uint32_t> mantissa(0, (1u << 23) - 1);
    auto normal = [&](int e) { return std::ldexp(1.0f + float(mantissa(rng)) * 0x1p-23f, e) * (rng() % 2 ? 1.f : -1.f); };
    size_t n = randomLength(rng) + 64;
    std::vector<float> x(n), y(n), z(n);
    for (size_t i = 0; i < n; ++i) {
      switch (i % 10) {
      case 0: x[i] = normal(wide(rng) / 2), y[i] = normal(wide(rng) / 2), z[i] = normal(wide(rng)); break;
      case 1: x[i] = std::ldexp(factor(rng), low(rng)), y[i] = std::ldexp(factor(rng), low(rng)), z[i] = factor(rng) * 0x1p-130f; break;
      case 2: { // ties: z is half an ulp of x, so x + z is a tie (both parities of x's last bit)
        x[i] = normal(wide(rng) / 4), y[i] = 1.0f;
        int e;
        std::frexp(x[i], &e);
        z[i] = std::ldexp(rng() % 2 ? 1.0f : -1.0f, e - 25);
        break;
      }
      case 3: x[i] = max, y[i] = 1.0f, z[i] = (rng() % 2 ? 1.0f : 0.99999994f) * 0x1p103f; break; // inf at the tie, max below
      case 4: x[i] = -tiny * float(1 + rng() % 8), y[i] = tiny, z[i] = rng() % 2 ? -0.0f : 0.0f; break; // signed zeros
      case 5: x[i] = rng() % 2 ? inf : -inf, y[i] = rng() % 3 ? 0.0f : -inf, z[i] = rng() % 2 ? nan : inf; break;
      case 6: x[i] = tiny * float(mantissa(rng)), y[i] = 1.0f, z[i] = -tiny * float(mantissa(rng)); break; // denormal sums
      case 7: x[i] = normal(wide(rng) / 2), y[i] = normal(wide(rng) / 2), z[i] = -(x[i] * y[i]); break;  // exact cancellation
      case 8: x[i] = normal(-126), y[i] = normal(-126) * 0.5f, z[i] = 0.0f; break; // the smallest normals, x - y near 0
      default: x[i] = normal(wide(rng)), y[i] = std::nextafter(x[i], inf), z[i] = normal(-149 + int(rng() % 30)); break;
      }
    }
    std::vector<float> fused(n), diff(n);
    std::vector<uint16_t> half(n);
    for (size_t i = 0; i < n; ++i) {
      volatile float product = x[i] * y[i]; // rounded to f32 before the sum, as the kernel does
      fused[i] = product + z[i];
      diff[i] = x[i] - y[i];
      volatile float scaled = fused[i] * 0x1p-100f;
      half[i] = f16::fromFloat(scaled).bits;
    }
    Buffer bx = deviceBuffer(*d.device, x), by = deviceBuffer(*d.device, y), bz = deviceBuffer(*d.device, z);
    Buffer outFused = poisonedBuffer(*d.device, DType::F32, n), outDiff = poisonedBuffer(*d.device, DType::F32, n);
    Buffer outHalf = poisonedBuffer(*d.device, DType::F16, n);
    Status s = run.launch({programsFor(n, kBlock), 1, 1}, {bx, by, bz, outFused, outDiff, outHalf, int32_t(n)});
    REQUIRE_MESSAGE(s.ok(), s.toString());
    // NaN is any NaN (payloads are the device's); every other result bit for bit.
    auto anyNaN = [](std::vector<float> got, std::vector<float> want) {
      for (size_t i = 0; i < got.size(); ++i)
        if (std::isnan(want[i]) && std::isnan(got[i]))
          got[i] = want[i];
      return got;
    };
    checkExact(anyNaN(downloaded<float>(outFused), fused), fused, seed);
    checkExact(anyNaN(downloaded<float>(outDiff), diff), diff, seed);
    std::vector<uint16_t> gotHalf = downloaded<uint16_t>(outHalf);
    for (size_t i = 0; i < n; ++i) // any NaN
      if ((half[i] & 0x7fff) > 0x7c00 && (gotHalf[i] & 0x7fff) > 0x7c00)
        gotHalf[i] = half[i];
    checkExact(gotHalf, half, seed);
    size_t denormals = std::count_if(fused.begin(), fused.end(), [](float v) { return v != 0 && std::fabs(v) < 0x1p-126f; });
    size_t infinities = std::count_if(fused.begin(), fused.end(), [](float v) { return std::isinf(v); });
    size_t negativeZeros = std::count_if(fused.begin(), fused.end(), [](float v) { return v == 0 && std::signbit(v); });
    CHECK(denormals > n / 20);
    CHECK(infinities > n / 20);
    CHECK(negativeZeros > n / 40);
  }
}

// The wide loads' condition tests only the last mask bit of a run of comparisons with one bound,
// and that no element's value wrapped between the first and the last (LoadStoreOpToGPU.cpp): here
// `cols + shift` wraps inside every thread's elements for some shifts, so the first elements of the
// row are masked off (cols + shift >= n) and the later ones, wrapped to negative, are in. Without
// the wrap test the wide loads would read the masked-off elements instead of taking `other`.
TEST_CASE("launch.wrapped_mask_bits_keep_their_elements") {
  for (DeviceUnderTest &d : everyDevice()) {
    uint32_t seed = freshSeed();
    CAPTURE(d.label);
    CAPTURE(seed);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1000.f, 1000.f);
    static constexpr int kBlock = 512;
    auto kernel = [](tl::Ptr<float> x, tl::Ptr<float> out, tl::Scalar<int32_t> shift, tl::Scalar<int32_t> n) {
      tl::Tile cols = tl::program_id(0) * kBlock + tl::arange(0, kBlock);
      tl::Tile mask = cols + shift < n;
      tl::store(out + cols, tl::load(x + cols, mask, -1.0f));
    };
    TracedKernel traced = require(trace("wrapped", kernel, {.numWarps = 1}), "trace");
    Kernel k = loadKernel(*d.device, traced);
    const size_t count = 2 * kBlock;
    std::vector<float> x(count);
    for (float &v : x) v = dist(rng);
    Buffer bx = deviceBuffer(*d.device, x);
    // Wraps at a random column (inside a thread's runs or between them), none, and every column.
    const int32_t n = std::uniform_int_distribution<int32_t>(0, 1 << 20)(rng);
    const int64_t wrapAt = std::uniform_int_distribution<int64_t>(1, int64_t(count) - 1)(rng);
    for (int64_t shift : {int64_t(INT32_MAX) - wrapAt + 1, int64_t(INT32_MAX) - 3, int64_t(n) - int64_t(count), int64_t(INT32_MIN)}) {
      CAPTURE(shift);
      std::vector<float> expected(count);
      for (size_t i = 0; i < count; ++i)
        expected[i] = int32_t(uint32_t(int32_t(i)) + uint32_t(int32_t(shift))) < n ? x[i] : -1.0f;
      Buffer out = poisonedBuffer(*d.device, DType::F32, count);
      Status s = k.launch({2, 1, 1}, {bx, out, int32_t(shift), n});
      REQUIRE_MESSAGE(s.ok(), s.toString());
      checkExact(downloaded<float>(out), expected, seed);
    }
  }
}

TEST_CASE("launch.rows_of_multiples_of_16_run_the_specialized_variant") {
  // Rows n elements apart, masked by cols < n: the package holds a variant that assumes n is a
  // multiple of 16 (and nothing of `scale`, which no offset or mask reads), and launches whose n
  // is run it: a row shorter than the block loads and stores each thread's runs whole or not at
  // all. Every n gives the same exact results.
  constexpr int kBlock = 1024;
  auto rows = [](tl::Ptr<f16> x, tl::Ptr<float> y, tl::Scalar<int32_t> n, tl::Scalar<int32_t> scale) {
    tl::Tile row = tl::program_id(0) * n, cols = tl::arange(0, kBlock), mask = cols < n;
    tl::Tile v = tl::cast(tl::load(x + row + cols, mask, 0), DType::F32);
    tl::store(y + row + cols, v * tl::cast(scale, DType::F32), mask);
  };
  TracedKernel traced = require(trace("scaled_rows", rows, {.numWarps = 2, .argNames = {"x", "y", "n", "scale"}}), "trace");
  for (DeviceUnderTest &d : everyDevice()) {
    uint32_t seed = freshSeed();
    CAPTURE(d.label);
    CAPTURE(seed);
    std::mt19937 rng(seed);
    Package pkg = require(compile(traced, d.device->target()), "compile");
    REQUIRE(pkg.kernels[0].artifacts.size() == 2);
    CHECK(pkg.kernels[0].artifacts[0].divisibleArgs.empty());
    CHECK(pkg.kernels[0].artifacts[1].divisibleArgs == std::vector<uint32_t>{2});
    Module module = require(d.device->load(pkg), "load");
    Kernel k = require(module.kernel("scaled_rows"), "kernel");
    auto specializedLaunches = [&] {
      for (const KernelStatistic &s : k.statistics())
        if (s.name == "specialized launches") return int(s.value);
      return -1;
    };
    CHECK(specializedLaunches() == 0);
    const int32_t multiple = 16 * std::uniform_int_distribution<int32_t>(1, kBlock / 16 - 1)(rng);
    const int32_t other = multiple + std::uniform_int_distribution<int32_t>(1, 15)(rng);
    int expected = 0;
    for (int32_t n : {multiple, other, int32_t(kBlock)}) {
      CAPTURE(n);
      const uint32_t rowCount = std::uniform_int_distribution<uint32_t>(2, 5)(rng);
      const int32_t scale = std::uniform_int_distribution<int32_t>(-3, 3)(rng) | 1;
      std::uniform_real_distribution<float> dist(-8.f, 8.f);
      std::vector<f16> x(size_t(rowCount) * n);
      std::vector<float> want(x.size());
      for (size_t i = 0; i < x.size(); ++i) {
        x[i] = f16::fromFloat(dist(rng));
        want[i] = x[i].toFloat() * float(scale);
      }
      Buffer bx = deviceBuffer(*d.device, x), out = poisonedBuffer(*d.device, DType::F32, x.size());
      Status s = k.launch({rowCount, 1, 1}, {bx, out, n, scale});
      REQUIRE_MESSAGE(s.ok(), s.toString());
      checkExact(downloaded<float>(out), want, seed);
      expected += n % 16 == 0;
      CHECK(specializedLaunches() == expected);
    }
  }
}

TEST_CASE("launch.masked_off_runs_read_other_in_every_width") {
  // Rows n elements apart read under cols < n with an `other` that is not zero, written whole
  // (every column of the block), so the masked-off elements show. Where n is a multiple of 16 the
  // variant runs: on SPIR-V each 16-byte run is read with no branch, a masked-off one from the
  // buffer's first 16 bytes with `other`'s words chosen instead (4 f32, 8 f16, 16 i8 a run); n = 0
  // reads only those, from a buffer of no elements (the runtime gives every buffer 16 bytes).
  constexpr int kBlock = 1024; // 16 elements a thread on 2 warps
  auto check = [](const char *what, auto element, auto other, auto otherInType, auto draw) {
    using T = decltype(element);
    CAPTURE(what);
    auto copy = [other](tl::Ptr<T> x, tl::Ptr<T> y, tl::Scalar<int32_t> n) {
      tl::Tile cols = tl::arange(0, kBlock);
      tl::store(y + tl::program_id(0) * kBlock + cols, tl::load(x + tl::program_id(0) * n + cols, cols < n, other));
    };
    TracedKernel traced = require(trace("copy_rows", copy, {.numWarps = 2, .argNames = {"x", "y", "n"}}), "trace");
    for (DeviceUnderTest &d : everyDevice()) {
      uint32_t seed = freshSeed();
      CAPTURE(d.label);
      CAPTURE(seed);
      std::mt19937 rng(seed);
      Kernel k = loadKernel(*d.device, traced);
      const int32_t multiple = 16 * std::uniform_int_distribution<int32_t>(1, kBlock / 16 - 1)(rng);
      for (int32_t n : {0, multiple, multiple + std::uniform_int_distribution<int32_t>(1, 15)(rng)}) {
        CAPTURE(n);
        const uint32_t rows = std::uniform_int_distribution<uint32_t>(2, 4)(rng);
        std::vector<T> x(size_t(rows) * size_t(n)), want(size_t(rows) * kBlock);
        for (T &v : x) v = draw(rng);
        for (size_t r = 0; r < rows; ++r)
          for (size_t c = 0; c < size_t(kBlock); ++c)
            want[r * kBlock + c] = c < size_t(n) ? x[r * size_t(n) + c] : otherInType;
        Buffer bx = require(d.device->allocate(DTypeOf<T>::value, x.size()), "allocate");
        if (!x.empty()) REQUIRE(bx.upload(std::span<const T>(x)).ok());
        Buffer out = poisonedBuffer(*d.device, DTypeOf<T>::value, want.size());
        Status s = k.launch({rows, 1, 1}, {bx, out, n});
        REQUIRE_MESSAGE(s.ok(), s.toString());
        // Compared as bits (f16 has no std::to_string).
        using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, std::conditional_t<sizeof(T) == 2, uint16_t, uint8_t>>;
        std::vector<Bits> got(want.size()), expected(want.size());
        REQUIRE(out.download(std::span<Bits>(got)).ok());
        std::memcpy(expected.data(), want.data(), want.size() * sizeof(T));
        checkExact(got, expected, seed);
      }
    }
  };
  check("f32", float{}, 2.5f, 2.5f, [](std::mt19937 &g) { return std::uniform_real_distribution<float>(-8.f, 8.f)(g); });
  check("f16", f16{}, -1.5f, f16::fromFloat(-1.5f),
        [](std::mt19937 &g) { return f16::fromFloat(std::uniform_real_distribution<float>(-8.f, 8.f)(g)); });
  check("i8", int8_t{}, -3, int8_t(-3), [](std::mt19937 &g) { return int8_t(std::uniform_int_distribution<int>(-100, 100)(g)); });
}

namespace {

/// out[i] = x[i] + add for i < n (n a push constant, `add` the specialization constant SpecId
/// `specId`: argument 3 where the runtime's ABI holds): x, out, n, add.
std::vector<uint8_t> specConstantModule(int specId) {
  const std::string buf = "!spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>";
  const std::string pc = "!spirv.ptr<!spirv.struct<(i32 [0], i32 [4]), Block>, PushConstant>";
  const std::string text = R"(spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], [SPV_KHR_storage_buffer_storage_class]> {
  spirv.GlobalVariable @gid built_in("GlobalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
  spirv.GlobalVariable @x bind(0, 0) : )" + buf + R"(
  spirv.GlobalVariable @out bind(0, 1) : )" + buf + R"(
  spirv.GlobalVariable @pc : )" + pc + R"(
  spirv.SpecConstant @add spec_id()" + std::to_string(specId) + R"() = 0 : i32
  spirv.func @main() "None" {
    %c0 = spirv.Constant 0 : i32
    %pg = spirv.mlir.addressof @gid : !spirv.ptr<vector<3xi32>, Input>
    %g = spirv.Load "Input" %pg : vector<3xi32>
    %i = spirv.CompositeExtract %g[0 : i32] : vector<3xi32>
    %ppc = spirv.mlir.addressof @pc : )" + pc + R"(
    %pn = spirv.AccessChain %ppc[%c0] : )" + pc + R"(, i32 -> !spirv.ptr<i32, PushConstant>
    %n = spirv.Load "PushConstant" %pn : i32
    %in = spirv.SLessThan %i, %n : i32
    spirv.mlir.selection {
      spirv.BranchConditional %in, ^then, ^done
    ^then:
      %px = spirv.mlir.addressof @x : )" + buf + R"(
      %ex = spirv.AccessChain %px[%c0, %i] : )" + buf + R"(, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
      %v = spirv.Load "StorageBuffer" %ex : f32
      %a = spirv.mlir.referenceof @add : i32
      %af = spirv.ConvertSToF %a : i32 to f32
      %r = spirv.FAdd %v, %af : f32
      %po = spirv.mlir.addressof @out : )" + buf + R"(
      %eo = spirv.AccessChain %po[%c0, %i] : )" + buf + R"(, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
      spirv.Store "StorageBuffer" %eo, %r : f32
      spirv.Branch ^done
    ^done:
      spirv.mlir.merge
    }
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main, @gid, @x, @out, @pc
  spirv.ExecutionMode @main "LocalSize", 64, 1, 1
})";
  mlir::MLIRContext ctx;
  ctx.loadDialect<mlir::spirv::SPIRVDialect>();
  mlir::OwningOpRef<mlir::spirv::ModuleOp> module = mlir::parseSourceString<mlir::spirv::ModuleOp>(text, &ctx);
  REQUIRE(module);
  llvm::SmallVector<uint32_t, 0> words;
  REQUIRE(mlir::succeeded(mlir::spirv::serialize(*module, words)));
  std::vector<uint8_t> bytes(words.size() * 4);
  std::memcpy(bytes.data(), words.data(), bytes.size());
  return bytes;
}

Package specConstantPackage(const Device &dev, int specId) {
  Package pkg;
  KernelEntry &k = pkg.kernels.emplace_back();
  k.name = "add_spec";
  k.numWarps = 2;
  k.args = {{"x", ArgKind::Buffer, DType::F32, 0},
            {"out", ArgKind::Buffer, DType::F32, 1},
            {"n", ArgKind::Scalar, DType::I32, 0},
            {"add", ArgKind::Scalar, DType::I32, 4}};
  Artifact &a = k.artifacts.emplace_back();
  a.target = {TargetKind::SPIRV, "vulkan1.1", 0, dev.target().subgroupSize};
  a.entryPoint = "main";
  a.blockSize = {64, 1, 1};
  a.pushConstantBytes = 8;
  a.code = specConstantModule(specId);
  return pkg;
}

} // namespace

TEST_CASE("launch.specialization_constants_take_each_launch's_argument_values") {
  // Code that reads an argument as a specialization constant (SpecId = argument index, as the
  // workgroup-matrix variants read M, N and K): the runtime builds a pipeline for each value the
  // launches pass and uses the right one every time, returning to one it built before.
  bool anyVulkan = false;
  for (DeviceUnderTest &d : everyDevice()) {
    if (d.device->backend() != Backend::Vulkan) continue;
    anyVulkan = true;
    uint32_t seed = freshSeed();
    CAPTURE(d.label);
    CAPTURE(seed);
    std::mt19937 rng(seed);
    Module module = require(d.device->load(specConstantPackage(*d.device, 3)), "load");
    Kernel k = require(module.kernel("add_spec"), "kernel");
    std::uniform_int_distribution<int32_t> pickAdd(-1000, 1000);
    const int32_t first = pickAdd(rng), second = first + std::uniform_int_distribution<int32_t>(1, 99)(rng);
    for (int32_t add : {first, second, first}) {
      CAPTURE(add);
      const size_t n = std::uniform_int_distribution<size_t>(300, 1000)(rng), size = 1024;
      std::uniform_real_distribution<float> dist(-8.f, 8.f);
      std::vector<float> x(size), want(size, poisonFloat());
      for (size_t i = 0; i < size; ++i) x[i] = dist(rng);
      for (size_t i = 0; i < n; ++i) want[i] = x[i] + float(add);
      Buffer bx = deviceBuffer(*d.device, x), out = poisonedBuffer(*d.device, DType::F32, size);
      Status s = k.launch({programsFor(size, 64), 1, 1}, {bx, out, int32_t(n), add});
      REQUIRE_MESSAGE(s.ok(), s.toString());
      checkExact(downloaded<float>(out), want, seed);
    }
    // A SpecId that names no argument, or a buffer, is refused at load with what it names.
    for (auto [id, says] : {std::pair<int, std::string>{9, "SpecId 9 names no argument (the kernel has 4)"},
                            {1, "SpecId 1 names argument 'out', which is not a 32-bit scalar"}}) {
      Result<Module> bad = d.device->load(specConstantPackage(*d.device, id));
      REQUIRE_FALSE(bad.ok());
      CHECK_MESSAGE(contains(bad.status().message(), says), bad.status().message());
    }
  }
  if (!anyVulkan) skipTest("no Vulkan device present: specialization constants were not launched");
}

TEST_CASE("launch.specialized_args_compile_to_specialization_constants") {
  // KernelOptions::specializedArgs: the SPIR-V reads `n` from a specialization constant (SpecId =
  // its index, 2) and no longer from the push constants; launches with different n each get
  // their own pipeline and exact results.
  constexpr int kBlock = 256;
  auto scaled = [](tl::Ptr<float> x, tl::Ptr<float> y, tl::Scalar<int32_t> n, tl::Scalar<int32_t> scale) {
    tl::Tile i = tl::program_id(0) * kBlock + tl::arange(0, kBlock), mask = i < n;
    tl::store(y + i, tl::load(x + i, mask, 0.0f) * tl::cast(scale, DType::F32), mask);
  };
  TracedKernel traced = require(
      trace("scaled", scaled, {.numWarps = 2, .argNames = {"x", "y", "n", "scale"}, .specializedArgs = {"n"}}), "trace");
  for (DeviceUnderTest &d : everyDevice()) {
    uint32_t seed = freshSeed();
    CAPTURE(d.label);
    CAPTURE(seed);
    std::mt19937 rng(seed);
    Package pkg = require(compile(traced, d.device->target()), "compile");
    if (d.device->backend() == Backend::Vulkan) {
      const std::vector<uint32_t> words = spirvWords(pkg.kernels[0].artifacts[0]);
      size_t specIds = 0;
      for (size_t i = 5; i < words.size() && (words[i] >> 16); i += words[i] >> 16)
        if ((words[i] & 0xffff) == 71 && (words[i] >> 16) == 4 && words[i + 2] == 1) { // OpDecorate SpecId
          CHECK(words[i + 3] == 2);
          ++specIds;
        }
      CHECK(specIds == 1);
    }
    Module module = require(d.device->load(pkg), "load");
    Kernel k = require(module.kernel("scaled"), "kernel");
    for (int round = 0; round < 3; ++round) {
      const int32_t n = std::uniform_int_distribution<int32_t>(100, 3000)(rng), scale = round - 5;
      CAPTURE(n);
      std::uniform_real_distribution<float> dist(-8.f, 8.f);
      std::vector<float> x(size_t(n) + 77), want(x.size(), poisonFloat());
      for (size_t i = 0; i < x.size(); ++i) x[i] = dist(rng);
      for (int32_t i = 0; i < n; ++i) want[i] = x[i] * float(scale);
      Buffer bx = deviceBuffer(*d.device, x), out = poisonedBuffer(*d.device, DType::F32, x.size());
      Status s = k.launch({programsFor(x.size(), kBlock), 1, 1}, {bx, out, n, scale});
      REQUIRE_MESSAGE(s.ok(), s.toString());
      checkExact(downloaded<float>(out), want, seed);
    }
  }
}
