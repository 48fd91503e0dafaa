// Small helpers shared by every driver: artifact descriptions, error text, UUID formatting.
#include "Driver.hpp"

#include <cctype>
#include <cstdio>
#include <cstring>

namespace tessera::detail {

std::string describeArtifacts(const KernelEntry &kernel) {
  if (kernel.artifacts.empty()) return "no artifacts";
  std::string s;
  for (const Artifact &a : kernel.artifacts) {
    if (!s.empty()) s += ", ";
    s += toString(a.target.kind);
    s += " " + (a.target.chip.empty() ? std::string("(no chip)") : a.target.chip);
    if (a.target.kind == TargetKind::PTX && a.target.ptxVersion)
      s += " ptx" + std::to_string(a.target.ptxVersion / 10) + "." + std::to_string(a.target.ptxVersion % 10);
    s += " (subgroup " + (a.target.subgroupSize ? std::to_string(a.target.subgroupSize) : std::string("any")) + ")";
  }
  return s;
}

Status noArtifactStatus(const KernelEntry &kernel, const std::string &deviceName, const std::string &need) {
  return Status(StatusCode::Unsupported, "kernel '" + kernel.name + "' has no artifact for " + deviceName +
                                             ": it needs " + need + "; the package has " +
                                             describeArtifacts(kernel) + " (recompile the kernel for this target)");
}

std::string calledFunctionName(const char *callText) {
  const char *paren = std::strchr(callText, '(');
  if (!paren) return callText;
  const char *end = paren;
  while (end > callText && std::isspace(static_cast<unsigned char>(end[-1]))) --end;
  const char *begin = end;
  while (begin > callText && (std::isalnum(static_cast<unsigned char>(begin[-1])) || begin[-1] == '_')) --begin;
  return std::string(begin, end);
}

std::string formatUuid(const std::array<uint8_t, 16> &uuid) {
  std::string s;
  char buf[4];
  for (size_t i = 0; i < uuid.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    std::snprintf(buf, sizeof buf, "%02x", uuid[i]);
    s += buf;
  }
  return s;
}

} // namespace tessera::detail
