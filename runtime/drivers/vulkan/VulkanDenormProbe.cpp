// The denormal probe: for a driver that does not promise shaderDenormPreserveFloat16/32/64, one
// small kernel (denorm_probe.spvasm, no float controls) measures whether its compute shaders keep
// denormals anyway. Run once per device, lazily, through the device's own kernel and buffer code.
#include "vulkan/VulkanDriver.hpp"

#include "DenormProbeSpirv.h"
#include "tessera/runtime/Half.hpp"

#include <bit>
#include <cstring>

namespace tessera::vulkan {

namespace {

// The probe's inputs (denorm_probe.spvasm documents the layout).
constexpr float kSmall = 1e-20f;                        // its square is an f32 denormal
constexpr float kD1 = std::bit_cast<float>(0x00345678u); // f32 denormals, kD1 > kD2
constexpr float kD2 = std::bit_cast<float>(0x00012345u);
constexpr float kOne = 1.0f;
constexpr float kF16Denormal = 0x1p-20f;                // an f16 denormal (f16's smallest normal is 2^-14)
constexpr float kInputs[] = {kSmall, kD1, kD2, kOne, kF16Denormal};

// The same operations on the host, evaluated by the compiler (exact IEEE, denormals kept, whatever
// the host's FTZ/DAZ state at run time).
constexpr double kD64 = kSmall;
constexpr double kT1 = kD64 * kD64, kT2 = kT1 * kT1, kT3 = kT2 * kT2, kT4 = kT3 * kT3;
constexpr float kExpect32[] = {kSmall * kSmall, kD1 + kD2, kD1 * kOne, kD1 - kD2};
constexpr float kExpect64 = float(kT4 * 0x1p1000);

constexpr bool isF32Denormal(float f) {
  uint32_t b = std::bit_cast<uint32_t>(f);
  return (b & 0x7f800000u) == 0 && (b & 0x007fffffu) != 0;
}
static_assert(isF32Denormal(kExpect32[0]) && isF32Denormal(kExpect32[1]) && isF32Denormal(kExpect32[2]) &&
                  isF32Denormal(kExpect32[3]),
              "every 32-bit probe output is a denormal");
static_assert((std::bit_cast<uint64_t>(kT4) >> 52) == 0 && std::bit_cast<uint64_t>(kT4) != 0,
              "the 64-bit chain passes through an f64 denormal");
static_assert(kExpect64 != 0.0f, "the 64-bit chain scales back to a normal f32");

constexpr size_t kOutputs = 6; // [0..3] 32-bit, [4] 16-bit, [5] 64-bit

} // namespace

const DenormMeasurement &VulkanDevice::denormMeasurement() {
  std::lock_guard<std::recursive_mutex> lock(probeLock_);
  if (!denormMeasurement_) {
    // Set first, so that a re-entrant call (the probe's own load never makes one) cannot recurse.
    denormMeasurement_ = DenormMeasurement{{}, "the probe is still running"};
    denormMeasurement_ = runDenormProbe();
  }
  return *denormMeasurement_;
}

std::string VulkanDevice::denormalSupport() {
  const std::array<bool, 3> &promised = features().denormPreserve;
  if (promised == std::array<bool, 3>{true, true, true}) return "promised"; // no probe needed
  return describeDenormSupport(promised, denormMeasurement());
}

DenormMeasurement VulkanDevice::runDenormProbe() {
  DenormMeasurement m;
  const ShaderFeatures &f = features();
  if (!f.float16 || !f.float64) {
    m.unmeasured = std::string("the probe needs ") +
                   (!f.float16 && !f.float64 ? "shaderFloat16 and shaderFloat64"
                    : !f.float16             ? "shaderFloat16"
                                             : "shaderFloat64") +
                   ", which " + name() + " lacks";
    return m;
  }
  auto fail = [&](const Status &s) {
    m.preserved = {};
    m.unmeasured = "the probe could not run: " + s.message();
    return m;
  };

  KernelEntry kernel;
  kernel.name = "denorm_probe";
  kernel.args = {{"in", ArgKind::Buffer, DType::F32, 0}, {"out", ArgKind::Buffer, DType::F32, 1}};
  Artifact artifact;
  artifact.target = {TargetKind::SPIRV, "vulkan1.1", 0, 0};
  artifact.entryPoint = "denorm_probe";
  artifact.blockSize = {1, 1, 1};
  artifact.code.assign(kDenormProbeSpirv, kDenormProbeSpirv + kDenormProbeSpirvSize);
  Result<std::unique_ptr<detail::DriverKernel>> probe = loadKernel(kernel, artifact);
  if (!probe) return fail(probe.status());

  VulkanBuffer in(*this), out(*this);
  uint32_t got[kOutputs];
  std::memset(got, 0xFF, sizeof got); // NaN bits: an output the kernel did not write cannot match
  if (Status s = in.init(sizeof kInputs); !s) return fail(s);
  if (Status s = out.init(sizeof got); !s) return fail(s);
  if (Status s = in.upload(kInputs, sizeof kInputs, 0); !s) return fail(s);
  if (Status s = out.upload(got, sizeof got, 0); !s) return fail(s);
  const detail::LaunchArg args[2] = {{&kernel.args[0], &in, nullptr}, {&kernel.args[1], &out, nullptr}};
  if (Status s = (*probe)->launch(defaultStream(), {1, 1, 1}, args); !s) return fail(s);
  if (Status s = defaultStream().synchronize(); !s) return fail(s);
  if (Status s = out.download(got, sizeof got, 0); !s) return fail(s);

  auto same = [&](size_t i, float expect) { return got[i] == std::bit_cast<uint32_t>(expect); };
  m.preserved[1] = same(0, kExpect32[0]) && same(1, kExpect32[1]) && same(2, kExpect32[2]) && same(3, kExpect32[3]);
  m.preserved[0] = same(4, f16::fromFloat(kF16Denormal).toFloat());
  m.preserved[2] = same(5, kExpect64);
  return m;
}

} // namespace tessera::vulkan
