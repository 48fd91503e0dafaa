// Discovery and selection: what this machine offers, the device order, and TESSERA_DEVICE / TESSERA_BACKEND.
//
// On the build machine the expected picture is lavapipe through Vulkan and no CUDA. On a GPU
// machine without lavapipe set TESSERA_TEST_NO_LAVAPIPE=1; the other tests adapt to what is present.
#include "TestSupport.hpp"

#include <cstdio>
#include <cstring>

using namespace tessera;
using namespace tessera::test;

namespace {

bool hasBackendAnywhere(const Runtime &rt, Backend b) {
  for (const DeviceInfo &d : rt.devices())
    if (d.find(b)) return true;
  return false;
}

std::string absenceOf(const Runtime &rt, Backend b) {
  for (const BackendAbsence &a : rt.absentBackends())
    if (a.backend == b) return a.reason;
  return {};
}

} // namespace

TEST_CASE("discovery.report") {
  auto rt = runtime();
  for (const DeviceInfo &d : rt->devices())
    for (const BackendInfo &b : d.backends)
      MESSAGE(d.index << ": " << d.name << " via " << nameOf(b.backend) << " subgroup " << b.subgroupSize
                      << std::string(b.backend == d.defaultBackend ? " (default)" : ""));
  for (const BackendAbsence &a : rt->absentBackends()) MESSAGE(nameOf(a.backend) << " absent: " << a.reason);
  CHECK(!rt->devices().empty());
}

TEST_CASE("discovery.vulkan_devices_are_described") {
  auto rt = runtime();
  REQUIRE_MESSAGE(hasBackendAnywhere(*rt, Backend::Vulkan), "vulkan absent: " << absenceOf(*rt, Backend::Vulkan));
  for (const DeviceInfo &d : rt->devices()) {
    const BackendInfo *b = d.find(Backend::Vulkan);
    if (!b) continue;
    CAPTURE(d.name);
    CHECK(std::any_of(d.uuid.begin(), d.uuid.end(), [](uint8_t x) { return x != 0; }));
    CHECK(b->subgroupSize >= 1);
    CHECK((b->subgroupSize & (b->subgroupSize - 1)) == 0);
    CHECK(b->memoryBytes > 0);
    CHECK(b->maxThreadsPerGroup >= 128);
    CHECK(b->maxGroupCount[0] >= 65535);
    CHECK(b->maxSharedMemBytes >= 16384);
    CHECK(b->maxBufferBytes >= (1u << 27));
    CHECK(b->apiVersion.rfind("1.", 0) == 0);
    CHECK(!b->driverVersion.empty());
  }
}

TEST_CASE("discovery.lavapipe") {
  if (std::getenv("TESSERA_TEST_NO_LAVAPIPE")) return;
  auto rt = runtime();
  const DeviceInfo *lavapipe = nullptr;
  for (const DeviceInfo &d : rt->devices())
    if (contains(d.name, "llvmpipe")) lavapipe = &d;
  REQUIRE_MESSAGE(lavapipe != nullptr, "lavapipe not found (set TESSERA_TEST_NO_LAVAPIPE=1 where it is not installed)");
  CHECK(lavapipe->isCpu);
  CHECK(lavapipe->vendor == "Mesa (lavapipe)");
  CHECK(nameOf(lavapipe->defaultBackend) == nameOf(Backend::Vulkan));
  CHECK(lavapipe->find(Backend::CUDA) == nullptr);
  const BackendInfo *vk = lavapipe->find(Backend::Vulkan);
  REQUIRE(vk != nullptr);
  CHECK(vk->subgroupSize >= 4);
  CHECK(contains(vk->driverVersion, "Mesa"));
}

