// The cooperative-matrix self-test's record on disk: the text round-trips, every damaged or
// truncated record is ignored, and on a real device the second process finds the first one's
// result (where the device has cooperative matrices; lavapipe has none and writes nothing).
#include "TestSupport.hpp"

#include "vulkan/VulkanFeatures.hpp"

#include <cinttypes>
#include <cstdio>


using namespace tessera;
using namespace tessera::test;
using tessera::vulkan::CoopMatrixCheck;

namespace {

void checkSame(const std::optional<CoopMatrixCheck> &got, const CoopMatrixCheck &want) {
  REQUIRE(got.has_value());
  CHECK(got->usable == want.usable);
  CHECK(got->mmaLanes == want.mmaLanes);
  CHECK(got->detail == want.detail);
  CHECK(got->bf16 == want.bf16);
  CHECK(got->workgroup == want.workgroup);
}

} // namespace

TEST_CASE("coopmat_record.round_trips") {
  const CoopMatrixCheck checks[] = {
      {true, true, "cooperative matrices: self-test passed (16x16x16; accumulator lanes as mma.sync's fragments)"},
      {true, true, "cooperative matrices: self-test passed (f16 and bf16)", true},
      {true, true, "cooperative matrices: self-test passed (workgroup scope too)", true, true},
      {true, false, "cooperative matrices: self-test passed (workgroup scope, no bf16)", false, true},
      {true, false, "cooperative matrices: self-test passed (lanes: 0: (0,0) ?)"},
      {false, false, "none: the self-test computed 3 of 256 elements wrong (first: row 1, column 2: 5 instead of 4)"},
  };
  for (const CoopMatrixCheck &c : checks) {
    CAPTURE(c.detail);
    checkSame(vulkan::parseCoopMatrixRecord(vulkan::formatCoopMatrixRecord(c)), c);
  }
  // A line break in the detail would end the line: it is kept as a space.
  std::optional<CoopMatrixCheck> flat = vulkan::parseCoopMatrixRecord(vulkan::formatCoopMatrixRecord({true, false, "a\nb"}));
  REQUIRE(flat);
  CHECK(flat->detail == "a b");
}

TEST_CASE("coopmat_record.damage_is_ignored") {
  const std::string text = vulkan::formatCoopMatrixRecord({true, true, "cooperative matrices: self-test passed"});
  for (size_t n = 0; n < text.size(); ++n) CHECK_FALSE(vulkan::parseCoopMatrixRecord(text.substr(0, n)));
  for (size_t i = 0; i < text.size(); ++i) {
    std::string bad = text;
    bad[i] = char(bad[i] ^ 0x01);
    CAPTURE(i);
    CHECK_FALSE(vulkan::parseCoopMatrixRecord(bad));
  }
  CHECK_FALSE(vulkan::parseCoopMatrixRecord(text + "x"));
  // Accumulator lanes without a passed self-test is not a result: refused even with a right hash.
  CHECK_FALSE(vulkan::parseCoopMatrixRecord(vulkan::formatCoopMatrixRecord({false, true, "none"})));
  CHECK_FALSE(vulkan::parseCoopMatrixRecord(vulkan::formatCoopMatrixRecord({false, false, "none", true})));
  CHECK_FALSE(vulkan::parseCoopMatrixRecord(vulkan::formatCoopMatrixRecord({false, false, "none", false, true})));
  // Records of earlier versions (v1: no bf16 line; v2: no workgroup line; v3: mma-lanes without
  // the check of A's lanes) are not read: the self-test runs again.
  for (const std::string old : {std::string("tessera cooperative-matrix self-test v1\nusable 1\nmma-lanes 1\ndetail passed\n"),
                                std::string("tessera cooperative-matrix self-test v2\nusable 1\nmma-lanes 1\nbf16 1\n"
                                            "detail passed\n"),
                                std::string("tessera cooperative-matrix self-test v3\nusable 1\nmma-lanes 1\nbf16 1\n"
                                            "workgroup 1\ndetail passed\n")}) {
    char hash[40];
    std::snprintf(hash, sizeof hash, "fnv1a %016" PRIx64 "\n",
                  fnv1a64(std::span<const uint8_t>(reinterpret_cast<const uint8_t *>(old.data()), old.size())));
    CHECK_FALSE(vulkan::parseCoopMatrixRecord(old + hash));
  }
}

