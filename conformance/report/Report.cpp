// The report's data model, its JSON form, and the helpers its other outputs share.
#include "ReportText.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <unordered_map>

#include <unistd.h>

namespace tessera::conformance {

const char *toString(Verdict v) {
  switch (v) {
  case Verdict::Pass: return "pass";
  case Verdict::Budget: return "budget";
  case Verdict::Fail: return "fail";
  case Verdict::Unsupported: return "unsupported";
  }
  return "unknown";
}

std::string Result::caseId() const {
  std::string id = caseName;
  for (const std::string *part : {&dtype, &shape, &mode})
    if (!part->empty())
      id += " " + *part;
  return id;
}

std::string crossBackendTarget(std::string_view device, std::string_view a, std::string_view b) {
  return std::string(device) + " / " + std::string(a) + " vs " + std::string(b);
}

void Tally::add(Verdict v) {
  switch (v) {
  case Verdict::Pass: ++pass; break;
  case Verdict::Budget: ++budget; break;
  case Verdict::Fail: ++fail; break;
  case Verdict::Unsupported: ++unsupported; break;
  }
}

size_t Report::failures() const { return tally().fail; }

Tally Report::tally() const {
  Tally t;
  for (const Result &r : results)
    t.add(r.verdict);
  return t;
}

std::string Report::overallVerdict() const {
  Tally t = tally();
  if (t.fail)
    return std::to_string(t.fail) + " FAILED";
  if (t.ran() == 0)
    return "NOTHING RAN";
  return "ALL PASS";
}

std::vector<std::string> Report::columns() const {
  std::vector<std::string> columns;
  std::unordered_map<std::string, size_t> seen;
  for (const std::string &t : targets)
    if (seen.emplace(t, columns.size()).second)
      columns.push_back(t);
  for (const Result &r : results)
    if (seen.emplace(r.target, columns.size()).second)
      columns.push_back(r.target);
  return columns;
}

std::string utcTimestamp(std::chrono::system_clock::time_point t) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string hostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || !buf[0])
    return "unknown";
  return buf;
}

std::string writeFile(const std::string &path, std::string_view contents) {
  std::FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    return "cannot open " + path + " for writing: " + std::strerror(errno);
  bool ok = std::fwrite(contents.data(), 1, contents.size(), f) == contents.size();
  int writeErrno = errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    writeErrno = errno;
  }
  if (!ok)
    return "cannot write " + path + ": " + std::strerror(writeErrno);
  return "";
}

namespace detail {

std::string sanitizeUtf8(std::string_view s) {
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = s[i];
    if (c < 0x80) {
      if (c < 0x20 && c != '\t' && c != '\n')
        out += kReplacement;
      else if (c == 0x7f)
        out += kReplacement;
      else
        out += char(c);
      ++i;
      continue;
    }
    // Length and the smallest code point of the sequence, to refuse overlong forms.
    size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
    if (c >= 0xF5)
      len = 0;
    uint32_t cp = len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
    bool valid = len != 0 && i + len <= s.size();
    for (size_t k = 1; valid && k < len; ++k) {
      unsigned char cc = s[i + k];
      valid = (cc & 0xC0) == 0x80;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if (valid && len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF)))
      valid = false;
    if (valid && len == 4 && (cp < 0x10000 || cp > 0x10FFFF))
      valid = false;
    if (valid && cp >= 0x80 && cp < 0xA0) // C1 controls
      valid = false;
    if (!valid) {
      out += kReplacement;
      ++i;
      continue;
    }
    out.append(s.substr(i, len));
    i += len;
  }
  return out;
}

size_t displayWidth(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s)
    n += (c & 0xC0) != 0x80;
  return n;
}

std::string formatUlp(double ulp) {
  if (std::isnan(ulp))
    return "nan";
  if (std::isinf(ulp))
    return ulp > 0 ? "inf" : "-inf";
  char buf[32];
  if (ulp == std::floor(ulp) && std::fabs(ulp) < 1e6)
    std::snprintf(buf, sizeof buf, "%.0f", ulp);
  else
    std::snprintf(buf, sizeof buf, "%.3g", ulp);
  return buf;
}

std::string formatSeconds(double s) {
  char buf[48];
  if (!std::isfinite(s) || s < 0)
    return "?";
  if (s < 1)
    std::snprintf(buf, sizeof buf, "%.0f ms", s * 1000);
  else if (s < 60)
    std::snprintf(buf, sizeof buf, "%.1f s", s);
  else
    std::snprintf(buf, sizeof buf, "%d min %d s", int(s / 60), int(std::fmod(s, 60)));
  return buf;
}

