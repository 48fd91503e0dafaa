// tessera-report-tests: the conformance report's counts, JSON, HTML, terminal table and progress
// bar (doctest), registered with CTest as report.*.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "ReportText.hpp"

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <variant>

using namespace tessera::conformance;

namespace {

// ---- A strict JSON parser (RFC 8259), enough to check that toJson writes valid JSON ----

struct Json;
using JsonArray = std::vector<Json>;
using JsonObject = std::map<std::string, Json>;
struct Json {
  std::variant<std::nullptr_t, bool, double, std::string, std::shared_ptr<JsonArray>, std::shared_ptr<JsonObject>> v;
  bool isNull() const { return std::holds_alternative<std::nullptr_t>(v); }
  const std::string &str() const { return std::get<std::string>(v); }
  double num() const { return std::get<double>(v); }
  const JsonArray &arr() const { return *std::get<std::shared_ptr<JsonArray>>(v); }
  const JsonObject &obj() const { return *std::get<std::shared_ptr<JsonObject>>(v); }
  const Json &operator[](const std::string &key) const { return obj().at(key); }
};

class JsonParser {
public:
  explicit JsonParser(std::string_view text) : s_(text) {}
  /// The value, or throws std::runtime_error naming the offset.
  Json parseDocument() {
    // RFC 8259 text is UTF-8; this writer never emits raw control bytes (other than newlines).
    if (detail::sanitizeUtf8(s_) != s_)
      fail("invalid UTF-8 or a raw control byte");
    Json v = value();
    ws();
    if (i_ != s_.size())
      fail("trailing characters");
    return v;
  }

private:
  [[noreturn]] void fail(const char *what) {
    throw std::runtime_error(std::string(what) + " at " + std::to_string(i_));
  }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t'))
      ++i_;
  }
  bool eat(char c) {
    ws();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expectWord(std::string_view w) {
    if (s_.substr(i_, w.size()) != w)
      fail("bad literal");
    i_ += w.size();
  }
  Json value() {
    ws();
    if (i_ >= s_.size())
      fail("unexpected end");
    char c = s_[i_];
    if (c == '{')
      return object();
    if (c == '[')
      return array();
    if (c == '"')
      return {string()};
    if (c == 't')
      return expectWord("true"), Json{true};
    if (c == 'f')
      return expectWord("false"), Json{false};
    if (c == 'n')
      return expectWord("null"), Json{nullptr};
    return {number()};
  }
  Json object() {
    ++i_;
    auto o = std::make_shared<JsonObject>();
    if (eat('}'))
      return {o};
    do {
      ws();
      if (i_ >= s_.size() || s_[i_] != '"')
        fail("expected a key");
      std::string key = string();
      if (!eat(':'))
        fail("expected ':'");
      if (!o->emplace(key, value()).second)
        fail("duplicate key");
    } while (eat(','));
    if (!eat('}'))
      fail("expected '}'");
    return {o};
  }
  Json array() {
    ++i_;
    auto a = std::make_shared<JsonArray>();
    if (eat(']'))
      return {a};
    do
      a->push_back(value());
    while (eat(','));
    if (!eat(']'))
      fail("expected ']'");
    return {a};
  }
  static void appendUtf8(std::string &out, uint32_t cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | cp >> 6);
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | cp >> 12);
      out += char(0x80 | (cp >> 6 & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | cp >> 18);
      out += char(0x80 | (cp >> 12 & 0x3F));
      out += char(0x80 | (cp >> 6 & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }
  uint32_t hex4() {
    if (i_ + 4 > s_.size())
      fail("short \\u escape");
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      char c = s_[i_++];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= c - '0';
      else if (c >= 'a' && c <= 'f')
        v |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        v |= c - 'A' + 10;
      else
        fail("bad hex digit");
    }
    return v;
  }
  std::string string() {
    ++i_;
    std::string out;
    while (true) {
      if (i_ >= s_.size())
        fail("unterminated string");
      unsigned char c = s_[i_++];
      if (c == '"')
        break;
      if (c < 0x20)
        fail("raw control character in a string");
      if (c != '\\') {
        out += char(c);
        continue;
      }
      if (i_ >= s_.size())
        fail("unterminated escape");
      char e = s_[i_++];
      switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        uint32_t cp = hex4();
        if (cp >= 0xD800 && cp < 0xDC00) {
          if (s_.substr(i_, 2) != "\\u")
            fail("lone surrogate");
          i_ += 2;
          uint32_t lo = hex4();
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        appendUtf8(out, cp);
        break;
      }
      default: fail("bad escape");
      }
    }
    return out;
  }
  double number() {
    size_t start = i_;
    if (i_ < s_.size() && s_[i_] == '-')
      ++i_;
    if (i_ >= s_.size() || !std::isdigit((unsigned char)s_[i_]))
      fail("bad number");
    if (s_[i_] == '0')
      ++i_;
    else
      while (i_ < s_.size() && std::isdigit((unsigned char)s_[i_]))
        ++i_;
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      if (i_ >= s_.size() || !std::isdigit((unsigned char)s_[i_]))
        fail("bad fraction");
      while (i_ < s_.size() && std::isdigit((unsigned char)s_[i_]))
        ++i_;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-'))
        ++i_;
      if (i_ >= s_.size() || !std::isdigit((unsigned char)s_[i_]))
        fail("bad exponent");
      while (i_ < s_.size() && std::isdigit((unsigned char)s_[i_]))
        ++i_;
    }
    return std::stod(std::string(s_.substr(start, i_ - start)));
  }
  std::string_view s_;
  size_t i_ = 0;
};

