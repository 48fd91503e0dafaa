// The measured DenormPreserve fallback: the denormal probe on lavapipe, a portable-style module
// (DenormPreserve 32 + SignedZeroInfNanPreserve 32) loading and keeping denormals there, the
// stripping of execution modes on crafted word streams, and the accept/refuse decision with a
// simulated measurement (no flushing device is needed); push descriptors on lavapipe. Reaches the
// Vulkan driver's internals.
// On a machine without lavapipe set TESSERA_TEST_NO_LAVAPIPE=1.
#include "TestSupport.hpp"

#include "DenormProductSpirv.h"
#include "Impl.hpp"
#include "vulkan/VulkanDriver.hpp"

using namespace tessera;
using namespace tessera::test;
using tessera::vulkan::DenormMeasurement;

namespace {

bool isLavapipe(const DeviceInfo &d) { return d.isCpu && contains(d.vendor, "lavapipe"); }

/// lavapipe through Vulkan, or null (after failing the test) when it should be here and is not.
std::shared_ptr<Device> openLavapipe(Runtime &rt) {
  for (const DeviceInfo &d : rt.devices())
    if (isLavapipe(d) && d.find(Backend::Vulkan)) {
      auto dev = rt.open(d.index, Backend::Vulkan);
      REQUIRE_MESSAGE(dev.ok(), dev.status().toString());
      return *dev;
    }
  FAIL("lavapipe not found (set TESSERA_TEST_NO_LAVAPIPE=1 where it is not installed)");
  return nullptr;
}

vulkan::VulkanDevice &vulkanDevice(Device &d) {
  auto *v = dynamic_cast<vulkan::VulkanDevice *>(d.impl_->native.get());
  REQUIRE(v != nullptr);
  return *v;
}

Package denormProductPackage() {
  KernelEntry k;
  k.name = "denorm_product";
  k.args = {{"a", ArgKind::Buffer, DType::F32, 0}, {"out", ArgKind::Buffer, DType::F32, 1}};
  Artifact a;
  a.target = {TargetKind::SPIRV, "vulkan1.1", 0, 0};
  a.entryPoint = "denorm_product";
  a.blockSize = {1, 1, 1};
  a.code.assign(kDenormProductSpirv, kDenormProductSpirv + kDenormProductSpirvSize);
  k.artifacts.push_back(std::move(a));
  Package p;
  p.kernels.push_back(std::move(k));
  return p;
}

// ---- crafted modules: one instruction per entry, joined behind a header ----

using Instruction = std::vector<uint32_t>;
constexpr uint32_t op(uint32_t opcode, uint32_t count) { return count << 16 | opcode; }
const Instruction kCapShader = {op(17, 2), 1};
const Instruction kCapDenormPreserve = {op(17, 2), 4464};
const Instruction kCapSignedZero = {op(17, 2), 4466};
const Instruction kMemoryModel = {op(14, 3), 0, 1};
const Instruction kEntryPoint = {op(15, 5), 5, 1, 0x6e69616d /* "main" */, 0};
const Instruction kLocalSize = {op(16, 6), 1, 17, 1, 1, 1};
const Instruction kSignedZero32 = {op(16, 4), 1, 4461, 32};
Instruction denormPreserveMode(uint32_t bits) { return {op(16, 4), 1, 4459, bits}; }
// Operands that look like the instructions being stripped, inside instructions that are not:
// a walk over whole instructions keeps them, a scan over words would not.
const Instruction kConstantLikeMode = {op(43, 4), 2, 3, 4459};                 // OpConstant %int 4459
const Instruction kConstantLikeCapability = {op(43, 5), 4, 5, op(17, 2), 4464}; // i64 whose words read OpCapability DenormPreserve

std::vector<uint32_t> join(const std::vector<Instruction> &instructions) {
  std::vector<uint32_t> words = {0x07230203, 0x00010300, 0, 100, 0};
  for (const Instruction &i : instructions) words.insert(words.end(), i.begin(), i.end());
  return words;
}

/// A portable-style module declaring DenormPreserve for the widths in `bits`.
std::vector<Instruction> portableModule(std::initializer_list<uint32_t> bits) {
  std::vector<Instruction> m = {kCapShader, kCapDenormPreserve, kCapSignedZero, kConstantLikeCapability,
                                kMemoryModel, kEntryPoint, kLocalSize};
  for (uint32_t b : bits) m.push_back(denormPreserveMode(b));
  m.push_back(kSignedZero32);
  m.push_back(kConstantLikeMode);
  return m;
}

std::vector<Instruction> without(std::vector<Instruction> m, const std::vector<Instruction> &gone) {
  for (const Instruction &g : gone) {
    auto it = std::find(m.begin(), m.end(), g);
    REQUIRE(it != m.end());
    m.erase(it);
  }
  return m;
}

KernelEntry kernelNamed(const char *name) {
  KernelEntry k;
  k.name = name;
  return k;
}

vulkan::ShaderFeatures promising(std::array<bool, 3> denormPreserve) {
  vulkan::ShaderFeatures f;
  f.denormPreserve = denormPreserve;
  return f;
}

} // namespace

