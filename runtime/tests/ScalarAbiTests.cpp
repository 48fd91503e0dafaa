// Every dtype on a device: buffers of each type, i64/u32 scalars through the push-constant ABI,
// exact scalar type checks, and the SPIR-V capability check at load (lavapipe on the build machine).
#include "TestSupport.hpp"

#include "AddOneI16Spirv.h"
#include "NeedsClusteredSpirv.h"
#include "NeedsDenormPreserveSpirv.h"
#include "StoreScalarsSpirv.h"

using namespace tessera;
using namespace tessera::test;

namespace {

constexpr DType kBufferTypes[] = {DType::F32, DType::I32, DType::F16, DType::BF16, DType::I8,
                                  DType::I16, DType::I64, DType::U8,  DType::U32};

Artifact spirvOf(const unsigned char *code, size_t size, const char *entry, uint32_t pushBytes) {
  Artifact a;
  a.target = {TargetKind::SPIRV, "vulkan1.1", 0, 0};
  a.entryPoint = entry;
  a.blockSize = {1, 1, 1};
  a.pushConstantBytes = pushBytes;
  a.code.assign(code, code + size);
  return a;
}

/// store_scalars(out: i64 buffer, tag: u32, v: i64): out[0] = v, out[1] = tag. `vSlot` moves v.
Package storeScalarsPackage(uint32_t vSlot = 8) {
  KernelEntry k;
  k.name = "store_scalars";
  k.args = {{"out", ArgKind::Buffer, DType::I64, 0},
            {"tag", ArgKind::Scalar, DType::U32, 0},
            {"v", ArgKind::Scalar, DType::I64, vSlot}};
  k.artifacts.push_back(spirvOf(kStoreScalarsSpirv, kStoreScalarsSpirvSize, "store_scalars", 16));
  Package p;
  p.kernels.push_back(std::move(k));
  return p;
}

Package singleModule(const char *name, const unsigned char *code, size_t size) {
  KernelEntry k;
  k.name = name;
  k.artifacts.push_back(spirvOf(code, size, name, 0));
  Package p;
  p.kernels.push_back(std::move(k));
  return p;
}

std::vector<TargetRef> vulkanTargets(const Runtime &rt) {
  std::vector<TargetRef> out;
  for (const TargetRef &t : everyTarget(rt))
    if (t.backend == Backend::Vulkan) out.push_back(t);
  return out;
}

bool isLavapipe(const Device &d) { return d.info().isCpu && contains(d.info().vendor, "lavapipe"); }

/// Whether Device::denormalSupport() lists `bits` under "measured (...)".
bool measuredWidth(const std::string &support, const std::string &bits) {
  for (size_t at = support.find("measured ("); at != std::string::npos; at = support.find("measured (", at + 1))
    if (at < 4 || support.compare(at - 4, 4, "not ") != 0) // "not measured (...)" is no evidence
      return contains(support.substr(at, support.find(')', at) - at), bits);
  return false;
}

} // namespace

