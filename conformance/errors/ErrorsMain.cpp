// tessera-error-tests: runs the must-fail kernels of conformance/errors/ and checks each fails
// with the status code, message and source line its file declares. `tessera-error-tests NAME`
// runs one case, `--list` prints their names.
#include "ErrorCase.hpp"

#include <cstdio>
#include <exception>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace tessera::errors {

std::vector<Case> &registry() {
  static std::vector<Case> cases;
  return cases;
}

namespace {

/// What a case's `expect-error` comment asks for.
struct Expectation {
  std::string text;
  StatusCode code = StatusCode::CompileError;
  bool located = true; // the message must name the file and `line`
  int line = 0;
};

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

/// `invalid-argument` -> InvalidArgument: the names of toString(StatusCode) with '-' for ' '.
std::optional<StatusCode> codeNamed(const std::string &name) {
  for (int c = int(StatusCode::InvalidArgument); c <= int(StatusCode::Internal); ++c) {
    std::string s = toString(StatusCode(c));
    for (char &ch : s)
      ch = ch == ' ' ? '-' : ch;
    if (s == name)
      return StatusCode(c);
  }
  return std::nullopt;
}

/// Parses the one `// expect-error[(options)]: text` comment of `file`, with its `//+ more`
/// continuation lines. A marker after code points at its own line; a marker on a line of its
/// own points at the next line that is neither blank nor a comment.
bool parseExpectation(const std::string &file, Expectation &e, std::string &problem) {
  std::ifstream in(file);
  if (!in) {
    problem = "cannot read " + file;
    return false;
  }
  std::vector<std::string> lines;
  for (std::string s; std::getline(in, s);)
    lines.push_back(s);
  int markers = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    size_t at = lines[i].find("// expect-error");
    if (at == std::string::npos)
      continue;
    ++markers;
    std::string rest = lines[i].substr(at + 15);
    if (rest.starts_with("(")) {
      size_t close = rest.find(')');
      if (close == std::string::npos) {
        problem = "unclosed '(' in the expect-error comment";
        return false;
      }
      std::stringstream options(rest.substr(1, close - 1));
      for (std::string opt; std::getline(options, opt, ',');) {
        opt = trim(opt);
        if (opt == "unlocated")
          e.located = false;
        else if (std::optional<StatusCode> c = codeNamed(opt))
          e.code = *c;
        else {
          problem = "unknown expect-error option '" + opt + "' (a status code such as invalid-argument, or unlocated)";
          return false;
        }
      }
      rest = rest.substr(close + 1);
    }
    if (!rest.starts_with(": ")) {
      problem = "an expect-error comment is `// expect-error: text` or `// expect-error(options): text`";
      return false;
    }
    e.text = trim(rest.substr(2));
    size_t next = i + 1;
    for (; next < lines.size() && trim(lines[next]).starts_with("//+"); ++next)
      e.text += " " + trim(trim(lines[next]).substr(3));
    bool ownLine = trim(lines[i].substr(0, at)).empty();
    if (!ownLine) {
      e.line = int(i) + 1;
    } else {
      while (next < lines.size() && (trim(lines[next]).empty() || trim(lines[next]).starts_with("//")))
        ++next;
      e.line = int(next) + 1;
      if (next == lines.size()) {
        problem = "the expect-error comment is followed by no code line";
        return false;
      }
    }
  }
  if (markers != 1)
    problem = markers ? "more than one expect-error comment" : "no '// expect-error: ...' comment";
  return markers == 1 && !e.text.empty();
}

bool contains(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

/// A correct kernel traces after the failure: the tracer kept no state from it.
Status traceAfter() {
  return trace("after_error", [](tl::Ptr<float> x) {
           tl::Tile offs = tl::arange(0, 64);
           tl::store(x + offs, tl::load(x + offs) + 1.0f);
         }).status();
}

bool check(const Case &c) {
  Expectation e;
  std::string problem;
  if (!c.file.ends_with("/" + c.name + ".cpp"))
    problem = "the case is named '" + c.name + "' but lives in " + c.file + "; name it after its file";
  else
    parseExpectation(c.file, e, problem);
  if (!problem.empty()) {
    std::printf("FAIL %s: %s\n", c.name.c_str(), problem.c_str());
    return false;
  }
  Status s;
  try {
    s = c.run();
  } catch (const std::exception &ex) {
    std::printf("FAIL %s: threw %s\n", c.name.c_str(), ex.what());
    return false;
  }
  const std::string msg = s.message(), line = std::to_string(e.line);
  // Trace errors say `file:line:col:`; compile-time diagnostics print MLIR locations, `"file":line:col`.
  bool atLine = contains(msg, c.file + ":" + line + ":") || contains(msg, "\"" + c.file + "\":" + line + ":");
  std::vector<std::string> wrong;
  if (s.ok())
    wrong.push_back("the kernel was accepted");
  else {
    if (s.code() != e.code)
      wrong.push_back(std::string("the code is '") + toString(s.code()) + "', not '" + toString(e.code) + "'");
    if (!contains(msg, e.text))
      wrong.push_back("the message lacks the expected text");
    if (e.located && !atLine)
      wrong.push_back("the message does not point at " + c.file + ":" + line);
  }
  if (Status after = traceAfter(); !after)
    wrong.push_back("a correct kernel traced afterwards failed: " + after.toString());
  std::printf("%s %s\n  expected (%s) at line %s: \"%s\"\n  got: %s\n", wrong.empty() ? "ok  " : "FAIL", c.name.c_str(),
              toString(e.code), e.located ? line.c_str() : "(none)", e.text.c_str(),
              s.ok() ? "success" : s.toString().c_str());
  for (const std::string &w : wrong)
    std::printf("  wrong: %s\n", w.c_str());
  return wrong.empty();
}

} // namespace
} // namespace tessera::errors

int main(int argc, char **argv) {
  using namespace tessera::errors;
  std::string only = argc > 1 ? argv[1] : "";
  if (only == "--list") {
    for (const Case &c : registry())
      std::printf("%s\n", c.name.c_str());
    return 0;
  }
  int failed = 0, ran = 0;
  for (const Case &c : registry()) {
    if (!only.empty() && c.name != only)
      continue;
    ++ran;
    failed += !check(c);
  }
  if (ran == 0) {
    std::printf("no case named '%s'\n", only.c_str());
    return 2;
  }
  std::printf("%d of %d must-fail kernels failed as expected\n", ran - failed, ran);
  return failed ? 1 : 0;
}