TEST_CASE("denorm.probe_measures_lavapipe") {
  if (std::getenv("TESSERA_TEST_NO_LAVAPIPE")) return;
  auto rt = runtime();
  auto dev = openLavapipe(*rt);
  // Mesa 22.3 promises no DenormPreserve width, so the measurement is what decides there.
  CHECK_FALSE(dev->backendInfo().hasFeature("denorm.preserve.f32"));
  vulkan::VulkanDevice &vk = vulkanDevice(*dev);
  const DenormMeasurement &m = vk.denormMeasurement();
  MESSAGE("probe on " << dev->describe() << ": " << dev->denormalSupport());
  CHECK_MESSAGE(m.unmeasured.empty(), m.unmeasured);
  CHECK(m.preserved[1]); // 1e-20f * 1e-20f is measured to stay a denormal there
  CHECK(vk.measuredDenormPreserve() == m.preserved);
  CHECK(&vk.denormMeasurement() == &m); // cached: measured once per device
  CHECK(contains(dev->denormalSupport(), "measured ("));
  CHECK(contains(dev->denormalSupport(), "32"));
}

TEST_CASE("denorm.portable_float_controls_module_keeps_denormals") {
  auto rt = runtime();
  for (const TargetRef &t : everyTarget(*rt)) {
    if (t.backend != Backend::Vulkan) continue;
    CAPTURE(t.label);
    auto dev = openTarget(*rt, t);
    const bool lavapipe = isLavapipe(dev->info());
    if (lavapipe && std::getenv("TESSERA_TEST_NO_LAVAPIPE")) continue;
    auto m = dev->load(denormProductPackage());
    if (!m.ok()) {
      // Allowed only where neither the driver promises nor the probe measured 32-bit denormals.
      CHECK_FALSE(lavapipe);
      CHECK(codeOf(m.status()) == codeName(StatusCode::Unsupported));
      CHECK(contains(m.status().message(), "shaderDenormPreserveFloat32 is false, and "));
      MESSAGE(m.status().message());
      continue;
    }
    auto k = m->kernel("denorm_product");
    REQUIRE(k.ok());
    const std::vector<float> in = {1e-20f, 1e-20f};
    auto a = dev->allocate(DType::F32, 2);
    auto out = dev->allocate(DType::F32, 1);
    REQUIRE((a.ok() && out.ok()));
    REQUIRE(a->upload(std::span<const float>(in)).ok());
    REQUIRE(poison(*out).ok());
    Status s = k->launch({1, 1, 1}, {*a, *out});
    REQUIRE_MESSAGE(s.ok(), s.toString());
    float got = 0;
    REQUIRE(out->download(&got, 4).ok());
    volatile float x = 1e-20f; // the host's own product, at run time
    const float expect = x * x;
    CHECK(bitsOf(expect) == 0x000116c2u); // 9.99995e-41, a denormal
    CHECK(bitsOf(got) == bitsOf(expect));
  }
}

TEST_CASE("denorm.strip_removes_exactly_the_named_modes") {
  const std::vector<Instruction> all = portableModule({16, 32, 64});
  const std::vector<uint32_t> words = join(all);
  using vulkan::stripMeasuredDenormPreserve;

  // One width: only its mode goes; the capability stays for the modes that remain.
  CHECK(stripMeasuredDenormPreserve(words, {false, true, false}) == join(without(all, {denormPreserveMode(32)})));
  CHECK(stripMeasuredDenormPreserve(words, {true, true, false}) ==
        join(without(all, {denormPreserveMode(16), denormPreserveMode(32)})));
  // Every mode: the capability goes too; SignedZeroInfNanPreserve and look-alike operands stay.
  CHECK(stripMeasuredDenormPreserve(words, {true, true, true}) ==
        join(without(all, {kCapDenormPreserve, denormPreserveMode(16), denormPreserveMode(32), denormPreserveMode(64)})));
  // Nothing named: identical.
  CHECK(stripMeasuredDenormPreserve(words, {false, false, false}) == words);
  // A width the module does not use: identical, capability included.
  const std::vector<Instruction> only32 = portableModule({32});
  CHECK(stripMeasuredDenormPreserve(join(only32), {true, false, true}) == join(only32));
  CHECK(stripMeasuredDenormPreserve(join(only32), {false, true, false}) ==
        join(without(only32, {kCapDenormPreserve, denormPreserveMode(32)})));
  // A bare capability (no mode) is not stripped: no mode went with it.
  const std::vector<uint32_t> bare = join(portableModule({}));
  CHECK(stripMeasuredDenormPreserve(bare, {true, true, true}) == bare);
  // A mode naming a width outside 16/32/64 is kept, and keeps the capability.
  const std::vector<Instruction> odd = portableModule({32, 8});
  CHECK(stripMeasuredDenormPreserve(join(odd), {true, true, true}) == join(without(odd, {denormPreserveMode(32)})));
}