TEST_CASE("buffer.every_dtype_round_trip") {
  auto rt = runtime();
  const uint32_t seed = freshSeed();
  CAPTURE(seed);
  std::mt19937 gen(seed);
  for (const TargetRef &t : everyTarget(*rt)) {
    CAPTURE(t.label);
    auto dev = openTarget(*rt, t);
    for (DType type : kBufferTypes) {
      for (size_t count : {size_t(0), size_t(1), size_t(3), size_t(1001)}) {
        CAPTURE(toString(type));
        CAPTURE(count);
        auto b = dev->allocate(type, count);
        REQUIRE_MESSAGE(b.ok(), b.status().toString());
        CHECK(nameOf(b->dtype()) == nameOf(type));
        CHECK(b->count() == count);
        CHECK(b->bytes() == count * sizeOf(type));
        std::vector<uint8_t> in(b->bytes()), out(b->bytes(), 0xA5);
        for (uint8_t &x : in) x = uint8_t(gen());
        REQUIRE(b->upload(in.data(), in.size()).ok());
        REQUIRE(b->download(out.data(), out.size()).ok());
        CHECK(out == in);
      }
    }
    // The typed templates work for every element type (bytes based).
    std::vector<f16> halves = {f16::fromFloat(1.0f), f16::fromFloat(-0.5f), f16::fromBits(0x7bff)};
    auto h = dev->allocate(DType::F16, halves.size());
    REQUIRE(h.ok());
    REQUIRE(h->upload(std::span<const f16>(halves)).ok());
    std::vector<f16> halvesBack(halves.size());
    REQUIRE(h->download(std::span<f16>(halvesBack)).ok());
    CHECK(halvesBack == halves);
    std::vector<int64_t> longs = {INT64_MIN, -1, 0, INT64_MAX};
    auto l = dev->allocate(DType::I64, longs.size());
    REQUIRE(l.ok());
    REQUIRE(l->upload(std::span<const int64_t>(longs)).ok());
    std::vector<int64_t> longsBack(longs.size());
    REQUIRE(l->download(std::span<int64_t>(longsBack)).ok());
    CHECK(longsBack == longs);

    auto mask = dev->allocate(DType::Bool, 8);
    REQUIRE_FALSE(mask.ok());
    CHECK(codeOf(mask.status()) == codeName(StatusCode::InvalidArgument));
    CHECK(contains(mask.status().message(), "bool is not a buffer element type"));
  }
}

TEST_CASE("launch.i64_and_u32_scalars_reach_the_kernel") {
  auto rt = runtime();
  for (const TargetRef &t : vulkanTargets(*rt)) {
    CAPTURE(t.label);
    auto dev = openTarget(*rt, t);
    if (!dev->backendInfo().hasFeature("int64")) {
      MESSAGE("skipped: no shaderInt64 on " << t.label);
      continue;
    }
    auto m = dev->load(storeScalarsPackage());
    REQUIRE_MESSAGE(m.ok(), m.status().toString());
    auto k = m->kernel("store_scalars");
    REQUIRE(k.ok());
    auto out = dev->allocate(DType::I64, 2);
    REQUIRE(out.ok());
    // Both halves of the i64 differ, so a value read from the wrong offset or truncated shows.
    for (int64_t v : {int64_t(-0x0123456789abcdefll), int64_t(0x7edcba9876543210ll), int64_t(-1)}) {
      CAPTURE(v);
      REQUIRE(poison(*out).ok());
      Status s = k->launch({1, 1, 1}, {*out, 0xdeadbeefu, v});
      REQUIRE_MESSAGE(s.ok(), s.toString());
      int64_t got[2] = {};
      REQUIRE(out->download(got, sizeof got).ok());
      CHECK(got[0] == v);
      CHECK(got[1] == int64_t(0xdeadbeefu));
    }
  }
}

TEST_CASE("launch.scalar_dtypes_must_match_exactly") {
  auto rt = runtime();
  for (const TargetRef &t : vulkanTargets(*rt)) {
    CAPTURE(t.label);
    auto dev = openTarget(*rt, t);
    if (!dev->backendInfo().hasFeature("int64")) continue;
    auto m = dev->load(storeScalarsPackage());
    REQUIRE_MESSAGE(m.ok(), m.status().toString());
    auto k = m->kernel("store_scalars");
    REQUIRE(k.ok());
    auto out = dev->allocate(DType::I64, 2);
    REQUIRE(out.ok());
    REQUIRE(poison(*out).ok());
    auto expect = [](const Status &s, std::initializer_list<const char *> fragments) {
      REQUIRE_FALSE(s.ok());
      CHECK(codeOf(s) == codeName(StatusCode::InvalidArgument));
      for (const char *f : fragments) CHECK_MESSAGE(contains(s.message(), f), s.message() << "  (missing: " << f << ")");
    };
    expect(k->launch({1, 1, 1}, {*out, 7, int64_t(1)}),
           {"argument 1 'tag'", "is a u32 scalar", "but an i32 scalar was passed", "uint32_t"});
    expect(k->launch({1, 1, 1}, {*out, 7u, 1}), {"argument 2 'v'", "is an i64 scalar", "but an i32 scalar", "int64_t"});
    expect(k->launch({1, 1, 1}, {*out, 7u, 1u}), {"argument 2 'v'", "i64", "a u32 scalar"});
    expect(k->launch({1, 1, 1}, {*out, f16::fromFloat(1.0f), int64_t(1)}), {"'tag'", "u32", "an f16 scalar"});
    expect(k->launch({1, 1, 1}, {*out, KernelArg::scalar<uint8_t>(1), int64_t(1)}), {"'tag'", "a u8 scalar"});
    std::vector<uint32_t> bits(4);
    REQUIRE(out->download(bits.data(), 16).ok());
    CHECK(std::all_of(bits.begin(), bits.end(), [](uint32_t b) { return b == kPoisonBits; })); // nothing ran
  }
}

