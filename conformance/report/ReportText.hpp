// What the report's outputs share and do not export: text sanitizing, number formatting and the
// families × targets summary that the HTML grid and the terminal table both show.
#pragma once

#include "Report.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera::conformance::detail {

/// `s` with every invalid UTF-8 sequence and every control character other than \t and \n
/// replaced by U+FFFD, so that no output (JSON, HTML, a terminal) is broken by a driver's bytes.
std::string sanitizeUtf8(std::string_view s);
/// Code points in `s` (a terminal column each, for the names this report shows).
size_t displayWidth(std::string_view s);
/// "2.5", "4", "1.2e+09", "inf": ULP counts for people.
std::string formatUlp(double ulp);
/// "0.8 s", "12 ms", "3 min 20 s".
std::string formatSeconds(double s);

/// One cell of the summary: the verdicts of a family (or case) on a target, and the largest
/// error of the results within budget.
struct Cell {
  Tally tally;
  double maxBudgetUlp = 0; ///< largest maxUlp among Budget results
};

/// rows × columns cells, plus the total of each column.
struct Summary {
  std::vector<std::string> rows, columns;
  std::vector<Cell> cells; ///< row-major
  std::vector<Cell> columnTotals;
  std::vector<Cell> rowTotals;
  Cell &at(size_t row, size_t column) { return cells[row * columns.size() + column]; }
  const Cell &at(size_t row, size_t column) const { return cells[row * columns.size() + column]; }
};
/// Rows are families (or caseIds with `byCase`), in order of first appearance.
Summary summarize(const Report &report, bool byCase);
void addToCell(Cell &cell, const Result &r);

/// "NVIDIA H200 / cuda" -> {"NVIDIA H200", "cuda"}; without " / " the backend is empty.
std::pair<std::string, std::string> splitTarget(std::string_view target);

} // namespace tessera::conformance::detail
