// The report in a terminal: the summary table printed at the end of a run, and the progress bar
// drawn while it runs.
#include "ReportText.hpp"

#include <algorithm>
#include <cstdlib>

#include <sys/ioctl.h>
#include <unistd.h>

namespace tessera::conformance {
namespace {

constexpr const char *kReset = "\033[0m";
constexpr const char *kBold = "\033[1m";
constexpr const char *kRed = "\033[1;31m";
constexpr const char *kGreen = "\033[32m";
constexpr const char *kCyan = "\033[36m";
constexpr const char *kDim = "\033[2m";

/// A table cell: its visible text and the colour it is printed in.
struct TextCell {
  std::string text;
  const char *color = nullptr;
};

TextCell cellText(const detail::Cell &cell, bool color) {
  const Tally &t = cell.tally;
  if (t.total() == 0)
    return {"-", kDim};
  if (t.ran() == 0)
    return {"unsupported", kDim};
  std::string text = std::to_string(t.passed()) + "/" + std::to_string(t.ran());
  if (t.unsupported)
    text += " +" + std::to_string(t.unsupported) + " unsup";
  if (t.fail && !color)
    text += " FAIL";
  return {text, t.fail ? kRed : t.budget ? kCyan : kGreen};
}

/// `text` cut to `width` columns, ending in "…" when cut.
std::string truncate(std::string_view text, size_t width) {
  if (width == 0)
    return "";
  if (detail::displayWidth(text) <= width)
    return std::string(text);
  std::string out;
  size_t columns = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = text[i];
    if ((c & 0xC0) != 0x80 && ++columns > width - 1)
      break;
    out += char(c);
  }
  return out + "\xE2\x80\xA6";
}

void appendPadded(std::string &out, const TextCell &cell, size_t width, bool color) {
  if (color && cell.color)
    out += cell.color;
  out += cell.text;
  if (color && cell.color)
    out += kReset;
  out.append(width - std::min(width, detail::displayWidth(cell.text)), ' ');
}

std::string firstLine(std::string_view s) { return std::string(s.substr(0, s.find('\n'))); }

} // namespace