TEST_CASE("load.push_constant_scalars_are_naturally_aligned") {
  auto rt = runtime();
  for (const TargetRef &t : vulkanTargets(*rt)) {
    CAPTURE(t.label);
    auto dev = openTarget(*rt, t);
    auto m = dev->load(storeScalarsPackage(4)); // i64 at byte 4: not 8-aligned
    REQUIRE_FALSE(m.ok());
    CHECK(codeOf(m.status()) == codeName(StatusCode::Corrupt));
    CHECK(contains(m.status().message(), "scalar 'v' (i64) at push-constant offset 4 is not 8-byte aligned"));
  }
}

TEST_CASE("load.refuses_modules_needing_missing_capabilities") {
  auto rt = runtime();
  for (const TargetRef &t : vulkanTargets(*rt)) {
    CAPTURE(t.label);
    auto dev = openTarget(*rt, t);
    const BackendInfo &bi = dev->backendInfo();
    if (isLavapipe(*dev)) { // Mesa 22.3 lacks all three, so the refusals below are really exercised here
      CHECK_FALSE(bi.hasFeature("denorm.preserve.f32"));
      CHECK_FALSE(bi.hasFeature("denorm.flush.f32"));
      CHECK_FALSE(bi.hasFeature("subgroup.clustered"));
    }
    // The module with its float control swapped for another one (capability and execution mode).
    auto withFloatControl = [](uint32_t capability, uint32_t mode) {
      Package p = singleModule("needs_denorm_preserve", kNeedsDenormPreserveSpirv, kNeedsDenormPreserveSpirvSize);
      std::vector<uint8_t> &code = p.kernels[0].artifacts[0].code;
      auto word = [&](size_t i) { uint32_t v; std::memcpy(&v, &code[4 * i], 4); return v; };
      auto set = [&](size_t i, uint32_t v) { std::memcpy(&code[4 * i], &v, 4); };
      for (size_t w = 5; w < code.size() / 4;) {
        uint32_t count = word(w) >> 16, opcode = word(w) & 0xffff;
        if (opcode == 17 && count == 2 && word(w + 1) == 4464) set(w + 1, capability);          // OpCapability
        if (opcode == 16 && count == 4 && word(w + 2) == 4459) set(w + 2, mode);                // OpExecutionMode
        w += count ? count : 1;
      }
      return p;
    };

    // DenormPreserve 32: loads where the driver promises it, or where the denormal probe measured
    // 32-bit denormals kept (lavapipe); otherwise refused, saying what the probe found.
    auto denorm = dev->load(singleModule("needs_denorm_preserve", kNeedsDenormPreserveSpirv, kNeedsDenormPreserveSpirvSize));
    const std::string support = dev->denormalSupport();
    MESSAGE("denormals on " << t.label << ": " << support);
    if (isLavapipe(*dev)) CHECK(measuredWidth(support, "32"));
    if (bi.hasFeature("denorm.preserve.f32") || measuredWidth(support, "32")) {
      CHECK_MESSAGE(denorm.ok(), denorm.status().toString());
    } else {
      REQUIRE_FALSE(denorm.ok());
      MESSAGE(denorm.status().message());
      CHECK(codeOf(denorm.status()) == codeName(StatusCode::Unsupported));
      CHECK(contains(denorm.status().message(), "kernel 'needs_denorm_preserve'"));
      CHECK(contains(denorm.status().message(), "capability DenormPreserve (32-bit floats)"));
      CHECK(contains(denorm.status().message(),
                     "VkPhysicalDeviceFloatControlsProperties::shaderDenormPreserveFloat32 is false, and "));
      CHECK(contains(denorm.status().message(), dev->info().name));
    }

    // A float control no probe stands in for: DenormFlushToZero 32 (lavapipe lacks it) is refused.
    auto flush = dev->load(withFloatControl(4465, 4460));
    if (bi.hasFeature("denorm.flush.f32")) {
      CHECK_MESSAGE(flush.ok(), flush.status().toString());
    } else {
      REQUIRE_FALSE(flush.ok());
      MESSAGE(flush.status().message());
      CHECK(codeOf(flush.status()) == codeName(StatusCode::Unsupported));
      CHECK(contains(flush.status().message(), "kernel 'needs_denorm_preserve'"));
      CHECK(contains(flush.status().message(), "capability DenormFlushToZero (32-bit floats)"));
      CHECK(contains(flush.status().message(),
                     "VkPhysicalDeviceFloatControlsProperties::shaderDenormFlushToZeroFloat32 is false"));
      CHECK(contains(flush.status().message(), dev->info().name));
    }

    // Without its OpExecutionMode the width is unknown: the 32-bit property decides (the measured
    // fallback covers only widths a mode names), and the message says so.
    Package bare = singleModule("needs_denorm_preserve", kNeedsDenormPreserveSpirv, kNeedsDenormPreserveSpirvSize);
    std::vector<uint8_t> &code = bare.kernels[0].artifacts[0].code;
    size_t replaced = 0;
    for (size_t w = 5; w + 3 < code.size() / 4;) {
      auto word = [&](size_t i) { uint32_t v; std::memcpy(&v, &code[4 * i], 4); return v; };
      uint32_t count = word(w) >> 16;
      if ((word(w) & 0xffff) == 16 && count == 4 && word(w + 2) == 4459) { // OpExecutionMode DenormPreserve
        const uint32_t nop = 0x00010000; // OpNop, one word
        for (size_t i = 0; i < 4; ++i) std::memcpy(&code[4 * (w + i)], &nop, 4);
        ++replaced;
      }
      w += count ? count : 1;
    }
    REQUIRE(replaced == 1);
    Status bareStatus = dev->load(bare).status();
    if (!bi.hasFeature("denorm.preserve.f32")) {
      CHECK(codeOf(bareStatus) == codeName(StatusCode::Unsupported));
      CHECK(contains(bareStatus.message(), "DenormPreserve (32-bit floats, assumed"));
    }

    auto clustered = dev->load(singleModule("needs_clustered", kNeedsClusteredSpirv, kNeedsClusteredSpirvSize));
    if (bi.hasFeature("subgroup.clustered")) {
      CHECK_MESSAGE(clustered.ok(), clustered.status().toString());
    } else {
      REQUIRE_FALSE(clustered.ok());
      MESSAGE(clustered.status().message());
      CHECK(codeOf(clustered.status()) == codeName(StatusCode::Unsupported));
      CHECK(contains(clustered.status().message(), "kernel 'needs_clustered'"));
      CHECK(contains(clustered.status().message(), "capability GroupNonUniformClustered"));
      CHECK(contains(clustered.status().message(), "VK_SUBGROUP_FEATURE_CLUSTERED_BIT"));
      CHECK(contains(clustered.status().message(), "compute stage"));
    }
  }
}