TEST_CASE("discovery.cuda_presence_is_explained") {
  auto rt = runtime();
  if (!hasBackendAnywhere(*rt, Backend::CUDA)) {
    std::string reason = absenceOf(*rt, Backend::CUDA);
    CHECK_MESSAGE(!reason.empty(), "CUDA is absent but absentBackends() does not say why");
    MESSAGE("cuda absent: " << reason);
    return;
  }
  CHECK(absenceOf(*rt, Backend::CUDA).empty());
  for (const DeviceInfo &d : rt->devices()) {
    const BackendInfo *b = d.find(Backend::CUDA);
    if (!b) continue;
    CAPTURE(d.name);
    CHECK(nameOf(d.defaultBackend) == nameOf(Backend::CUDA));
    CHECK(d.vendor == "NVIDIA");
    CHECK(b->computeCapability >= 50);
    CHECK(b->subgroupSize == 32);
    CHECK(b->maxThreadsPerGroup >= 1024);
    CHECK(b->memoryBytes > 0);
  }
}

TEST_CASE("discovery.gpus_before_cpu_implementations") {
  auto rt = runtime();
  bool seenCpu = false;
  for (size_t i = 0; i < rt->devices().size(); ++i) {
    const DeviceInfo &d = rt->devices()[i];
    CHECK(d.index == i);
    if (d.isCpu) seenCpu = true;
    else CHECK_MESSAGE(!seenCpu, d.name << " (a GPU) is listed after a CPU implementation");
  }
}

TEST_CASE("discovery.open_default_without_overrides") {
  ScopedEnv device("TESSERA_DEVICE", nullptr), backend("TESSERA_BACKEND", nullptr);
  auto rt = runtime();
  auto dev = rt->openDefault();
  REQUIRE_MESSAGE(dev.ok(), dev.status().toString());
  CHECK((*dev)->info().index == 0);
  CHECK(nameOf((*dev)->backend()) == nameOf(rt->devices()[0].defaultBackend));
  CHECK(contains((*dev)->describe(), " via "));
}

TEST_CASE("discovery.backend_override_naming_an_absent_backend") {
  auto rt = runtime();
  if (!hasBackendAnywhere(*rt, Backend::CUDA)) {
    ScopedEnv device("TESSERA_DEVICE", nullptr), backend("TESSERA_BACKEND", "cuda");
    auto dev = rt->openDefault();
    REQUIRE_FALSE(dev.ok());
    std::string m = dev.status().message();
    MESSAGE(m);
    CHECK(codeOf(dev.status()) == codeName(StatusCode::Unavailable));
    CHECK(contains(m, "TESSERA_BACKEND=cuda"));
    CHECK(contains(m, absenceOf(*rt, Backend::CUDA)));       // why CUDA is missing
    CHECK(contains(m, rt->devices()[0].name));              // and what is there instead
    CHECK(contains(m, "vulkan"));
  }
  // A device that lacks a backend, asked for by index: the error names what it does have.
  for (const DeviceInfo &d : rt->devices()) {
    for (Backend b : {Backend::CUDA, Backend::Vulkan}) {
      if (d.find(b)) continue;
      std::string index = std::to_string(d.index);
      ScopedEnv device("TESSERA_DEVICE", index.c_str()), backend("TESSERA_BACKEND", toString(b));
      auto dev = rt->openDefault();
      REQUIRE_FALSE(dev.ok());
      CHECK(codeOf(dev.status()) == codeName(StatusCode::Unavailable));
      CHECK(contains(dev.status().message(), d.name));
      CHECK(contains(dev.status().message(), std::string("no ") + toString(b) + " backend"));
      CHECK(contains(dev.status().message(), toString(d.backends[0].backend)));
    }
  }
}

TEST_CASE("discovery.backend_override_loads_only_that_driver") {
  auto everything = runtime();
  for (Backend only : {Backend::CUDA, Backend::Vulkan}) {
    CAPTURE(toString(only));
    const Backend other = only == Backend::CUDA ? Backend::Vulkan : Backend::CUDA;
    ScopedEnv device("TESSERA_DEVICE", nullptr), backend("TESSERA_BACKEND", toString(only));
    auto rt = Runtime::create();
    REQUIRE_MESSAGE(rt.ok(), rt.status().toString());
    // The other driver is absent, and says why; the devices are exactly those reached through `only`.
    CHECK_FALSE(hasBackendAnywhere(**rt, other));
    CHECK(absenceOf(**rt, other) == std::string("not loaded: TESSERA_BACKEND=") + toString(only));
    size_t reachable = 0;
    for (const DeviceInfo &d : everything->devices()) reachable += d.find(only) != nullptr;
    CHECK((*rt)->devices().size() == reachable);
    for (const DeviceInfo &d : (*rt)->devices()) {
      CHECK(d.backends.size() == 1);
      CHECK(d.find(only) != nullptr);
    }
    auto dev = (*rt)->openDefault();
    if (reachable) {
      REQUIRE_MESSAGE(dev.ok(), dev.status().toString());
      CHECK(nameOf((*dev)->backend()) == nameOf(only));
    } else {
      CHECK(codeOf(dev.status()) == codeName(StatusCode::Unavailable));
      CHECK(contains(dev.status().message(), "not loaded: TESSERA_BACKEND="));
    }
  }
}

