// The conformance suite's results and their outputs: JSON, a self-contained HTML page, the
// terminal summary table and the progress bar. Runtime-only: no MLIR, no LLVM, no Tessera library.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::conformance {

/// What one case gave on one target.
enum class Verdict {
  Pass,        ///< bit-identical to the reference interpreter (portable), or exact
  Budget,      ///< not bit-identical, but within the error budget against float64 (maxUlp ≤ budgetUlp)
  Fail,        ///< differs (portable) or over budget (fast); `detail` names the first differing element
  Unsupported, ///< the target refused the case; `detail` says why
};
/// "pass", "budget", "fail", "unsupported": the spelling used in JSON and in CSS classes.
const char *toString(Verdict v);

/// One case (kernel × shape × dtype × mode) on one target.
///
///     Result r{.caseName = "add", .family = "binary", .dtype = "f16", .shape = "253",
///              .mode = "portable", .target = "NVIDIA H200 / cuda", .verdict = Verdict::Pass};
///
/// A cross-backend comparison (the same GPU through two backends) is a Result whose target is
/// crossBackendTarget("NVIDIA H200", "cuda", "vulkan"): Pass when the outputs are identical.
struct Result {
  std::string caseName; ///< the kernel as the suite names it ("add", "exp", "sum_axis1")
  std::string family;   ///< the group it is summarized under ("binary", "math", "reduce")
  std::string dtype, shape, mode; ///< "f16", "16x32 mask 13x29", "portable" | "fast"
  std::string target;   ///< "device / backend", e.g. "llvmpipe (lavapipe) / vulkan"
  Verdict verdict = Verdict::Pass;
  double maxUlp = 0;    ///< largest error seen against float64, in ULP of the dtype (Budget, Fail)
  double budgetUlp = 0; ///< the op's published budget, in ULP (0: bit-exact was required)
  std::string detail;   ///< Fail: first differing element (index, inputs, got, expected); Unsupported: the reason
  double seconds = 0;   ///< wall time of the case on this target

  /// "add f16 253 portable": what identifies the case across targets (one row of the details).
  std::string caseId() const;
};

/// "NVIDIA H200 / cuda vs vulkan": the target of a cross-backend comparison.
std::string crossBackendTarget(std::string_view device, std::string_view a, std::string_view b);

/// Counts of each verdict over some results.
struct Tally {
  size_t pass = 0, budget = 0, fail = 0, unsupported = 0;
  void add(Verdict v);
  size_t ran() const { return pass + budget + fail; }        ///< unsupported ones did not run
  size_t passed() const { return pass + budget; }
  size_t total() const { return ran() + unsupported; }
};

/// A whole run of the suite.
struct Report {
  std::string title = "Tessera conformance";
  std::string startedAt; ///< UTC, ISO 8601: utcTimestamp()
  std::string command;   ///< the command line, as the user would retype it
  std::string seed;      ///< the random seed, to reproduce the inputs
  std::string host;      ///< hostName()
  double seconds = 0;    ///< wall time of the whole run (0: unknown)
  /// Column order. Targets that only appear in results are appended in order of appearance.
  std::vector<std::string> targets;
  std::vector<Result> results;

  size_t failures() const;
  Tally tally() const;
  /// "ALL PASS", "3 FAILED", or "NOTHING RAN" when no case ran (none, or all unsupported).
  std::string overallVerdict() const;
  /// `targets` followed by any other target the results name: the columns of every view.
  std::vector<std::string> columns() const;
};

/// Stable JSON, one result per line (schema: docs/conformance-report.md, version kJsonSchema).
/// Strings are sanitized to valid UTF-8; non-finite numbers become null.
inline constexpr const char *kJsonSchema = "tessera.conformance.report/1";
std::string toJson(const Report &report);

/// One self-contained HTML page: inline CSS, a few lines of inline JS (sorting, "failures
/// only"), nothing fetched. Every string from the report is escaped.
std::string toHtml(const Report &report);

/// The terminal summary: one row per family (per case when there are at most kTableCaseRows
/// cases), one column per target, cells "passed/ran"; then a total line and the first
/// kTableFailureLines failures. `color` adds ANSI colours (red fails, green passes, grey
/// unsupported); without it failing cells are marked "FAIL".
inline constexpr size_t kTableCaseRows = 12;
inline constexpr size_t kTableFailureLines = 10;
std::string toTable(const Report &report, bool color);

/// A JSON string (UTF-8 sanitized, escaped, quoted) appended to `out`; also for other JSON
/// writers (tessera bench).
void appendJsonString(std::string &out, std::string_view raw);
/// The shortest text that reads back as the same double; null when not finite (JSON has no inf).
void appendJsonNumber(std::string &out, double v);

/// The current time, or `t`, as "2025-06-01T12:34:56Z".
std::string utcTimestamp(std::chrono::system_clock::time_point t = std::chrono::system_clock::now());
/// gethostname(), or "unknown".
std::string hostName();
/// Writes `contents` to `path`; returns "" on success, else a message naming the path and errno.
std::string writeFile(const std::string &path, std::string_view contents);

/// The progress bar of a run on `out` (stderr by default). On a terminal one line is redrawn:
///
///     [#####...............] 412/1650 lavapipe/vulkan add f16 (2 failed)
///
/// elsewhere (CI logs, pipes) a plain line is printed every 10% of `total`. Not thread-safe:
/// call it from the thread that collects results.
///
///     Progress progress(cases * targets);
///     for (...) { Result r = run(...); progress.advance(r); report.results.push_back(r); }
///     progress.finish();
class Progress {
public:
  explicit Progress(size_t total, std::FILE *out = stderr);
  /// `terminal` overrides the isatty() check (tests).
  Progress(size_t total, std::FILE *out, bool terminal);
  ~Progress();
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;

  /// One more result done; `label` says what ran (the bar shows it), `failed` counts it.
  void advance(std::string_view label, bool failed);
  /// advance() labelled "device/backend case", failed when r.verdict is Fail.
  void advance(const Result &r);
  /// Prints `line` above the bar (a failure as it happens) without breaking the redrawn line.
  void note(std::string_view line);
  /// Clears the bar (terminal). Idempotent; the destructor calls it.
  void finish();

  size_t done() const { return done_; }
  size_t failed() const { return failed_; }

private:
  void draw(bool force);
  void clearLine();
  std::FILE *out_;
  bool terminal_;
  size_t total_, done_ = 0, failed_ = 0;
  size_t nextPlainLine_ = 1; ///< the next tenth at which a plain line is due
  std::string label_;
  bool drawn_ = false, finished_ = false;
  std::chrono::steady_clock::time_point lastDraw_{};
};

} // namespace tessera::conformance
