// The cooperative-matrix self-test's record on disk: the text round-trips, every damaged or
// truncated record is ignored, and on a real device the second process finds the first one's
// result (where the device has cooperative matrices; lavapipe has none and writes nothing).
#include "TestSupport.hpp"

#include "vulkan/VulkanFeatures.hpp"


using namespace tessera;
using namespace tessera::test;
using tessera::vulkan::CoopMatrixCheck;

namespace {

void checkSame(const std::optional<CoopMatrixCheck> &got, const CoopMatrixCheck &want) {
  REQUIRE(got.has_value());
  CHECK(got->usable == want.usable);
  CHECK(got->mmaLanes == want.mmaLanes);
  CHECK(got->detail == want.detail);
}

} // namespace

TEST_CASE("coopmat_record.round_trips") {
  const CoopMatrixCheck checks[] = {
      {true, true, "cooperative matrices: self-test passed (16x16x16; accumulator lanes as mma.sync's fragments)"},
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