Json parseJson(const std::string &text) { return JsonParser(text).parseDocument(); }

// ---- Reports to test with ----

const std::string kCuda = "NVIDIA H200 / cuda", kVulkan = "NVIDIA H200 / vulkan",
                  kLavapipe = "llvmpipe (lavapipe) / vulkan";

Result result(std::string caseName, std::string family, std::string target, Verdict v, std::string detail = "") {
  Result r{.caseName = std::move(caseName), .family = std::move(family), .dtype = "f32", .shape = "253",
           .mode = "portable", .target = std::move(target), .verdict = v, .detail = std::move(detail)};
  return r;
}

/// 3 targets, 2 families; on lavapipe one failure, one unsupported, one within budget.
Report smallReport() {
  Report report;
  report.startedAt = "2025-06-01T12:00:00Z";
  report.command = "tessera conformance";
  report.seed = "42";
  report.host = "testhost";
  report.targets = {kCuda, kVulkan, kLavapipe};
  for (const std::string &t : report.targets) {
    report.results.push_back(result("add", "binary", t, Verdict::Pass));
    report.results.push_back(result("mul", "binary", t, Verdict::Pass));
    report.results.push_back(result("exp", "math", t, Verdict::Pass));
  }
  report.results[7].verdict = Verdict::Fail; // mul on lavapipe
  report.results[7].detail = "first difference at [3] x=1 y=2: got 0x40400001, expected 0x40400000";
  report.results[8].verdict = Verdict::Budget; // exp on lavapipe
  report.results[8].maxUlp = 1.5;
  report.results[8].budgetUlp = 2;
  report.results.push_back(result("exp", "math", kLavapipe, Verdict::Unsupported, "needs shaderDenormPreserveFloat32"));
  report.results.back().mode = "fast";
  return report;
}

/// The text written to a FILE* that is not a terminal.
struct Captured {
  std::FILE *file = std::tmpfile();
  ~Captured() { std::fclose(file); }
  std::string text() {
    std::fflush(file);
    std::rewind(file);
    std::string s;
    char buf[4096];
    while (size_t n = std::fread(buf, 1, sizeof buf, file))
      s.append(buf, n);
    return s;
  }
};

std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    out.push_back(l);
  return out;
}

size_t count(const std::string &haystack, std::string_view needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + needle.size()))
    ++n;
  return n;
}

} // namespace