TEST_CASE("load.supported_capabilities_load_and_run") {
  auto rt = runtime();
  for (const TargetRef &t : vulkanTargets(*rt)) {
    CAPTURE(t.label);
    auto dev = openTarget(*rt, t);
    const BackendInfo &bi = dev->backendInfo();
    if (isLavapipe(*dev)) CHECK((bi.hasFeature("int16") && bi.hasFeature("storage16")));
    if (!bi.hasFeature("int16") || !bi.hasFeature("storage16")) continue;
    Package p = singleModule("add_one_i16", kAddOneI16Spirv, kAddOneI16SpirvSize);
    p.kernels[0].args = {{"in", ArgKind::Buffer, DType::I16, 0}, {"out", ArgKind::Buffer, DType::I16, 1}};
    auto m = dev->load(p);
    REQUIRE_MESSAGE(m.ok(), m.status().toString());
    auto k = m->kernel("add_one_i16");
    REQUIRE(k.ok());
    std::vector<int16_t> host = {-32768, -1, 0, 1, 1234, 32766, 32767};
    auto in = dev->allocate(DType::I16, host.size());
    auto out = dev->allocate(DType::I16, host.size());
    REQUIRE((in.ok() && out.ok()));
    REQUIRE(in->upload(std::span<const int16_t>(host)).ok());
    Status s = k->launch({uint32_t(host.size()), 1, 1}, {*in, *out});
    REQUIRE_MESSAGE(s.ok(), s.toString());
    std::vector<int16_t> got(host.size());
    REQUIRE(out->download(std::span<int16_t>(got)).ok());
    for (size_t i = 0; i < host.size(); ++i) CHECK(got[i] == int16_t(uint16_t(host[i]) + 1)); // wraps
  }
}

