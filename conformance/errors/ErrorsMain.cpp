// tessera-error-tests: runs the must-fail kernels of conformance/errors/ and checks each fails
// with the message and the source line its file declares. `tessera-error-tests NAME` runs one.
#include "ErrorCase.hpp"

#include <cstdio>
#include <fstream>
#include <string>

namespace tessera::errors {

std::vector<Case> &registry() {
  static std::vector<Case> cases;
  return cases;
}

namespace {

/// The expected text and its line: the `expect-error:` comment in the case's own source file.
bool expectation(const std::string &file, std::string &text, int &line) {
  std::ifstream in(file);
  std::string s;
  for (int n = 1; std::getline(in, s); ++n) {
    size_t at = s.find("// expect-error: ");
    if (at != std::string::npos && s.find("`// expect-error") == std::string::npos) {
      text = s.substr(at + 17);
      line = n;
      return true;
    }
  }
  return false;
}

bool check(const Case &c) {
  std::string text;
  int line = 0;
  if (!expectation(c.file, text, line)) {
    std::printf("FAIL %s: no '// expect-error: ...' line in %s\n", c.name.c_str(), c.file.c_str());
    return false;
  }
  Status s = c.run();
  std::string msg = s.message();
  std::string where = c.file + ":" + std::to_string(line) + ":";
  bool ok = !s.ok() && s.code() == StatusCode::CompileError && msg.find(text) != std::string::npos &&
            msg.find(where) != std::string::npos;
  std::printf("%s %s\n  expected at %s \"%s\"\n  got: %s\n", ok ? "ok  " : "FAIL", c.name.c_str(), where.c_str(),
              text.c_str(), s.ok() ? "success (the kernel was accepted)" : s.toString().c_str());
  return ok;
}

} // namespace
} // namespace tessera::errors

int main(int argc, char **argv) {
  using namespace tessera::errors;
  int failed = 0, ran = 0;
  for (const Case &c : registry()) {
    if (argc > 1 && c.name != argv[1])
      continue;
    ++ran;
    failed += !check(c);
  }
  if (ran == 0) {
    std::printf("no case named '%s'\n", argc > 1 ? argv[1] : "");
    return 2;
  }
  std::printf("%d of %d must-fail kernels failed as expected\n", ran - failed, ran);
  return failed ? 1 : 0;
}