TEST_CASE("counts and the overall verdict") {
  Report empty;
  CHECK(empty.failures() == 0);
  CHECK(empty.overallVerdict() == "NOTHING RAN");

  Report report = smallReport();
  Tally t = report.tally();
  CHECK(t.pass == 7);
  CHECK(t.budget == 1);
  CHECK(t.fail == 1);
  CHECK(t.unsupported == 1);
  CHECK(t.ran() == 9);
  CHECK(report.failures() == 1);
  CHECK(report.overallVerdict() == "1 FAILED");

  report.results[7].verdict = Verdict::Pass;
  CHECK(report.overallVerdict() == "ALL PASS");

  Report onlyUnsupported;
  onlyUnsupported.results.push_back(result("add", "binary", kLavapipe, Verdict::Unsupported, "no"));
  CHECK(onlyUnsupported.overallVerdict() == "NOTHING RAN");
}

TEST_CASE("columns keep the listed order and append unlisted targets") {
  Report report;
  report.targets = {kVulkan, kCuda};
  report.results = {result("add", "binary", kLavapipe, Verdict::Pass), result("add", "binary", kCuda, Verdict::Pass)};
  CHECK(report.columns() == std::vector<std::string>{kVulkan, kCuda, kLavapipe});
  CHECK(crossBackendTarget("NVIDIA H200", "cuda", "vulkan") == "NVIDIA H200 / cuda vs vulkan");
  CHECK(detail::splitTarget("NVIDIA H200 / cuda vs vulkan") ==
        std::pair<std::string, std::string>{"NVIDIA H200", "cuda vs vulkan"});
  CHECK(result("add", "binary", kCuda, Verdict::Pass).caseId() == "add f32 253 portable");
}