TEST_CASE("discovery.vulkan_shader_features") {
  auto rt = runtime();
  const std::vector<std::string> documented = {
      "float16", "float64", "int8", "int16", "int64", "storage8", "uniform8", "push_constant8", "storage16",
      "uniform16", "push_constant16", "atomic.int64", "atomic.float16.add", "atomic.float32.add",
      "atomic.float64.add", "atomic.float16.minmax", "atomic.float32.minmax", "atomic.float64.minmax",
      "vulkan_memory_model", "subgroup.basic", "subgroup.vote", "subgroup.arithmetic", "subgroup.ballot",
      "subgroup.shuffle", "subgroup.shuffle_relative", "subgroup.clustered", "subgroup.quad",
      "denorm.preserve.f16", "denorm.preserve.f32", "denorm.preserve.f64", "denorm.flush.f16", "denorm.flush.f32",
      "denorm.flush.f64", "signed_zero_inf_nan.preserve.f16", "signed_zero_inf_nan.preserve.f32",
      "signed_zero_inf_nan.preserve.f64", "rounding.rte.f16", "rounding.rte.f32", "rounding.rte.f64",
      "rounding.rtz.f16", "rounding.rtz.f32", "rounding.rtz.f64"};
  for (const DeviceInfo &d : rt->devices())
    for (const BackendInfo &b : d.backends) {
      CAPTURE(d.name);
      if (b.backend == Backend::CUDA) {
        CHECK(b.features.empty());
        continue;
      }
      // Each name is documented, appears once, and in the documented order.
      size_t last = 0;
      for (const std::string &f : b.features) {
        auto at = std::find(documented.begin(), documented.end(), f);
        CHECK_MESSAGE(at != documented.end(), "undocumented feature " << f);
        size_t index = size_t(at - documented.begin());
        CHECK(index >= last);
        last = index + 1;
      }
      if (d.isCpu && contains(d.vendor, "lavapipe"))
        for (const char *f : {"float16", "int8", "int16", "int64", "float64", "storage8", "storage16",
                              "subgroup.arithmetic", "atomic.float32.add", "atomic.float32.minmax"})
          CHECK_MESSAGE(b.hasFeature(f), "lavapipe should report " << f);
    }
}