void addToCell(Cell &cell, const Result &r) {
  cell.tally.add(r.verdict);
  if (r.verdict == Verdict::Budget && !(r.maxUlp <= cell.maxBudgetUlp))
    cell.maxBudgetUlp = r.maxUlp;
}

Summary summarize(const Report &report, bool byCase) {
  Summary s;
  s.columns = report.columns();
  std::unordered_map<std::string, size_t> columnOf, rowOf;
  for (size_t c = 0; c < s.columns.size(); ++c)
    columnOf.emplace(s.columns[c], c);
  std::vector<std::pair<size_t, size_t>> place; // (row, column) of each result
  place.reserve(report.results.size());
  for (const Result &r : report.results) {
    std::string row = byCase ? r.caseId() : r.family.empty() ? std::string("(no family)") : r.family;
    auto [it, added] = rowOf.emplace(row, s.rows.size());
    if (added)
      s.rows.push_back(std::move(row));
    place.emplace_back(it->second, columnOf.at(r.target));
  }
  s.cells.assign(s.rows.size() * s.columns.size(), Cell{});
  s.columnTotals.assign(s.columns.size(), Cell{});
  s.rowTotals.assign(s.rows.size(), Cell{});
  for (size_t i = 0; i < report.results.size(); ++i) {
    auto [row, column] = place[i];
    addToCell(s.at(row, column), report.results[i]);
    addToCell(s.columnTotals[column], report.results[i]);
    addToCell(s.rowTotals[row], report.results[i]);
  }
  return s;
}

std::pair<std::string, std::string> splitTarget(std::string_view target) {
  size_t slash = target.rfind(" / ");
  if (slash == std::string_view::npos)
    return {std::string(target), ""};
  return {std::string(target.substr(0, slash)), std::string(target.substr(slash + 3))};
}

} // namespace detail

void appendJsonString(std::string &out, std::string_view raw) {
  std::string s = detail::sanitizeUtf8(raw);
  out += '"';
  for (char ch : s) {
    unsigned char c = ch;
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\t': out += "\\t"; break;
    default:
      if (c < 0x20) { // sanitizeUtf8 already replaced these; kept for safety
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += ch;
      }
    }
  }
  out += '"';
}

void appendJsonNumber(std::string &out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, ec == std::errc{} ? end : buf);
}

namespace {

void appendField(std::string &out, const char *name, std::string_view value, bool comma = true) {
  out += '"';
  out += name;
  out += "\": ";
  appendJsonString(out, value);
  if (comma)
    out += ", ";
}

void appendNumberField(std::string &out, const char *name, double value, bool comma = true) {
  out += '"';
  out += name;
  out += "\": ";
  appendJsonNumber(out, value);
  if (comma)
    out += ", ";
}

} // namespace

std::string toJson(const Report &report) {
  std::string out;
  out.reserve(256 + report.results.size() * 256);
  Tally t = report.tally();
  out += "{\n  ";
  appendField(out, "schema", kJsonSchema);
  out += "\n  ";
  appendField(out, "title", report.title);
  out += "\n  ";
  appendField(out, "startedAt", report.startedAt);
  out += "\n  ";
  appendField(out, "command", report.command);
  out += "\n  ";
  appendField(out, "seed", report.seed);
  out += "\n  ";
  appendField(out, "host", report.host);
  out += "\n  ";
  appendNumberField(out, "seconds", report.seconds);
  out += "\n  \"summary\": {";
  appendField(out, "verdict", report.overallVerdict());
  appendNumberField(out, "results", double(report.results.size()));
  appendNumberField(out, "pass", double(t.pass));
  appendNumberField(out, "budget", double(t.budget));
  appendNumberField(out, "fail", double(t.fail));
  appendNumberField(out, "unsupported", double(t.unsupported), false);
  out += "},\n  \"targets\": [";
  std::vector<std::string> columns = report.columns();
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i)
      out += ", ";
    appendJsonString(out, columns[i]);
  }
  out += "],\n  \"results\": [";
  for (size_t i = 0; i < report.results.size(); ++i) {
    const Result &r = report.results[i];
    out += i ? ",\n    {" : "\n    {";
    appendField(out, "case", r.caseName);
    appendField(out, "family", r.family);
    appendField(out, "dtype", r.dtype);
    appendField(out, "shape", r.shape);
    appendField(out, "mode", r.mode);
    appendField(out, "target", r.target);
    appendField(out, "verdict", toString(r.verdict));
    appendNumberField(out, "maxUlp", r.maxUlp);
    appendNumberField(out, "budgetUlp", r.budgetUlp);
    appendNumberField(out, "seconds", r.seconds);
    appendField(out, "detail", r.detail, false);
    out += '}';
  }
  out += report.results.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

} // namespace tessera::conformance