TEST_CASE("sanitizeUtf8 keeps valid text and replaces the rest") {
  CHECK(detail::sanitizeUtf8("plain\ttext\n") == "plain\ttext\n");
  CHECK(detail::sanitizeUtf8("≤ 2 ULP, café, 𝔽") == "≤ 2 ULP, café, 𝔽");
  CHECK(detail::sanitizeUtf8("a\x01" "b") == "a\xEF\xBF\xBD" "b");
  CHECK(detail::sanitizeUtf8("\xC0\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD");    // overlong '/'
  CHECK(detail::sanitizeUtf8("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"); // surrogate
  CHECK(detail::sanitizeUtf8("x\xE2\x82") == "x\xEF\xBF\xBD\xEF\xBF\xBD"); // cut short
  CHECK(detail::sanitizeUtf8(std::string("a\0b", 3)) == "a\xEF\xBF\xBD" "b");
}

TEST_CASE("JSON is valid, versioned, and keeps every field") {
  Report report = smallReport();
  report.title = "quotes \" backslash \\ newline \n tab \t bell \a and \x7f";
  report.results[0].detail = "bad bytes \xFF\xFE, control \x01, <tag> & 'single'";
  report.results[1].maxUlp = std::nan("");
  report.results[2].maxUlp = INFINITY;
  report.results[3].seconds = 0.1;
  report.results[8].maxUlp = 1.0 / 3;
  std::string text = toJson(report);
  Json doc;
  REQUIRE_NOTHROW(doc = parseJson(text));
  CHECK(doc["schema"].str() == kJsonSchema);
  CHECK(doc["title"].str() == "quotes \" backslash \\ newline \n tab \t bell \xEF\xBF\xBD and \xEF\xBF\xBD");
  CHECK(doc["seed"].str() == "42");
  CHECK(doc["summary"]["verdict"].str() == "1 FAILED");
  CHECK(doc["summary"]["results"].num() == 10);
  CHECK(doc["summary"]["fail"].num() == 1);
  CHECK(doc["targets"].arr().size() == 3);
  const JsonArray &results = doc["results"].arr();
  REQUIRE(results.size() == report.results.size());
  CHECK(results[0]["detail"].str() == "bad bytes \xEF\xBF\xBD\xEF\xBF\xBD, control \xEF\xBF\xBD, <tag> & 'single'");
  CHECK(results[1]["maxUlp"].isNull());
  CHECK(results[2]["maxUlp"].isNull());
  CHECK(results[3]["seconds"].num() == 0.1);
  CHECK(results[8]["maxUlp"].num() == 1.0 / 3); // shortest form still reads back exactly
  CHECK(results[8]["verdict"].str() == "budget");
  CHECK(results[7]["verdict"].str() == "fail");
  CHECK(results[9]["verdict"].str() == "unsupported");
  CHECK(results[9]["mode"].str() == "fast");
  CHECK(results[9]["target"].str() == kLavapipe);

  Json empty = parseJson(toJson(Report{}));
  CHECK(empty["results"].arr().empty());
  CHECK(empty["summary"]["verdict"].str() == "NOTHING RAN");
}

TEST_CASE("the JSON checker refuses what is not JSON") {
  for (const char *bad : {"{\"a\": 1,}", "[1 2]", "{\"a\": nan}", "\"raw\ttab\"", "{\"a\": 01}", "[1] x", "{'a': 1}"})
    CHECK_THROWS(parseJson(bad));
}

TEST_CASE("HTML escapes every string from the report") {
  Report report = smallReport();
  const std::string hostile = "<script>alert(\"x\" & 'y')</script>";
  report.title = hostile;
  report.command = hostile;
  report.seed = hostile;
  report.host = hostile;
  report.targets[0] = hostile + " / cuda";
  for (Result &r : report.results) {
    if (r.target == kCuda)
      r.target = report.targets[0];
  }
  report.results[0].caseName = hostile;
  report.results[0].family = hostile;
  report.results[0].dtype = "\"><img src=x onerror=alert(1)>";
  report.results[7].detail = hostile + "\x01\xFF";
  report.results[9].detail = "</td></tr></table>" + hostile;
  std::string html = toHtml(report);
  CHECK(count(html, "<script>") == 1); // the page's own
  CHECK(count(html, "</script>") == 1);
  CHECK(html.find("<img") == std::string::npos);
  CHECK(html.find("alert(\"x\"") == std::string::npos);
  CHECK(html.find("&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;") != std::string::npos);
  CHECK(html.find("</td></tr></table>&lt;") == std::string::npos);
  CHECK(html.find("&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;") != std::string::npos);
  CHECK(count(html, "<table") == count(html, "</table>"));
  CHECK(count(html, "<tr") == count(html, "</tr>"));
  CHECK(count(html, "<td") == count(html, "</td>"));
}

TEST_CASE("HTML shows the verdict, the summary and every case") {
  Report report = smallReport();
  std::string html = toHtml(report);
  CHECK(html.starts_with("<!DOCTYPE html>"));
  CHECK(html.find("://") == std::string::npos); // nothing fetched, nothing linked
  CHECK(html.find("src=") == std::string::npos);
  CHECK(html.find("<b>1 FAILED</b>") != std::string::npos);
  CHECK(html.find("class=\"verdict v-fail\"") != std::string::npos);
  CHECK(html.find("<b>1/2</b><small>1 failed</small>") != std::string::npos);   // binary on lavapipe
  CHECK(html.find("<b>1/1</b><small>max 1.5 ULP &middot; 1 unsupported</small>") != std::string::npos);
  CHECK(html.find("1.5 / 2 ULP") != std::string::npos);
  CHECK(html.find("needs shaderDenormPreserveFloat32") != std::string::npos);
  CHECK(html.find("got 0x40400001, expected 0x40400000") != std::string::npos);
  CHECK(html.find("<h2>Failures</h2>") != std::string::npos);
  CHECK(count(html, "class=\"has-fail\"") == 1);
  CHECK(count(html, "<tr id=\"row-") == 4); // add, mul, exp portable, exp fast

  report.results[7].verdict = Verdict::Pass;
  html = toHtml(report);
  CHECK(html.find("<b>ALL PASS</b>") != std::string::npos);
  CHECK(html.find("<h2>Failures</h2>") == std::string::npos);
}

TEST_CASE("HTML handles no results, one target and many results") {
  std::string none = toHtml(Report{});
  CHECK(none.find("<b>NOTHING RAN</b>") != std::string::npos);
  CHECK(none.find("no target was found") != std::string::npos);
  CHECK(none.find("id=\"details\"") == std::string::npos);

  Report one;
  one.results.push_back(result("add", "binary", kCuda, Verdict::Pass));
  std::string html = toHtml(one);
  CHECK(html.find("on 1 target</span>") != std::string::npos);
  CHECK(html.find("all families") == std::string::npos); // no total row for one family

  Report many;
  many.targets = {kCuda, kVulkan, kLavapipe, "interpreter / cpu"};
  for (int c = 0; c < 1250; ++c)
    for (const std::string &t : many.targets) {
      Result r = result("case" + std::to_string(c), "family" + std::to_string(c % 9), t,
                        c % 97 == 0 && t == kLavapipe ? Verdict::Fail : Verdict::Pass,
                        c % 97 ? "" : "first difference at [0]");
      many.results.push_back(std::move(r));
    }
  auto start = std::chrono::steady_clock::now();
  html = toHtml(many);
  std::string json = toJson(many);
  std::string table = toTable(many, true);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds < 2.0); // a smoke test for quadratic work, generous for debug and sanitizer builds
  CHECK(html.size() < 2'000'000);
  CHECK(count(html, "<tr id=\"row-") == 1250);
  CHECK(parseJson(json)["results"].arr().size() == 5000);
  CHECK(html.find("<b>13 FAILED</b>") != std::string::npos);
}

TEST_CASE("the table has a column per target and a row per case when there are few") {
  Report report = smallReport();
  std::string table = toTable(report, false);
  std::vector<std::string> l = lines(table);
  INFO(table);
  REQUIRE(l.size() >= 8);
  // Two header lines: device, then backend; rows are cases (4 of them) and a total.
  CHECK(l[0].find("NVIDIA H200") != std::string::npos);
  CHECK(l[0].find("llvmpipe (lavapipe)") != std::string::npos);
  CHECK(l[1].starts_with("case"));
  size_t cuda = l[1].find("cuda"), vulkan = l[1].find("vulkan"), lavapipe = l[0].find("llvmpipe");
  CHECK(cuda < vulkan);
  CHECK(vulkan < lavapipe);
  CHECK(l[2].starts_with("add f32 253 portable"));
  CHECK(l[3].starts_with("mul f32 253 portable"));
  CHECK(l[3].substr(lavapipe).starts_with("0/1 FAIL"));
  CHECK(l[4].substr(lavapipe).starts_with("1/1"));
  CHECK(l[5].substr(lavapipe).starts_with("unsupported"));
  CHECK(l[5].substr(cuda).starts_with("-"));
  // Every cell of a column starts at the column's offset.
  for (size_t row = 2; row <= 5; ++row) {
    CHECK(l[row][cuda - 1] == ' ');
    CHECK(l[row][cuda] != ' ');
    CHECK(l[row][vulkan] != ' ');
  }
  CHECK(l[6].starts_with("---"));
  CHECK(l[7].starts_with("total"));
  CHECK(l[7].substr(lavapipe).starts_with("2/3 +1 unsup FAIL"));
  CHECK(table.find("1 FAILED: 10 results on 3 targets: 7 bit-exact, 1 within budget, 1 failed, 1 unsupported") !=
        std::string::npos);
  CHECK(table.find("  FAIL mul f32 253 portable on llvmpipe (lavapipe) / vulkan: first difference at [3]") !=
        std::string::npos);
  CHECK(table.find('\033') == std::string::npos);

  std::string colored = toTable(report, true);
  CHECK(colored.find("\033[1;31m0/1\033[0m") != std::string::npos);
  CHECK(colored.find("\033[32m1/1\033[0m") != std::string::npos);
  CHECK(colored.find("0/1 FAIL") == std::string::npos); // colour marks the cell instead
}

TEST_CASE("the table groups by family when there are many cases, and lists at most 10 failures") {
  Report report;
  report.targets = {kCuda, kLavapipe};
  for (int c = 0; c < 40; ++c)
    for (const std::string &t : report.targets)
      report.results.push_back(result("k" + std::to_string(c), c < 20 ? "binary" : "math", t,
                                      t == kLavapipe ? Verdict::Fail : Verdict::Pass, "line one\nline two"));
  std::string table = toTable(report, false);
  std::vector<std::string> l = lines(table);
  INFO(table);
  CHECK(l[1].starts_with("family"));
  CHECK(l[2].starts_with("binary"));
  CHECK(l[3].starts_with("math"));
  CHECK(l[2].find("20/20") != std::string::npos);
  CHECK(l[2].find("0/20 FAIL") != std::string::npos);
  CHECK(count(table, "  FAIL ") == 10);
  CHECK(table.find("... and 30 more") != std::string::npos);
  CHECK(table.find("line two") == std::string::npos); // one line per failure

  CHECK(lines(toTable(Report{}, false)).back().starts_with("NOTHING RAN: 0 results on 0 targets"));
}

TEST_CASE("progress prints a line every 10% when not on a terminal") {
  Captured out;
  {
    Progress progress(100, out.file, false);
    for (int i = 0; i < 100; ++i)
      progress.advance("lavapipe/vulkan add_f16", i == 30 || i == 31);
    CHECK(progress.done() == 100);
    CHECK(progress.failed() == 2);
    progress.finish();
  }
  std::vector<std::string> l = lines(out.text());
  REQUIRE(l.size() == 10);
  CHECK(l[0] == "10/100 (10%) lavapipe/vulkan add_f16");
  CHECK(l[3] == "40/100 (40%) lavapipe/vulkan add_f16 (2 failed)");
  CHECK(l[9] == "100/100 (100%) lavapipe/vulkan add_f16 (2 failed)");

  Captured few;
  {
    Progress progress(3, few.file, false);
    Result r = result("add", "binary", kLavapipe, Verdict::Fail);
    for (int i = 0; i < 3; ++i)
      progress.advance(r);
    progress.note("FAIL add on lavapipe");
  }
  l = lines(few.text());
  REQUIRE(l.size() == 4);
  CHECK(l[0] == "1/3 (33%) llvmpipe (lavapipe)/vulkan add f32 253 portable (1 failed)");
  CHECK(l[3] == "FAIL add on lavapipe");

  Captured nothing;
  { Progress progress(0, nothing.file, false); }
  CHECK(nothing.text().empty());
}

TEST_CASE("progress redraws one line on a terminal and clears it at the end") {
  Captured out;
  Progress progress(4, out.file, true);
  progress.advance("cuda add", false);
  progress.advance("cuda mul", true);
  progress.note("FAIL mul");
  progress.advance("cuda exp", false);
  progress.advance("cuda sin", false);
  progress.finish();
  std::string text = out.text();
  INFO(text);
  CHECK(text.starts_with("\r[#####...............] 1/4 cuda add\033[K"));
  CHECK(text.find("[##########..........] 2/4 cuda mul\033[1;31m (1 failed)") != std::string::npos);
  CHECK(text.find("\r\033[KFAIL mul\n") != std::string::npos);
  CHECK(text.find("[####################] 4/4 cuda sin") != std::string::npos); // the last is always drawn
  CHECK(text.ends_with("\r\033[K"));
  CHECK(count(text, "\n") == 1); // only the note
}

TEST_CASE("writeFile reports where it could not write") {
  CHECK(writeFile("/nonexistent-dir/x.json", "{}").find("/nonexistent-dir/x.json") != std::string::npos);
  CHECK(utcTimestamp(std::chrono::system_clock::time_point{}) == "1970-01-01T00:00:00Z");
}
