// The cooperative-matrix self-test's result on disk: one small text file per device and driver,
// so the test runs once per driver version, not once per process.
#include "vulkan/VulkanFeatures.hpp"

#include "tessera/runtime/Package.hpp"

#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace tessera::vulkan {

namespace {
constexpr char kMagic[] = "tessera cooperative-matrix self-test v4\n"; // v2: the bf16 line; v3: workgroup;
// v4: mma-lanes also means A matrices keep their elements where accumulators do

uint64_t hashOf(std::string_view text) {
  return fnv1a64(std::span<const uint8_t>(reinterpret_cast<const uint8_t *>(text.data()), text.size()));
}
} // namespace

std::string formatCoopMatrixRecord(const CoopMatrixCheck &check) {
  std::string detail = check.detail;
  for (char &c : detail)
    if (c == '\n' || c == '\r') c = ' ';
  std::string body = std::string(kMagic) + "usable " + (check.usable ? "1" : "0") + "\nmma-lanes " +
                     (check.mmaLanes ? "1" : "0") + "\nbf16 " + (check.bf16 ? "1" : "0") +
                     "\nworkgroup " + (check.workgroup ? "1" : "0") + "\ndetail " + detail + "\n";
  char hash[40];
  std::snprintf(hash, sizeof hash, "fnv1a %016" PRIx64 "\n", hashOf(body));
  return body + hash;
}

std::optional<CoopMatrixCheck> parseCoopMatrixRecord(std::string_view text) {
  const size_t hashLine = text.rfind("fnv1a ");
  if (hashLine == std::string_view::npos || hashLine == 0 || text[hashLine - 1] != '\n') return std::nullopt;
  std::string_view body = text.substr(0, hashLine), tail = text.substr(hashLine);
  char expect[40];
  std::snprintf(expect, sizeof expect, "fnv1a %016" PRIx64 "\n", hashOf(body));
  if (tail != expect || !body.starts_with(kMagic)) return std::nullopt;
  body.remove_prefix(sizeof kMagic - 1);
  // Exactly five lines: usable, mma-lanes, bf16, workgroup, detail.
  auto line = [&](std::string_view key) -> std::optional<std::string_view> {
    const size_t end = body.find('\n');
    if (end == std::string_view::npos || !body.starts_with(key)) return std::nullopt;
    std::string_view value = body.substr(key.size(), end - key.size());
    body.remove_prefix(end + 1);
    return value;
  };
  std::optional<std::string_view> usable = line("usable "), lanes = line("mma-lanes "), bf16 = line("bf16 "),
                                  workgroup = line("workgroup "), detail = line("detail ");
  auto flag = [](std::optional<std::string_view> v) { return v && (*v == "0" || *v == "1"); };
  if (!flag(usable) || !flag(lanes) || !flag(bf16) || !flag(workgroup) || !detail || !body.empty()) return std::nullopt;
  CoopMatrixCheck check{*usable == "1", *lanes == "1", std::string(*detail), *bf16 == "1", *workgroup == "1"};
  if ((check.mmaLanes || check.bf16 || check.workgroup) && !check.usable)
    return std::nullopt; // not a result the self-test gives
  return check;
}

std::optional<CoopMatrixCheck> readCoopMatrixRecord(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parseCoopMatrixRecord(text);
}

void writeCoopMatrixRecord(const std::string &path, const CoopMatrixCheck &check) {
  // A failure to write only costs the next process one more self-test.
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  const std::string text = formatCoopMatrixRecord(check);
  (void)writeFileAtomically(path, std::span<const uint8_t>(reinterpret_cast<const uint8_t *>(text.data()), text.size()));
}

} // namespace tessera::vulkan
