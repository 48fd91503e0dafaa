// The cooperative-matrix self-test: some drivers report VK_KHR_cooperative_matrix and compute
// wrong products, so before code for chip vulkan1.3+coopmat runs on a device, one small shader
// (CoopMatrixProbeSpirv.cpp) computes D = A x B + C for 16 x 16 matrices and the result is
// compared exactly with the host's. Inputs are small integers, so every product and sum is exact
// in f16 and f32 whatever the order of summation: any difference is a wrong result. Run once per
// device, on first need, through the device's own kernel and buffer code. Where the device offers
// VK_NV_cooperative_matrix2's workgroup-scope matrices, a second shader (64 x 64 x 32 at 128
// invocations, the driver staging the matrices) is checked the same way.
#include "vulkan/VulkanDriver.hpp"

#include "vulkan/CoopMatrixProbeSpirv.hpp"
#include "tessera/runtime/Half.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string_view>
#include <cstring>
#include <random>

namespace tessera::vulkan {

namespace {
constexpr int kN = 16;
constexpr const char *kShape = "16x16x16 f16 x f16 + f32 -> f32";

/// Where mma.sync keeps element i of invocation 4g + t of its C fragments, two side by side: row
/// g + 8 (i / 4), column 2t + i % 2 + 8 ((i / 2) % 2) of a 16 x 16 matrix (its row-major index).
uint32_t accumulatorAt(uint32_t g, uint32_t t, uint32_t i) { return (g + 8 * (i / 4)) * kN + 2 * t + i % 2 + 8 * ((i / 2) % 2); }

/// Whether a probe shader's readout of a 16 x 16 matrix (got[first]: the elements one invocation
/// holds, then element i of invocation `lane` at got[first + 1 + lane * perLane + i], each the
/// row-major index it holds) has element i of invocation 4g + t at at(g, t, i), where `possible`;
/// and the report: "<name> lanes as <as>", else what invocations 0, 1 and 4 hold.
template <class At>
std::pair<bool, std::string> lanesPlaced(const std::vector<float> &got, size_t first, uint32_t subgroup, uint32_t perLane,
                                         bool possible, const std::string &name, const char *as, At at) {
  bool same = possible && got[first] == float(perLane);
  for (uint32_t lane = 0; lane < subgroup && same; ++lane)
    for (uint32_t i = 0; i < perLane && same; ++i) same = got[first + 1 + lane * perLane + i] == float(at(lane / 4, lane % 4, i));
  if (same) return {true, name + " lanes as " + as};
  std::string note = name + " lanes: " + std::to_string(got[first]) + " per invocation;";
  for (uint32_t lane : {0u, 1u, 4u})
    if (lane < subgroup) {
      note += " " + std::to_string(lane) + ":";
      for (uint32_t i = 0; i < perLane && i < 8; ++i) {
        const float v = got[first + 1 + lane * perLane + i];
        note += v == v ? " (" + std::to_string(int(v) / kN) + "," + std::to_string(int(v) % kN) + ")" : " ?";
      }
    }
  return {false, note};
}
} // namespace

const CoopMatrixCheck &VulkanDevice::coopMatrixCheck() {
  std::lock_guard<std::recursive_mutex> lock(probeLock_);
  if (!coopMatrixCheck_) {
    // Set first, so that a re-entrant call (the probe's own load makes none) cannot recurse.
    coopMatrixCheck_ = CoopMatrixCheck{false, false, "none: the self-test is still running"};
    coopMatrixCheck_ = runCoopMatrixProbe();
  }
  return *coopMatrixCheck_;
}

CoopMatrixCheck VulkanDevice::runCoopMatrixProbe() {
  if (const char *env = std::getenv("TESSERA_COOPMAT"); env && std::string_view(env) == "0")
    return {false, false, "none: turned off by TESSERA_COOPMAT=0"};
  const ShaderFeatures &f = features();
  if (physical_.apiVersion < VK_API_VERSION_1_3)
    return {false, false, "none: cooperative matrices need Vulkan 1.3 (SPIR-V 1.6); " + name() + " has " +
                       formatVulkanVersion(physical_.apiVersion)};
  if (!physical_.extensions.count(kCoopMatrixExtension))
    return {false, false, std::string("none: ") + kCoopMatrixExtension + " is not offered"};
  if (!f.coopMatrix) return {false, false, std::string("none: ") + kCoopMatrixExtension + " is offered without its feature"};
  if (!f.coopMatrixF16)
    return {false, false, std::string("none: ") + kCoopMatrixExtension + " does not report " + kShape + " at subgroup scope"};
  if (!f.float16 || !f.storage16)
    return {false, false, "none: the self-test needs shaderFloat16 and storageBuffer16BitAccess"};
  auto fail = [](const std::string &why) { return CoopMatrixCheck{false, false, "none: the self-test " + why}; };
  // The result of an earlier run with this device and driver, where kept.
  std::string record;
  if (std::string dir = cacheDirectory(); !dir.empty() && !cacheKey_.empty())
    record = dir + "/vulkan-coopmat/" + cacheKey_ + ".txt";
  if (!record.empty())
    if (std::optional<CoopMatrixCheck> kept = readCoopMatrixRecord(record)) {
      kept->detail += " [kept from an earlier run]";
      return *kept;
    }
  // A result the self-test reached (right or wrong products) is kept; one it could not reach
  // (allocation, loading, launch) is not.
  auto keep = [&record](CoopMatrixCheck check) {
    if (!record.empty()) writeCoopMatrixRecord(record, check);
    return check;
  };

  // One run of the probe shader (bf16: A and B as bf16 matrices). `reached` false: it could not
  // run (the reason in `error`); else `error` is empty when every element was exact.
  struct Run {
    bool reached = false;
    std::string error;
    std::vector<float> lanes;
  };
  const uint32_t subgroup = physical_.info.info.subgroupSize;
  const uint32_t perLane = kN * kN / subgroup;
  // A probe shader as an artifact of the chip vulkan1.3+coopmat[+bf16], `threads` invocations.
  auto probeArtifact = [&](const char *entry, const std::vector<uint32_t> &words, bool bf16, uint32_t threads) {
    Artifact artifact;
    artifact.target = {TargetKind::SPIRV, std::string("vulkan1.3") + kCoopMatrixSuffix + (bf16 ? kCoopBF16Suffix : ""), 0,
                       subgroup};
    artifact.entryPoint = entry;
    artifact.blockSize = {threads, 1, 1};
    artifact.code.resize(words.size() * 4);
    std::memcpy(artifact.code.data(), words.data(), artifact.code.size()); // little-endian hosts only (as everywhere)
    return artifact;
  };
  // The workgroup-scope shader (workgroupMatrixProbeSpirv): D = A x B + C, 64 x 64 x 32, at 128
  // invocations, with the same small integers.
  auto runWorkgroup = [&](bool bf16) -> Run {
    constexpr uint32_t M = kWorkgroupProbeM, N = kWorkgroupProbeN, K = kWorkgroupProbeK;
    KernelEntry kernel;
    kernel.name = kWorkgroupMatrixProbeEntry;
    kernel.args = {{"a", ArgKind::Buffer, DType::F16, 0}, {"b", ArgKind::Buffer, DType::F16, 1},
                   {"c", ArgKind::Buffer, DType::F32, 2}};
    const Artifact artifact =
        probeArtifact(kWorkgroupMatrixProbeEntry, workgroupMatrixProbeSpirv(bf16), bf16, kWorkgroupProbeInvocations);
    Result<std::unique_ptr<detail::DriverKernel>> probe = loadKernel(kernel, artifact);
    if (!probe) return {false, "could not be loaded: " + probe.status().message(), {}};
    std::mt19937 rng(std::random_device{}());
    std::uniform_int_distribution<int> small(-3, 3), acc(-64, 64);
    std::vector<uint16_t> a(M * K), b(K * N);
    std::vector<float> fa(M * K), fb(K * N), c(M * N), expect(M * N), got(M * N);
    for (size_t i = 0; i < a.size(); ++i) {
      fa[i] = float(small(rng));
      a[i] = bf16 ? tessera::bf16::fromFloat(fa[i]).bits : f16::fromFloat(fa[i]).bits;
    }
    for (size_t i = 0; i < b.size(); ++i) {
      fb[i] = float(small(rng));
      b[i] = bf16 ? tessera::bf16::fromFloat(fb[i]).bits : f16::fromFloat(fb[i]).bits;
    }
    for (float &v : c) v = float(acc(rng));
    for (uint32_t i = 0; i < M; ++i)
      for (uint32_t j = 0; j < N; ++j) {
        float sum = c[i * N + j];
        for (uint32_t k = 0; k < K; ++k) sum += fa[i * K + k] * fb[k * N + j];
        expect[i * N + j] = sum;
      }
    VulkanBuffer da(*this), db(*this), dc(*this);
    struct Init {
      VulkanBuffer *buffer;
      const void *data;
      size_t bytes;
    };
    for (Init in : {Init{&da, a.data(), a.size() * 2}, Init{&db, b.data(), b.size() * 2},
                    Init{&dc, c.data(), c.size() * 4}}) {
      if (Status s = in.buffer->init(in.bytes); !s) return {false, "could not allocate: " + s.message(), {}};
      if (Status s = in.buffer->upload(in.data, in.bytes, 0); !s) return {false, "could not upload: " + s.message(), {}};
    }
    const detail::LaunchArg args[3] = {{&kernel.args[0], &da, nullptr}, {&kernel.args[1], &db, nullptr},
                                       {&kernel.args[2], &dc, nullptr}};
    if (Status s = (*probe)->launch(defaultStream(), {1, 1, 1}, args); !s) return {false, "could not run: " + s.message(), {}};
    if (Status s = defaultStream().synchronize(); !s) return {false, "could not run: " + s.message(), {}};
    if (Status s = dc.download(got.data(), got.size() * 4, 0); !s) return {false, "could not download: " + s.message(), {}};
    Run out{true, "", {}};
    int wrong = 0, first = -1;
    for (size_t i = 0; i < got.size(); ++i)
      if (std::memcmp(&got[i], &expect[i], sizeof(float)) != 0 && wrong++ == 0) first = int(i);
    if (wrong)
      out.error = "computed " + std::to_string(wrong) + " of " + std::to_string(M * N) + " elements wrong (first: row " +
                  std::to_string(first / N) + ", column " + std::to_string(first % N) + ": " +
                  std::to_string(got[first]) + " instead of " + std::to_string(expect[first]) + ")";
    return out;
  };
  auto run = [&](bool bf16) -> Run {
    KernelEntry kernel;
    kernel.name = kCoopMatrixProbeEntry;
    kernel.args = {{"a", ArgKind::Buffer, DType::F16, 0}, {"b", ArgKind::Buffer, DType::F16, 1},
                   {"c", ArgKind::Buffer, DType::F32, 2}, {"x", ArgKind::Buffer, DType::F32, 3},
                   {"lanes", ArgKind::Buffer, DType::F32, 4}};
    const Artifact artifact = probeArtifact(kCoopMatrixProbeEntry, coopMatrixProbeSpirv(subgroup, bf16), bf16, subgroup);
    Result<std::unique_ptr<detail::DriverKernel>> probe = loadKernel(kernel, artifact);
    if (!probe) return {false, "could not be loaded: " + probe.status().message(), {}};

    // Small integers: every product and partial sum is exact (in bf16 too: 8 significant bits).
    std::mt19937 rng(std::random_device{}());
    std::uniform_int_distribution<int> small(-3, 3), acc(-64, 64);
    uint16_t a[kN * kN], b[kN * kN];
    float c[kN * kN], expect[kN * kN], got[kN * kN];
    float fa[kN * kN], fb[kN * kN];
    for (int i = 0; i < kN * kN; ++i) {
      fa[i] = float(small(rng));
      fb[i] = float(small(rng));
      c[i] = float(acc(rng));
      a[i] = bf16 ? tessera::bf16::fromFloat(fa[i]).bits : f16::fromFloat(fa[i]).bits;
      b[i] = bf16 ? tessera::bf16::fromFloat(fb[i]).bits : f16::fromFloat(fb[i]).bits;
    }
    for (int i = 0; i < kN; ++i)
      for (int j = 0; j < kN; ++j) {
        float sum = c[i * kN + j];
        for (int k = 0; k < kN; ++k) sum += fa[i * kN + k] * fb[k * kN + j];
        expect[i * kN + j] = sum;
      }
    // X[r][c] = 16 r + c shows which elements each invocation holds; L starts as NaN.
    float x[kN * kN];
    for (int i = 0; i < kN * kN; ++i) x[i] = float(i);
    Run out{true, "", std::vector<float>(1 + size_t(subgroup) * perLane, std::nanf(""))};
    std::vector<float> &lanes = out.lanes;
    VulkanBuffer da(*this), db(*this), dc(*this), dx(*this), dl(*this);
    struct Init {
      VulkanBuffer *buffer;
      const void *data;
      size_t bytes;
    };
    for (Init in : {Init{&da, a, sizeof a}, Init{&db, b, sizeof b}, Init{&dc, c, sizeof c}, Init{&dx, x, sizeof x},
                    Init{&dl, lanes.data(), lanes.size() * sizeof(float)}}) {
      if (Status s = in.buffer->init(in.bytes); !s) return {false, "could not allocate: " + s.message(), {}};
      if (Status s = in.buffer->upload(in.data, in.bytes, 0); !s) return {false, "could not upload: " + s.message(), {}};
    }
    const detail::LaunchArg args[5] = {{&kernel.args[0], &da, nullptr}, {&kernel.args[1], &db, nullptr},
                                       {&kernel.args[2], &dc, nullptr}, {&kernel.args[3], &dx, nullptr},
                                       {&kernel.args[4], &dl, nullptr}};
    if (Status s = (*probe)->launch(defaultStream(), {1, 1, 1}, args); !s) return {false, "could not run: " + s.message(), {}};
    if (Status s = defaultStream().synchronize(); !s) return {false, "could not run: " + s.message(), {}};
    if (Status s = dc.download(got, sizeof got, 0); !s) return {false, "could not download: " + s.message(), {}};
    if (Status s = dl.download(lanes.data(), lanes.size() * sizeof(float), 0); !s)
      return {false, "could not download: " + s.message(), {}};
    int wrong = 0, first = -1;
    for (int i = 0; i < kN * kN; ++i)
      if (std::memcmp(&got[i], &expect[i], sizeof(float)) != 0 && wrong++ == 0) first = i;
    if (wrong)
      out.error = "computed " + std::to_string(wrong) + " of 256 elements wrong (first: row " + std::to_string(first / kN) +
                  ", column " + std::to_string(first % kN) + ": " + std::to_string(got[first]) + " instead of " +
                  std::to_string(expect[first]) + ")";
    return out;
  };
  Run f16Run = run(false);
  if (!f16Run.reached) return fail(f16Run.error);
  if (!f16Run.error.empty()) return keep(fail(f16Run.error));
  const std::vector<float> &lanes = f16Run.lanes;
  // bf16 matrices (VK_KHR_shader_bfloat16), where offered: a run of their own.
  bool bf16 = false;
  std::string bf16Note;
  if (f.bfloat16 && f.bfloat16CoopMatrix && f.coopMatrixBF16) {
    Run b = run(true);
    if (!b.reached) return fail("(bf16) " + b.error); // not kept: the next process tries again
    bf16 = b.error.empty();
    bf16Note = bf16 ? "; bf16 too" : "; bf16 not used: it " + b.error;
  }
  // Workgroup-scope matrices (VK_NV_cooperative_matrix2), where the device lists the probe's
  // shape: f16 (and bf16 where bf16 passed) x f16 + f32 -> f32 at 128 invocations, with
  // granularities that divide 64 x 64 x 32.
  bool workgroup = false;
  std::string workgroupNote;
  if (f.coopMatrixWorkgroupScope && f.coopMatrixFlexibleDimensions) {
    auto listed = [&](uint32_t in) {
      return std::any_of(physical_.flexible.begin(), physical_.flexible.end(), [&](const CoopMatrixFlexibleDimensionsNV &e) {
        return e.scope == kScopeWorkgroup && e.workgroupInvocations == kWorkgroupProbeInvocations && e.AType == in &&
               e.BType == in && e.CType == kComponentFloat32 && e.ResultType == kComponentFloat32 &&
               !e.saturatingAccumulation && e.MGranularity && kWorkgroupProbeM % e.MGranularity == 0 &&
               e.NGranularity && kWorkgroupProbeN % e.NGranularity == 0 && e.KGranularity &&
               kWorkgroupProbeK % e.KGranularity == 0;
      });
    };
    if (!listed(kComponentFloat16)) {
      workgroupNote = "; workgroup scope not used: 64x64x32 f16 at 128 invocations is not listed";
    } else {
      Run w = runWorkgroup(false);
      if (!w.reached) return fail("(workgroup scope) " + w.error);
      if (w.error.empty() && bf16 && listed(kComponentBFloat16)) {
        Run wb = runWorkgroup(true);
        if (!wb.reached) return fail("(workgroup scope, bf16) " + wb.error);
        if (!wb.error.empty()) w.error = "(bf16) " + wb.error;
      }
      workgroup = w.error.empty();
      workgroupNote = workgroup ? "; workgroup scope too" : "; workgroup scope not used: it " + w.error;
    }
  }
  // Do the accumulator's elements sit where mma.sync keeps its C fragments? (If not, the report
  // says what the device does instead.)
  auto [mmaLanes, where] =
      lanesPlaced(lanes, 0, subgroup, perLane, subgroup == 32, "accumulator", "mma.sync's fragments", accumulatorAt);
  // Where A's and B's elements live (operandLanesProbeSpirv). Code for the chip ...+mma-lanes
  // may build an A matrix from a lane's values placed as in an accumulator (coop-a-lanes), so the
  // chip needs A's elements where the accumulator's are (NVIDIA's driver: lane 4g + t, element i
  // at row g + 8 (i / 4), column 2t + i % 2 + 8 ((i / 2) % 2)); a run that could not happen
  // counts as a no for this process and is not kept (the next one tries again). B's placement
  // is reported only (as mma.sync's m16n8k16 fragments, two side by side: k = 2t + i % 2 +
  // 8 ((i / 2) % 2), n = g + 8 (i / 4)).
  std::string operandNote;
  bool operandReached = true;
  if (mmaLanes) {
    KernelEntry kernel;
    kernel.name = kOperandLanesProbeEntry;
    kernel.args = {{"x", ArgKind::Buffer, DType::F16, 0}, {"lanes", ArgKind::Buffer, DType::F32, 1}};
    const Artifact artifact = probeArtifact(kOperandLanesProbeEntry, operandLanesProbeSpirv(subgroup), false, subgroup);
    const size_t half = 1 + size_t(subgroup) * perLane;
    std::vector<float> got(2 * half, std::nanf(""));
    std::vector<uint16_t> x(kN * kN);
    for (int i = 0; i < kN * kN; ++i) x[i] = f16::fromFloat(float(i)).bits;
    VulkanBuffer dx(*this), dl(*this);
    std::string error;
    Result<std::unique_ptr<detail::DriverKernel>> probe = loadKernel(kernel, artifact);
    if (!probe) {
      error = "could not be loaded: " + probe.status().message();
    } else {
      const detail::LaunchArg args[2] = {{&kernel.args[0], &dx, nullptr}, {&kernel.args[1], &dl, nullptr}};
      Status s = dx.init(x.size() * 2);
      if (s) s = dx.upload(x.data(), x.size() * 2, 0);
      if (s) s = dl.init(got.size() * 4);
      if (s) s = dl.upload(got.data(), got.size() * 4, 0);
      if (s) s = (*probe)->launch(defaultStream(), {1, 1, 1}, args);
      if (s) s = defaultStream().synchronize();
      if (s) s = dl.download(got.data(), got.size() * 4, 0);
      if (!s) error = "could not run: " + s.message();
    }
    if (!error.empty()) {
      mmaLanes = false, operandReached = false;
      operandNote = "; mma-lanes code not used: the A and B lanes probe " + error;
    } else {
      auto [aLikeAcc, aNote] = lanesPlaced(got, 0, subgroup, perLane, true, "A", "the accumulator's", accumulatorAt);
      const std::string bNote =
          lanesPlaced(got, half, subgroup, perLane, true, "B", "mma.sync's fragments", [](uint32_t g, uint32_t t, uint32_t i) {
            return (2 * t + i % 2 + 8 * ((i / 2) % 2)) * kN + g + 8 * (i / 4);
          }).second;
      mmaLanes = aLikeAcc;
      operandNote = "; " + aNote + "; " + bNote +
                    (aLikeAcc ? "" : " (mma-lanes code not used: it builds A matrices as accumulators)");
    }
  }
  CoopMatrixCheck check{true, mmaLanes,
                        std::string("cooperative matrices: self-test passed (") + kShape + "; " + where + operandNote +
                            bf16Note + workgroupNote + ")",
                        bf16, workgroup};
  return operandReached ? keep(check) : check;
}

} // namespace tessera::vulkan
