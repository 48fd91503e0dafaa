// Compiled packages carry each kernel's signature and artifacts intact through the package format.
#include "TestSupport.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

struct CompiledPair {
  std::vector<TracedKernel> kernels;
  std::vector<TargetDesc> targets;
  Package pkg;
};

CompiledPair compileTwoKernelsThreeTargets() {
  CompiledPair c;
  c.kernels = {require(traceVectorAdd(1024, 4), "trace vector_add"), require(traceMaskedScale(), "trace masked_scale")};
  c.targets = {nvptxTarget("sm_90"), spirvTarget(8), spirvTarget(32)};
  c.pkg = require(compile(c.kernels, c.targets), "compile package");
  return c;
}

} // namespace

TEST_CASE("package.contents") {
  CompiledPair c = compileTwoKernelsThreeTargets();
  REQUIRE(c.pkg.kernels.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    const KernelEntry &e = c.pkg.kernels[i];
    const TracedKernel &k = c.kernels[i];
    CAPTURE(k.name());
    CHECK(e.name == k.name());
    CHECK(e.args == k.signature());
    CHECK(e.numWarps == k.numWarps());
    CHECK(e.tileIR == k.tileIR());
    // Artifacts come in target order, each with the resolved target (ptxVersion 0 -> 78): the
    // plain code, then its variant for launches whose n (argument 3, the mask's bound) is a
    // multiple of 16.
    REQUIRE(e.artifacts.size() == 6);
    for (size_t t = 0; t < 3; ++t)
      for (size_t v = 0; v < 2; ++v) {
        const Artifact &a = e.artifacts[2 * t + v];
        CHECK(a.target == *validateTarget(c.targets[t]));
        CHECK(a.entryPoint == k.name());
        CHECK(a.divisibleArgs == (v ? std::vector<uint32_t>{3} : std::vector<uint32_t>{}));
      }
  }
  CHECK(c.pkg.find("masked_scale") == &c.pkg.kernels[1]);
  CHECK(c.pkg.find("nope") == nullptr);
}

TEST_CASE("package.serialize_round_trip") {
  CompiledPair c = compileTwoKernelsThreeTargets();
  std::vector<uint8_t> bytes = serializePackage(c.pkg);
  Result<Package> back = parsePackage(bytes);
  REQUIRE_MESSAGE(back.ok(), back.status().toString());
  CHECK(*back == c.pkg);
  CHECK(serializePackage(*back) == bytes);
}

TEST_CASE("package.find_picks_the_matching_artifact") {
  CompiledPair c = compileTwoKernelsThreeTargets();
  Package pkg = require(parsePackage(serializePackage(c.pkg)), "parse package");
  for (const KernelEntry &e : pkg.kernels) {
    CAPTURE(e.name);
    const Artifact *sg8 = e.find(TargetKind::SPIRV, 8);
    REQUIRE(sg8 != nullptr);
    CHECK(sg8->target.subgroupSize == 8);
    CHECK(sg8 == &e.artifacts[2]); // the plain code, not its variant
    CHECK(sg8->divisibleArgs.empty());
    CHECK(sg8->blockSize[0] == e.numWarps * 8);

    const Artifact *sg32 = e.find(TargetKind::SPIRV, 32);
    REQUIRE(sg32 != nullptr);
    CHECK(sg32->target.subgroupSize == 32);

    const Artifact *ptx = e.find(TargetKind::PTX, 32);
    REQUIRE(ptx != nullptr);
    CHECK(nameOf(ptx->target.kind) == nameOf(TargetKind::PTX));
    CHECK(contains(ptxText(*ptx), ".entry " + e.name));

    CHECK(e.find(TargetKind::SPIRV, 64) == nullptr); // not compiled for subgroup size 64
  }
}

TEST_CASE("package.empty_inputs") {
  TracedKernel k = require(traceVectorAdd(128, 4), "trace vector_add");
  Package noTargets = require(compile(std::span<const TracedKernel>(&k, 1), std::span<const TargetDesc>()), "no targets");
  REQUIRE(noTargets.kernels.size() == 1);
  CHECK(noTargets.kernels[0].artifacts.empty());
  std::vector<TargetDesc> targets{spirvTarget(32)};
  Package noKernels = require(compile(std::span<const TracedKernel>(), targets), "no kernels");
  CHECK(noKernels.kernels.empty());
}
