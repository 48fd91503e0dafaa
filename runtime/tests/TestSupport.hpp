// Shared by the runtime tests: the add_scalar test package, device iteration, poison and random inputs.
#pragma once

#include "tessera/runtime/Runtime.hpp"

#include <doctest/doctest.h>

#include "AddScalarPtx.h"
#include "AddScalarSpirv.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

namespace tessera::test {

inline bool contains(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

inline std::string lowercaseCopy(std::string s) {
  for (char &c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// Status codes compared as names: doctest then prints "corrupt" rather than a number.
inline std::string codeName(StatusCode c) { return toString(c); }
inline std::string codeOf(const Status &s) { return toString(s.code()); }

inline std::string nameOf(Backend b) { return toString(b); }
inline std::string nameOf(TargetKind k) { return toString(k); }
inline std::string nameOf(DType t) { return std::string(toString(t)); }

/// The format's checksum, written out again here so the tests do not trust the code they test.
inline uint64_t fnv1a64(const uint8_t *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/// Rewrites the header checksum after a test edits the payload on purpose.
inline void resealPackage(std::vector<uint8_t> &bytes) {
  uint64_t h = fnv1a64(bytes.data() + 32, bytes.size() - 32);
  for (int i = 0; i < 8; ++i) bytes[24 + i] = static_cast<uint8_t>(h >> (8 * i));
}

inline Artifact spirvArtifact(uint32_t subgroupSize) {
  Artifact a;
  a.target = {TargetKind::SPIRV, "vulkan1.1", 0, subgroupSize};
  a.entryPoint = "add_scalar";
  a.blockSize = {64, 1, 1};
  a.pushConstantBytes = 8;
  a.code.assign(kAddScalarSpirv, kAddScalarSpirv + kAddScalarSpirvSize);
  return a;
}

inline Artifact ptxArtifact(const std::string &chip = "sm_50") {
  Artifact a;
  a.target = {TargetKind::PTX, chip, 70, 32};
  a.entryPoint = "add_scalar";
  a.blockSize = {64, 1, 1};
  a.code.assign(kAddScalarPtx, kAddScalarPtx + kAddScalarPtxSize);
  return a;
}

/// add_scalar(a: f32 buffer, out: f32 buffer, s: f32, n: i32): out[i] = a[i] + s for i < n.
inline KernelEntry addScalarKernel(std::vector<Artifact> artifacts) {
  KernelEntry k;
  k.name = "add_scalar";
  k.args = {{"a", ArgKind::Buffer, DType::F32, 0},
            {"out", ArgKind::Buffer, DType::F32, 1},
            {"s", ArgKind::Scalar, DType::F32, 0},
            {"n", ArgKind::Scalar, DType::I32, 4}};
  k.tileIR = "// add_scalar (hand-written test kernel)";
  k.artifacts = std::move(artifacts);
  return k;
}

/// A package whose add_scalar runs on `device`: SPIR-V for its subgroup size, plus PTX.
inline Package packageFor(const Device &device) {
  Package p;
  p.kernels.push_back(addScalarKernel({ptxArtifact(), spirvArtifact(device.backendInfo().subgroupSize)}));
  return p;
}

struct TargetRef {
  uint32_t device;
  Backend backend;
  std::string label;
};

/// Every device × backend this machine offers.
inline std::vector<TargetRef> everyTarget(const Runtime &rt) {
  std::vector<TargetRef> out;
  for (const DeviceInfo &d : rt.devices())
    for (const BackendInfo &b : d.backends) out.push_back({d.index, b.backend, d.name + " via " + toString(b.backend)});
  return out;
}

inline std::shared_ptr<Runtime> runtime() {
  auto rt = Runtime::create();
  REQUIRE_MESSAGE(rt.ok(), rt.status().toString());
  return *rt;
}

inline std::shared_ptr<Device> openTarget(Runtime &rt, const TargetRef &t) {
  auto dev = rt.open(t.device, t.backend);
  REQUIRE_MESSAGE(dev.ok(), dev.status().toString());
  return *dev;
}

inline Buffer allocateOrFail(Device &d, DType t, size_t n) {
  auto b = d.allocate(t, n);
  REQUIRE_MESSAGE(b.ok(), b.status().toString());
  return *b;
}

/// Fresh inputs every run; the seed is reported with any failure so a run can be repeated.
inline std::vector<float> randomFloats(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
  std::vector<float> v(n);
  for (float &x : v) x = dist(gen);
  return v;
}

inline uint32_t freshSeed() { return std::random_device{}(); }

/// All-ones bytes are a NaN pattern: any element a kernel failed to write stays visible.
inline constexpr uint32_t kPoisonBits = 0xFFFFFFFFu;
inline Status poison(Buffer &b) {
  std::vector<uint8_t> bytes(b.bytes(), 0xFF);
  return b.upload(bytes.data(), bytes.size());
}

inline uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

/// Sets or clears an environment variable for one scope.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name)) old_ = old, hadOld_ = true;
    if (value) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~ScopedEnv() {
    if (hadOld_) setenv(name_.c_str(), old_.c_str(), 1);
    else unsetenv(name_.c_str());
  }

private:
  std::string name_, old_;
  bool hadOld_ = false;
};

/// TESSERA_CACHE_DIR pointed at a fresh folder (named after `prefix`) for the object's lifetime;
/// the folder is removed and the previous setting restored after.
struct ScopedCacheDir {
  std::string dir;
  std::string previous;
  bool had = false;
  explicit ScopedCacheDir(const std::string &prefix) {
    dir = (std::filesystem::temp_directory_path() / (prefix + std::to_string(std::random_device{}()))).string();
    if (const char *p = std::getenv("TESSERA_CACHE_DIR")) had = true, previous = p;
    setenv("TESSERA_CACHE_DIR", dir.c_str(), 1);
  }
  ScopedCacheDir(const ScopedCacheDir &) = delete;
  ScopedCacheDir &operator=(const ScopedCacheDir &) = delete;
  ~ScopedCacheDir() {
    if (had) setenv("TESSERA_CACHE_DIR", previous.c_str(), 1);
    else unsetenv("TESSERA_CACHE_DIR");
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  /// The files in `sub` of the folder (none when it does not exist).
  std::vector<std::filesystem::path> files(const std::string &sub) const {
    std::vector<std::filesystem::path> out;
    std::error_code ec;
    if (std::filesystem::exists(dir + "/" + sub, ec))
      for (const auto &e : std::filesystem::directory_iterator(dir + "/" + sub)) out.push_back(e.path());
    return out;
  }
};

} // namespace tessera::test