TEST_CASE("denorm.measured_widths_decide_loading") {
  const KernelEntry k = kernelNamed("portable_k");
  int probes = 0;
  auto measured = [&](std::array<bool, 3> preserved, std::string unmeasured = {}) {
    return [&probes, preserved, unmeasured] {
      ++probes;
      return DenormMeasurement{preserved, unmeasured};
    };
  };
  const vulkan::ShaderFeatures none = promising({false, false, false});
  using vulkan::acceptMeasuredDenormPreserve;

  SUBCASE("a width measured as flushed is refused, saying what the probe found") {
    auto r = acceptMeasuredDenormPreserve(k, join(portableModule({32})), none, measured({true, false, true}), "Flushing GPU");
    REQUIRE_FALSE(r.ok());
    MESSAGE(r.status().message());
    CHECK(codeOf(r.status()) == codeName(StatusCode::Unsupported));
    CHECK(contains(r.status().message(), "kernel 'portable_k' needs SPIR-V capability DenormPreserve (32-bit floats)"));
    CHECK(contains(r.status().message(), "Flushing GPU via vulkan does not support"));
    CHECK(contains(r.status().message(),
                   "VkPhysicalDeviceFloatControlsProperties::shaderDenormPreserveFloat32 is false, and a probe found "
                   "32-bit denormals flushed"));
    // The way out: the device's own target keeps f32 denormals in software.
    CHECK(contains(r.status().message(), "chip vulkan1.1+soft-denormals, which Device::target() gives here"));
    CHECK(probes == 1);
  }
  SUBCASE("one flushed width among measured ones refuses the module") {
    auto r = acceptMeasuredDenormPreserve(k, join(portableModule({16, 32, 64})), none, measured({true, true, false}), "D");
    REQUIRE_FALSE(r.ok());
    CHECK(contains(r.status().message(), "DenormPreserve (64-bit floats)"));
    CHECK(contains(r.status().message(), "a probe found 64-bit denormals flushed"));
    CHECK_FALSE(contains(r.status().message(), "soft-denormals")); // software f32 denormals do not help f64
    CHECK(probes == 1); // one measurement answers every width
  }
  SUBCASE("a probe that could not run is no evidence") {
    auto r = acceptMeasuredDenormPreserve(k, join(portableModule({32})), none,
                                          measured({}, "the probe needs shaderFloat64, which D lacks"), "D");
    REQUIRE_FALSE(r.ok());
    CHECK(contains(r.status().message(), "shaderDenormPreserveFloat32 is false, and the denormal probe could not "
                                         "measure it (the probe needs shaderFloat64, which D lacks)"));
  }
  SUBCASE("measured widths are accepted and their modes stripped") {
    const std::vector<Instruction> m = portableModule({32});
    auto r = acceptMeasuredDenormPreserve(k, join(m), none, measured({false, true, false}), "D");
    REQUIRE_MESSAGE(r.ok(), r.status().toString());
    CHECK(*r == join(without(m, {kCapDenormPreserve, denormPreserveMode(32)})));
    // What remains passes the capability check (SignedZeroInfNanPreserve 32 is promised here).
    vulkan::ShaderFeatures f = none;
    f.signedZeroInfNanPreserve = {true, true, true};
    CHECK(vulkan::checkCapabilities(k, *r, f, "D").ok());
    CHECK_FALSE(vulkan::checkCapabilities(k, join(m), f, "D").ok()); // unpatched it would be refused
  }
  SUBCASE("promised widths stay, only unpromised measured ones are stripped") {
    const std::vector<Instruction> m = portableModule({16, 32});
    auto r = acceptMeasuredDenormPreserve(k, join(m), promising({false, true, false}), measured({true, false, false}), "D");
    REQUIRE_MESSAGE(r.ok(), r.status().toString());
    CHECK(*r == join(without(m, {denormPreserveMode(16)})));
  }
  SUBCASE("nothing unpromised: unchanged, and no probe runs") {
    const std::vector<uint32_t> m = join(portableModule({16, 32, 64}));
    auto r = acceptMeasuredDenormPreserve(k, m, promising({true, true, true}), measured({}), "D");
    REQUIRE(r.ok());
    CHECK(*r == m);
    const std::vector<uint32_t> plain = join({kCapShader, kMemoryModel, kEntryPoint, kLocalSize});
    auto p = acceptMeasuredDenormPreserve(k, plain, none, measured({}), "D");
    REQUIRE(p.ok());
    CHECK(*p == plain);
    CHECK(probes == 0);
  }
  SUBCASE("a bare capability names no width: left to checkCapabilities, which assumes 32") {
    const std::vector<uint32_t> bare = join(portableModule({}));
    auto r = acceptMeasuredDenormPreserve(k, bare, none, measured({true, true, true}), "D");
    REQUIRE(r.ok());
    CHECK(*r == bare);
    CHECK(probes == 0);
    Status s = vulkan::checkCapabilities(k, *r, none, "D");
    CHECK(contains(s.message(), "DenormPreserve (32-bit floats, assumed"));
  }
}

