// Targets are checked before LLVM sees them: LLVM would abort the process on a bad chip or PTX ISA.
#include "TestSupport.hpp"

using namespace tessera;
using namespace tessera::test;

namespace {

std::string invalidTargetMessage(const TargetDesc &t) {
  Result<TargetDesc> r = validateTarget(t);
  REQUIRE_FALSE(r.ok());
  CHECK(codeOf(r.status()) == codeName(StatusCode::InvalidArgument));
  return r.status().message();
}

} // namespace

TEST_CASE("target.ptx_too_old_for_chip") {
  std::string m = invalidTargetMessage(nvptxTarget("sm_90", 60));
  INFO("message: ", m);
  CHECK(contains(m, "PTX ISA 6.0 cannot target sm_90"));
  CHECK(contains(m, "7.8")); // the oldest PTX ISA that works
}

TEST_CASE("target.unknown_chip_lists_known_chips") {
  std::string m = invalidTargetMessage(nvptxTarget("sm_99"));
  INFO("message: ", m);
  CHECK(contains(m, "unknown NVPTX chip 'sm_99'"));
  CHECK(contains(m, "known chips:"));
  for (const char *chip : {"sm_50", "sm_80", "sm_90", "sm_90a", "sm_100", "sm_120"})
    CHECK_MESSAGE(contains(m, chip), chip);
}

TEST_CASE("target.unknown_ptx_version") {
  std::string m = invalidTargetMessage(nvptxTarget("sm_90", 79));
  INFO("message: ", m);
  CHECK(contains(m, "unknown PTX ISA version 79"));
  CHECK(contains(m, "7.8"));
  CHECK(contains(m, "8.0"));
}

TEST_CASE("target.ptx_version_zero_resolves_to_oldest") {
  Result<TargetDesc> sm90 = validateTarget(nvptxTarget("sm_90", 0));
  REQUIRE_MESSAGE(sm90.ok(), sm90.status().toString());
  CHECK(sm90->ptxVersion == 78);
  CHECK(sm90->chip == "sm_90");
  CHECK(sm90->subgroupSize == 32);

  Result<TargetDesc> sm90a = validateTarget(nvptxTarget("sm_90a"));
  REQUIRE_MESSAGE(sm90a.ok(), sm90a.status().toString());
  CHECK(sm90a->ptxVersion == 80);

  // An explicit version that is new enough is kept as given.
  Result<TargetDesc> explicit88 = validateTarget(nvptxTarget("sm_90", 88));
  REQUIRE_MESSAGE(explicit88.ok(), explicit88.status().toString());
  CHECK(explicit88->ptxVersion == 88);
}

TEST_CASE("target.ptx_warp_size_is_32") {
  TargetDesc t = nvptxTarget("sm_90");
  t.subgroupSize = 16;
  std::string m = invalidTargetMessage(t);
  INFO("message: ", m);
  CHECK(contains(m, "subgroup size 16"));
}

TEST_CASE("target.spirv_subgroup_sizes") {
  for (uint32_t bad : {0u, 3u, 256u}) {
    CAPTURE(bad);
    std::string m = invalidTargetMessage(spirvTarget(bad));
    INFO("message: ", m);
    CHECK(contains(m, "subgroup size " + std::to_string(bad)));
    CHECK(contains(m, "power of two"));
  }
  for (uint32_t good : {8u, 32u, 64u}) {
    CAPTURE(good);
    Result<TargetDesc> r = validateTarget(spirvTarget(good));
    REQUIRE_MESSAGE(r.ok(), r.status().toString());
    CHECK(r->subgroupSize == good);
    CHECK(r->chip == "vulkan1.1");
    CHECK(nameOf(r->kind) == nameOf(TargetKind::SPIRV));
  }
}

TEST_CASE("target.spirv_soft_denormals") {
  Result<TargetDesc> r = validateTarget(spirvTarget(8, true));
  REQUIRE(r.ok());
  CHECK(r->chip == "vulkan1.1+soft-denormals");
  CHECK(hasSoftDenormals(r->chip));
  CHECK_FALSE(hasSoftDenormals(spirvTarget(8).chip));
}

TEST_CASE("target.spirv_unknown_environment") {
  TargetDesc t = spirvTarget(32);
  t.chip = "opencl2.0";
  std::string m = invalidTargetMessage(t);
  INFO("message: ", m);
  CHECK(contains(m, "unknown SPIR-V environment 'opencl2.0'"));
}

TEST_CASE("target.bad_target_fails_compile_without_aborting") {
  // The point of validateTarget: these would reach LLVM and abort the process otherwise.
  TracedKernel k = require(traceVectorAdd(128, 4), "trace vector_add");
  std::string expected = validateTarget(nvptxTarget("sm_90", 60)).status().message();

  auto pkg = compile(k, nvptxTarget("sm_90", 60));
  REQUIRE_FALSE(pkg.ok());
  CHECK(codeOf(pkg.status()) == codeName(StatusCode::InvalidArgument));
  CHECK(pkg.status().message() == expected);

  auto artifact = compileArtifact(k, nvptxTarget("sm_90", 60));
  REQUIRE_FALSE(artifact.ok());
  CHECK(artifact.status().message() == expected);

  auto text = emit(k, nvptxTarget("sm_90", 60), Stage::PTX);
  REQUIRE_FALSE(text.ok());
  CHECK(text.status().message() == expected);

  auto unknownChip = compile(k, nvptxTarget("sm_99"));
  REQUIRE_FALSE(unknownChip.ok());
  CHECK(contains(unknownChip.status().message(), "known chips"));

  auto badSubgroup = compile(k, spirvTarget(3));
  REQUIRE_FALSE(badSubgroup.ok());
  CHECK(contains(badSubgroup.status().message(), "subgroup size 3"));

  // Still alive, and a good target still compiles.
  auto good = compile(k, nvptxTarget("sm_90"));
  CHECK_MESSAGE(good.ok(), good.status().toString());
}

TEST_CASE("target.one_bad_target_fails_the_package") {
  TracedKernel k = require(traceVectorAdd(128, 4), "trace vector_add");
  std::vector<TargetDesc> targets{spirvTarget(32), nvptxTarget("sm_90", 60)};
  auto pkg = compile(std::span<const TracedKernel>(&k, 1), targets);
  REQUIRE_FALSE(pkg.ok());
  CHECK(contains(pkg.status().message(), "cannot target sm_90"));
}

TEST_CASE("target.empty_kernel_is_an_error") {
  TracedKernel empty;
  auto artifact = compileArtifact(empty, spirvTarget(32));
  REQUIRE_FALSE(artifact.ok());
  CHECK(codeOf(artifact.status()) == codeName(StatusCode::InvalidArgument));
  auto text = emit(empty, spirvTarget(32), Stage::Tile);
  REQUIRE_FALSE(text.ok());
  CHECK(codeOf(text.status()) == codeName(StatusCode::InvalidArgument));
}