std::string toTable(const Report &report, bool color) {
  std::vector<std::string> caseIds;
  {
    std::vector<std::string> seen;
    for (const Result &r : report.results) {
      if (seen.size() > kTableCaseRows)
        break;
      std::string id = r.caseId();
      if (std::find(seen.begin(), seen.end(), id) == seen.end())
        seen.push_back(std::move(id));
    }
    caseIds = std::move(seen);
  }
  bool byCase = caseIds.size() <= kTableCaseRows;
  detail::Summary s = detail::summarize(report, byCase);

  // Rows of cells: two header lines (device, backend), the body, the total.
  std::vector<std::vector<TextCell>> lines;
  std::vector<TextCell> device{{""}}, backend{{byCase ? "case" : "family"}};
  for (const std::string &c : s.columns) {
    auto [d, b] = detail::splitTarget(detail::sanitizeUtf8(c));
    device.push_back({d});
    backend.push_back({b});
  }
  lines.push_back(std::move(device));
  lines.push_back(std::move(backend));
  for (size_t r = 0; r < s.rows.size(); ++r) {
    std::vector<TextCell> line{{truncate(detail::sanitizeUtf8(s.rows[r]), 40)}};
    for (size_t c = 0; c < s.columns.size(); ++c)
      line.push_back(cellText(s.at(r, c), color));
    lines.push_back(std::move(line));
  }
  if (s.rows.size() > 1) {
    std::vector<TextCell> total{{"total"}};
    for (const detail::Cell &cell : s.columnTotals)
      total.push_back(cellText(cell, color));
    lines.push_back(std::move(total));
  }

  std::vector<size_t> widths(s.columns.size() + 1, 0);
  for (const auto &line : lines)
    for (size_t c = 0; c < line.size(); ++c)
      widths[c] = std::max(widths[c], detail::displayWidth(line[c].text));

  std::string out;
  for (size_t l = 0; l < lines.size(); ++l) {
    bool header = l < 2, total = l + 1 == lines.size() && s.rows.size() > 1;
    if (total) {
      size_t rule = 0;
      for (size_t w : widths)
        rule += w + 2;
      out.append(rule - 2, '-');
      out += '\n';
    }
    std::string line;
    for (size_t c = 0; c < lines[l].size(); ++c) {
      TextCell cell = lines[l][c];
      if (header || c == 0)
        cell.color = header || total ? kBold : nullptr;
      appendPadded(line, cell, c + 1 == lines[l].size() ? 0 : widths[c] + 2, color);
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out += line + '\n';
  }

  Tally t = report.tally();
  std::string verdict = report.overallVerdict();
  if (color)
    verdict = std::string(t.fail ? kRed : t.ran() ? "\033[1;32m" : kBold) + verdict + kReset;
  out += "\n" + verdict + ": " + std::to_string(report.results.size()) + " results on " +
         std::to_string(s.columns.size()) + (s.columns.size() == 1 ? " target: " : " targets: ") +
         std::to_string(t.pass) + " bit-exact, " + std::to_string(t.budget) + " within budget, " +
         std::to_string(t.fail) + " failed, " + std::to_string(t.unsupported) + " unsupported";
  if (report.seconds > 0)
    out += " (" + detail::formatSeconds(report.seconds) + ")";
  out += '\n';

  size_t listed = 0;
  for (const Result &r : report.results) {
    if (r.verdict != Verdict::Fail)
      continue;
    if (listed++ == kTableFailureLines) {
      out += "  ... and " + std::to_string(t.fail - kTableFailureLines) + " more\n";
      break;
    }
    std::string line = "  " + std::string(color ? kRed : "") + "FAIL" + (color ? kReset : "") + " " +
                       detail::sanitizeUtf8(r.caseId()) + " on " + detail::sanitizeUtf8(r.target);
    if (!r.detail.empty())
      line += ": " + truncate(firstLine(detail::sanitizeUtf8(r.detail)), 160);
    out += line + '\n';
  }
  return out;
}

Progress::Progress(size_t total, std::FILE *out) : Progress(total, out, isatty(fileno(out)) == 1) {}

Progress::Progress(size_t total, std::FILE *out, bool terminal) : out_(out), terminal_(terminal), total_(total) {}

Progress::~Progress() { finish(); }

void Progress::advance(const Result &r) {
  auto [device, backend] = detail::splitTarget(r.target);
  std::string where = backend.empty() ? device : device + "/" + backend;
  advance(where + " " + r.caseId(), r.verdict == Verdict::Fail);
}

void Progress::advance(std::string_view label, bool failed) {
  ++done_;
  bool newFailure = failed;
  failed_ += failed;
  label_ = detail::sanitizeUtf8(label);
  std::replace(label_.begin(), label_.end(), '\n', ' ');
  if (finished_)
    return;
  if (terminal_) {
    draw(newFailure || done_ >= total_);
    return;
  }
  // A plain line each time another tenth of the total is done.
  if (total_ == 0 || done_ * 10 < nextPlainLine_ * total_)
    return;
  while (done_ * 10 >= nextPlainLine_ * total_)
    ++nextPlainLine_;
  std::fprintf(out_, "%zu/%zu (%zu%%) %s", done_, total_, std::min<size_t>(100, done_ * 100 / total_), label_.c_str());
  if (failed_)
    std::fprintf(out_, " (%zu failed)", failed_);
  std::fputc('\n', out_);
  std::fflush(out_);
}

void Progress::note(std::string_view line) {
  std::string text = detail::sanitizeUtf8(line);
  if (terminal_ && drawn_)
    clearLine();
  std::fprintf(out_, "%s\n", text.c_str());
  if (terminal_ && !finished_ && done_ > 0)
    draw(true);
  std::fflush(out_);
}

void Progress::finish() {
  if (finished_)
    return;
  finished_ = true;
  if (terminal_ && drawn_)
    clearLine();
  std::fflush(out_);
}

void Progress::clearLine() {
  std::fputs("\r\033[K", out_);
  drawn_ = false;
}

void Progress::draw(bool force) {
  // Redrawing a line per result would make a fast run spend its time in the terminal.
  auto now = std::chrono::steady_clock::now();
  if (!force && drawn_ && now - lastDraw_ < std::chrono::milliseconds(50))
    return;
  lastDraw_ = now;
  size_t width = 80;
  struct winsize ws{};
  if (ioctl(fileno(out_), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    width = ws.ws_col;
  else if (const char *columns = std::getenv("COLUMNS"); columns && std::atoi(columns) > 0)
    width = size_t(std::atoi(columns));

  constexpr size_t kBar = 20;
  size_t filled = total_ ? std::min(kBar, done_ * kBar / total_) : 0;
  std::string line = "[" + std::string(filled, '#') + std::string(kBar - filled, '.') + "] " +
                     std::to_string(done_) + "/" + std::to_string(total_) + " ";
  std::string failedText = failed_ ? " (" + std::to_string(failed_) + " failed)" : "";
  // The line must never wrap: a wrapped line cannot be redrawn with \r.
  size_t room = width - 1 > line.size() + failedText.size() ? width - 1 - line.size() - failedText.size() : 0;
  line += truncate(label_, std::max<size_t>(room, 1));
  std::fputs("\r", out_);
  std::fputs(line.c_str(), out_);
  if (failed_)
    std::fprintf(out_, "\033[1;31m%s\033[0m", failedText.c_str());
  std::fputs("\033[K", out_);
  std::fflush(out_);
  drawn_ = true;
}

} // namespace tessera::conformance