TEST_CASE("denorm.support_is_described_per_width") {
  using vulkan::describeDenormSupport;
  CHECK(describeDenormSupport({true, true, true}, {}) == "promised");
  CHECK(describeDenormSupport({false, false, false}, {{true, true, true}, ""}) == "measured (16, 32, 64)");
  CHECK(describeDenormSupport({false, true, false}, {{true, false, false}, ""}) == "promised (32), measured (16), flushed (64)");
  CHECK(describeDenormSupport({false, false, false}, {{false, true, false}, ""}) == "measured (32), flushed (16, 64)");
  CHECK(describeDenormSupport({false, true, false}, {{}, "the probe needs shaderFloat16, which D lacks"}) ==
        "promised (32), not measured (16, 64): the probe needs shaderFloat16, which D lacks");
}

TEST_CASE("denorm.cuda_reports_promised") {
  auto rt = runtime();
  for (const TargetRef &t : everyTarget(*rt)) {
    if (t.backend != Backend::CUDA) continue;
    CAPTURE(t.label);
    CHECK(openTarget(*rt, t)->denormalSupport() == "promised");
  }
}

// Launches write their buffers into the command buffer where TESSERA_VULKAN_PUSH_DESCRIPTORS=1
// asks and the device has VK_KHR_push_descriptor (lavapipe does), and otherwise allocate a set
// each; a launch computes the same either way (stream.long_chains_keep_order_through_batches
// checks that batched launches each see their own buffers, on the default path).
TEST_CASE("vulkan.launches_push_descriptors_on_lavapipe") {
  if (std::getenv("TESSERA_TEST_NO_LAVAPIPE")) return;
  for (bool push : {true, false}) {
    CAPTURE(push);
    if (push) setenv("TESSERA_VULKAN_PUSH_DESCRIPTORS", "1", 1);
    auto rt = runtime();
    auto dev = openLavapipe(*rt);
    if (push) unsetenv("TESSERA_VULKAN_PUSH_DESCRIPTORS");
    CHECK(vulkanDevice(*dev).pushDescriptors() == push);
    auto m = dev->load(denormProductPackage());
    REQUIRE_MESSAGE(m.ok(), m.status().toString());
    auto k = m->kernel("denorm_product");
    REQUIRE(k.ok());
    const std::vector<float> in = {3.0f, 1.0f / 3.0f};
    auto a = dev->allocate(DType::F32, 2);
    auto out = dev->allocate(DType::F32, 1);
    REQUIRE((a.ok() && out.ok()));
    REQUIRE(a->upload(std::span<const float>(in)).ok());
    // Two launches in one batch, each with its own output: each must see its own buffers.
    auto out2 = dev->allocate(DType::F32, 1);
    REQUIRE(out2.ok());
    REQUIRE(poison(*out).ok());
    REQUIRE(poison(*out2).ok());
    auto created = dev->createStream();
    REQUIRE(created.ok());
    Stream &stream = *created;
    REQUIRE(k->launch({1, 1, 1}, {*a, *out}, stream).ok());
    REQUIRE(k->launch({1, 1, 1}, {*a, *out2}, stream).ok());
    REQUIRE(stream.synchronize().ok());
    float got = 0, got2 = 0;
    REQUIRE(out->download(&got, 4).ok());
    REQUIRE(out2->download(&got2, 4).ok());
    volatile float x = 3.0f, y = 1.0f / 3.0f;
    CHECK(bitsOf(got) == bitsOf(x * y));
    CHECK(bitsOf(got2) == bitsOf(x * y));
  }
}