TEST_CASE("coopmat_record.file_round_trip") {
  ScopedCacheDir cache("tessera-coopmat-");
  const std::string path = cache.dir + "/vulkan-coopmat/key.txt";
  CHECK_FALSE(vulkan::readCoopMatrixRecord(path)); // none yet
  const CoopMatrixCheck c{true, false, "cooperative matrices: self-test passed"};
  vulkan::writeCoopMatrixRecord(path, c); // makes the folder
  checkSame(vulkan::readCoopMatrixRecord(path), c);
}

TEST_CASE("coopmat_record.second_process_finds_the_first_ones_result") {
  ScopedCacheDir cache("tessera-coopmat-");
  auto matrixUnitsOfEveryVulkanDevice = [] {
    std::vector<std::string> out;
    std::shared_ptr<Runtime> rt = runtime();
    for (const TargetRef &t : everyTarget(*rt))
      if (t.backend == Backend::Vulkan) out.push_back(openTarget(*rt, t)->matrixUnits());
    return out;
  };
  const std::vector<std::string> first = matrixUnitsOfEveryVulkanDevice();
  const std::vector<std::string> second = matrixUnitsOfEveryVulkanDevice();
  REQUIRE(first.size() == second.size());
  size_t tested = 0;
  for (size_t i = 0; i < first.size(); ++i) {
    CAPTURE(first[i]);
    if (first[i].starts_with("cooperative matrices: self-test passed") || first[i].starts_with("none: the self-test computed")) {
      ++tested; // the self-test ran: the second process read its record
      CHECK(second[i] == first[i] + " [kept from an earlier run]");
    } else {
      CHECK(second[i] == first[i]); // no self-test (no extension, or it could not run): nothing kept
    }
  }
  const size_t records = cache.files("vulkan-coopmat").size();
  CHECK(records <= tested); // a record only where a self-test ran (devices of one driver share one)
  CHECK((tested == 0) == (records == 0));
}

TEST_CASE("coopmat_shapes.described_for_reports") {
  using vulkan::CoopMatrixPropertiesKHR;
  auto shape = [](uint32_t m, uint32_t n, uint32_t k, uint32_t a, uint32_t c, bool saturating, uint32_t scope) {
    CoopMatrixPropertiesKHR p;
    p.MSize = m, p.NSize = n, p.KSize = k, p.AType = a, p.BType = a, p.CType = c, p.ResultType = c;
    p.saturatingAccumulation = saturating, p.scope = scope;
    return vulkan::describeCoopMatrixShape(p);
  };
  CHECK(shape(16, 16, 16, vulkan::kComponentFloat16, vulkan::kComponentFloat32, false, vulkan::kScopeSubgroup) ==
        "16x16x16 f16*f16+f32->f32");
  CHECK(shape(16, 8, 16, vulkan::kComponentBFloat16, vulkan::kComponentFloat32, false, vulkan::kScopeSubgroup) ==
        "16x8x16 bf16*bf16+f32->f32");
  CHECK(shape(8, 8, 32, 3, 5, true, vulkan::kScopeSubgroup) == "8x8x32 i8*i8+i32->i32 saturating");
  CHECK(shape(64, 32, 16, vulkan::kComponentFloat16, vulkan::kComponentFloat16, false, 2) ==
        "64x32x16 f16*f16+f16->f16 workgroup");
  CHECK(shape(16, 16, 32, 1000491002, vulkan::kComponentFloat16, false, 7) == "16x16x32 e4m3*e4m3+f16->f16 scope<7>");
  CHECK(shape(16, 16, 16, 424242, vulkan::kComponentFloat32, false, vulkan::kScopeSubgroup) ==
        "16x16x16 type<424242>*type<424242>+f32->f32");
}

TEST_CASE("coopmat_shapes.bf16_feature_needs_the_shape_and_both_flags") {
  vulkan::ShaderFeatures f;
  f.coopMatrix = f.bfloat16 = f.bfloat16CoopMatrix = true;
  auto has = [&](const char *name) {
    std::vector<std::string> n = f.names();
    return std::find(n.begin(), n.end(), name) != n.end();
  };
  CHECK(has("bfloat16"));
  CHECK_FALSE(has("cooperative_matrix.bf16.16x16x16")); // the shape is not listed
  f.coopMatrixBF16 = true;
  CHECK(has("cooperative_matrix.bf16.16x16x16"));
  f.bfloat16CoopMatrix = false;
  CHECK_FALSE(has("cooperative_matrix.bf16.16x16x16"));
}