TEST_CASE("discovery.device_override") {
  auto rt = runtime();
  ScopedEnv backend("TESSERA_BACKEND", nullptr);
  const DeviceInfo &last = rt->devices().back();
  SUBCASE("by index") {
    std::string index = std::to_string(last.index);
    ScopedEnv device("TESSERA_DEVICE", index.c_str());
    auto dev = rt->openDefault();
    REQUIRE_MESSAGE(dev.ok(), dev.status().toString());
    CHECK((*dev)->info().index == last.index);
  }
  SUBCASE("by a part of the name, any case") {
    std::string part = last.name.substr(0, std::min<size_t>(6, last.name.size()));
    for (char &c : part) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    ScopedEnv device("TESSERA_DEVICE", part.c_str());
    auto dev = rt->openDefault();
    REQUIRE_MESSAGE(dev.ok(), dev.status().toString());
    CHECK(contains(lowercaseCopy((*dev)->info().name), lowercaseCopy(part)));
  }
  SUBCASE("a name that matches nothing") {
    ScopedEnv device("TESSERA_DEVICE", "no-such-gpu-anywhere");
    auto dev = rt->openDefault();
    CHECK(codeOf(dev.status()) == codeName(StatusCode::NotFound));
    CHECK(contains(dev.status().message(), "no-such-gpu-anywhere"));
    CHECK(contains(dev.status().message(), last.name));
  }
  SUBCASE("an index past the end") {
    ScopedEnv device("TESSERA_DEVICE", "99");
    auto dev = rt->openDefault();
    CHECK(codeOf(dev.status()) == codeName(StatusCode::NotFound));
    CHECK(contains(dev.status().message(), "99"));
  }
  SUBCASE("a backend that does not exist") {
    ScopedEnv device("TESSERA_DEVICE", nullptr), bad("TESSERA_BACKEND", "metal");
    auto dev = rt->openDefault();
    CHECK(codeOf(dev.status()) == codeName(StatusCode::InvalidArgument));
    CHECK(contains(dev.status().message(), "metal"));
  }
}

TEST_CASE("discovery.target_descriptions") {
  auto rt = runtime();
  for (const TargetRef &t : everyTarget(*rt)) {
    CAPTURE(t.label);
    auto dev = openTarget(*rt, t);
    TargetDesc target = dev->target();
    CHECK(target.subgroupSize == dev->backendInfo().subgroupSize);
    CHECK(target.ptxVersion == 0);
    if (t.backend == Backend::Vulkan) {
      CHECK(nameOf(target.kind) == nameOf(TargetKind::SPIRV));
      // Software f32 denormals exactly where the device does not keep them (promised or measured):
      // lavapipe keeps them, NVIDIA's driver flushes them.
      const std::string support = dev->denormalSupport();
      // "promised", or groups such as "promised (16), flushed (32, 64)": the group naming 32 decides.
      const std::string group = support.substr(0, support.rfind('(', support.find("32")));
      auto endsWith = [&](const char *w) { return group.size() >= std::strlen(w) && group.ends_with(w); };
      const bool keeps32 = support == "promised" || endsWith("promised ") || (endsWith("measured ") && !endsWith("not measured "));
      CAPTURE(support);
      CHECK(target.chip == (keeps32 ? "vulkan1.1" : "vulkan1.1+soft-denormals"));
    } else {
      CHECK(nameOf(target.kind) == nameOf(TargetKind::PTX));
      CHECK(target.chip == "sm_" + std::to_string(dev->backendInfo().computeCapability));
    }
  }
}
