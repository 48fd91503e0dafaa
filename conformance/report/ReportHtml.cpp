// The report as one self-contained HTML page: verdict, summary grid, failures, every case.
#include "ReportText.hpp"

#include <algorithm>
#include <unordered_map>

namespace tessera::conformance {
namespace {

/// Text made safe for element content and for attribute values in double or single quotes.
std::string escape(std::string_view raw) {
  std::string s = detail::sanitizeUtf8(raw), out;
  out.reserve(s.size() + 16);
  for (char c : s) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&#39;"; break;
    default: out += c;
    }
  }
  return out;
}

constexpr const char *kStyle = R"css(
:root{--pass:#1a7f37;--pass-bg:#d6f5dd;--budget:#1550a8;--budget-bg:#dce8fc;--fail:#c62828;
--fail-bg:#fde2e1;--unsup:#5f6b76;--unsup-bg:#e9ecef;--ink:#1f2328;--muted:#59636e;--line:#d8dee4}
*{box-sizing:border-box}
body{margin:0;font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;
  color:var(--ink);background:#f6f8fa}
main{max-width:1600px;margin:0 auto;padding:20px 28px 60px}
code{font:12.5px/1.4 ui-monospace,"DejaVu Sans Mono",Menlo,monospace}
h1{font-size:22px;margin:0 0 6px}
h2{font-size:17px;margin:28px 0 10px}
.top{display:flex;gap:28px;align-items:stretch;background:#fff;border:1px solid var(--line);border-radius:10px;
  padding:18px 22px}
.verdict{min-width:260px;display:flex;flex-direction:column;justify-content:center;align-items:center;
  border-radius:8px;padding:10px 24px;color:#fff}
.verdict b{font-size:46px;line-height:1.05;letter-spacing:.5px;white-space:nowrap}
.verdict span{font-size:14px;opacity:.92;margin-top:4px}
.v-pass{background:var(--pass)}.v-fail{background:var(--fail)}.v-none{background:var(--unsup)}
.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0}
.meta dt{color:var(--muted)}.meta dd{margin:0;word-break:break-all}
.chips{display:flex;flex-wrap:wrap;gap:8px;margin-top:10px}
.chip{border-radius:999px;padding:2px 12px;font-weight:600;font-size:13px}
.k-pass{background:var(--pass-bg);color:var(--pass)}.k-budget{background:var(--budget-bg);color:var(--budget)}
.k-fail{background:var(--fail);color:#fff}.k-unsup{background:var(--unsup-bg);color:var(--unsup)}
.k-zero{background:#eef1f4;color:#8c959f}
table{border-collapse:collapse;background:#fff}
.grid th,.grid td{border:1px solid var(--line);padding:4px 12px}
.grid thead th{background:#f0f3f6;font-weight:600;vertical-align:bottom;text-align:center}
.grid thead th small,.details thead th small{display:block;font-weight:400;color:var(--muted)}
.grid tbody th,.grid tfoot th{text-align:left;font-weight:600;white-space:nowrap}
.grid td{text-align:center;min-width:120px;white-space:nowrap}
.grid td b{display:block;font-size:16px}
.grid td small{display:block;font-size:12px}
.grid tfoot th,.grid tfoot td{border-top:2px solid #afb8c1}
.grid .all{border-left:2px solid #afb8c1}
.c-pass{background:var(--pass-bg);color:var(--pass)}
.c-budget{background:var(--budget-bg);color:var(--budget)}
.c-fail{background:var(--fail);color:#fff}
.c-unsup{background:var(--unsup-bg);color:var(--unsup)}
.c-none{background:#fff;color:#afb8c1}
.legend{display:flex;flex-wrap:wrap;gap:18px;margin:10px 0 0;color:var(--muted);font-size:13px}
.legend i{display:inline-block;width:14px;height:14px;border-radius:3px;vertical-align:-2px;margin-right:6px}
.fails td,.fails th{border-bottom:1px solid var(--line);padding:5px 10px;text-align:left;vertical-align:top}
.fails thead th{background:#f0f3f6}
.fails td.d{color:var(--fail)}
.more{color:var(--muted);margin:6px 0}
.controls{display:flex;gap:18px;align-items:center;margin:0 0 8px}
.controls input[type=search]{width:280px;padding:4px 8px;border:1px solid var(--line);border-radius:6px}
.details{font-size:13px}
.details th,.details td{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
.details thead th{position:sticky;top:0;white-space:nowrap;background:#f0f3f6;cursor:pointer;user-select:none;z-index:1}
.details thead th:hover{background:#e3e8ee}
.details td.r{min-width:110px}
.details tbody td:nth-child(-n+5){white-space:nowrap}
.details tbody td:first-child{color:var(--muted)}
.details td.d-pass{color:var(--pass)}
.details td.d-budget{background:var(--budget-bg);color:var(--budget)}
.details td.d-fail{background:var(--fail-bg);color:var(--fail);font-weight:600}
.details td.d-unsup{background:#f3f4f6;color:var(--unsup)}
.details td.d-none{color:#afb8c1}
.details td div{font-weight:400;font-size:12px;white-space:pre-wrap;word-break:break-word;max-width:460px}
.details td.d-fail div{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,monospace}
#details.only-fail tbody tr:not(.has-fail){display:none}
.empty{background:#fff;border:1px dashed #afb8c1;border-radius:8px;padding:24px;color:var(--muted)}
footer{color:var(--muted);font-size:12px;margin-top:24px}
)css";

// Sorting by a header click (verdict columns by severity, via data-s), "failures only" and a
// text filter. The page reads the same without it.
constexpr const char *kScript = R"js(
(function () {
  var table = document.getElementById('details');
  if (!table) return;
  var body = table.tBodies[0];
  document.getElementById('only-fail').onchange = function (e) {
    table.classList.toggle('only-fail', e.target.checked);
  };
  var filter = document.getElementById('filter');
  filter.oninput = function () {
    var text = filter.value.toLowerCase();
    for (var i = 0; i < body.rows.length; i++) {
      var row = body.rows[i];
      row.hidden = text !== '' && row.textContent.toLowerCase().indexOf(text) < 0;
    }
  };
  table.tHead.onclick = function (e) {
    var th = e.target.closest('th');
    if (!th) return;
    var column = th.cellIndex, direction = th.dataset.dir === 'a' ? -1 : 1;
    th.dataset.dir = direction > 0 ? 'a' : 'd';
    var key = function (row) {
      var cell = row.cells[column];
      return cell.dataset.s !== undefined ? cell.dataset.s : cell.textContent;
    };
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (x, y) { return direction * key(x).localeCompare(key(y), undefined, {numeric: true}); });
    var sorted = document.createDocumentFragment();
    rows.forEach(function (row) { sorted.appendChild(row); });
    body.appendChild(sorted);
  };
})();
)js";

const char *cellClass(const detail::Cell &cell) {
  const Tally &t = cell.tally;
  if (t.total() == 0)
    return "c-none";
  if (t.fail)
    return "c-fail";
  if (t.ran() == 0)
    return "c-unsup";
  return t.budget ? "c-budget" : "c-pass";
}

void appendSummaryCell(std::string &out, const detail::Cell &cell, bool allColumn) {
  const Tally &t = cell.tally;
  out += "<td class=\"";
  out += cellClass(cell);
  out += allColumn ? " all\">" : "\">";
  if (t.total() == 0) {
    out += "<b>&ndash;</b></td>";
    return;
  }
  if (t.ran() == 0) {
    out += "<b>&ndash;</b><small>" + std::to_string(t.unsupported) + " unsupported</small></td>";
    return;
  }
  out += "<b>" + std::to_string(t.passed()) + "/" + std::to_string(t.ran()) + "</b><small>";
  if (t.fail)
    out += std::to_string(t.fail) + " failed";
  else if (t.budget)
    out += "max " + escape(detail::formatUlp(cell.maxBudgetUlp)) + " ULP";
  else
    out += "bit-exact";
  if (t.unsupported)
    out += " &middot; " + std::to_string(t.unsupported) + " unsupported";
  out += "</small></td>";
}

void appendTargetHeader(std::string &out, const std::string &target, const char *extra = "") {
  auto [device, backend] = detail::splitTarget(target);
  out += "<th";
  out += extra;
  out += " title=\"" + escape(target) + "\">" + escape(device);
  if (!backend.empty())
    out += "<small>" + escape(backend) + "</small>";
  out += "</th>";
}

void appendHeader(std::string &out, const Report &report, const Tally &t, size_t targets) {
  const char *verdictClass = t.fail ? "v-fail" : t.ran() ? "v-pass" : "v-none";
  out += "<header class=\"top\"><div class=\"verdict " + std::string(verdictClass) + "\"><b>" +
         escape(report.overallVerdict()) + "</b><span>" + std::to_string(report.results.size()) + " results on " +
         std::to_string(targets) + (targets == 1 ? " target" : " targets") + "</span></div><div>";
  out += "<h1>" + escape(report.title) + "</h1><dl class=\"meta\">";
  auto row = [&](const char *name, const std::string &value, bool code = false) {
    if (value.empty())
      return;
    out += "<dt>" + std::string(name) + "</dt><dd>";
    out += code ? "<code>" + escape(value) + "</code>" : escape(value);
    out += "</dd>";
  };
  row("started", report.startedAt);
  row("took", report.seconds > 0 ? detail::formatSeconds(report.seconds) : "");
  row("command", report.command, true);
  row("seed", report.seed, true);
  row("host", report.host);
  out += "</dl><div class=\"chips\">";
  auto chip = [&](size_t n, const char *what, const char *cls) {
    out += "<span class=\"chip " + std::string(n ? cls : "k-zero") + "\">" + std::to_string(n) + " " + what + "</span>";
  };
  chip(t.pass, "bit-exact", "k-pass");
  chip(t.budget, "within budget", "k-budget");
  chip(t.fail, "failed", "k-fail");
  chip(t.unsupported, "unsupported", "k-unsup");
  out += "</div></div></header>\n";
}

void appendSummary(std::string &out, const detail::Summary &s, const std::vector<size_t> &familyAnchor) {
  out += "<h2>Summary</h2>\n<table class=\"grid\"><thead><tr><th>family</th>";
  for (const std::string &c : s.columns)
    appendTargetHeader(out, c);
  bool allColumn = s.columns.size() > 1;
  out += allColumn ? "<th class=\"all\">all targets</th></tr></thead>\n<tbody>\n" : "</tr></thead>\n<tbody>\n";
  for (size_t r = 0; r < s.rows.size(); ++r) {
    out += "<tr><th><a href=\"#row-" + std::to_string(familyAnchor[r]) + "\">" + escape(s.rows[r]) + "</a></th>";
    for (size_t c = 0; c < s.columns.size(); ++c)
      appendSummaryCell(out, s.at(r, c), false);
    if (allColumn)
      appendSummaryCell(out, s.rowTotals[r], true);
    out += "</tr>\n";
  }
  out += "</tbody>";
  if (s.rows.size() > 1) {
    out += "<tfoot><tr><th>all families</th>";
    detail::Cell all;
    for (const detail::Cell &cell : s.columnTotals) {
      appendSummaryCell(out, cell, false);
      all.tally.pass += cell.tally.pass;
      all.tally.budget += cell.tally.budget;
      all.tally.fail += cell.tally.fail;
      all.tally.unsupported += cell.tally.unsupported;
      all.maxBudgetUlp = std::max(all.maxBudgetUlp, cell.maxBudgetUlp);
    }
    if (allColumn)
      appendSummaryCell(out, all, true);
    out += "</tr></tfoot>";
  }
  out += "</table>\n<div class=\"legend\">"
         "<span><i class=\"c-pass\"></i>bit-identical to the reference interpreter</span>"
         "<span><i class=\"c-budget\"></i>within the error budget against float64 (largest ULP shown)</span>"
         "<span><i class=\"c-fail\"></i>failed (passed/ran)</span>"
         "<span><i class=\"c-unsup\"></i>unsupported on that target</span></div>\n";
}

/// One case across the targets: the details table's row.
struct CaseRow {
  size_t first;                  ///< index of its first result
  std::vector<long> byColumn;    ///< result index per column, -1 when absent
  bool failed = false;
};

int severity(Verdict v) {
  switch (v) {
  case Verdict::Fail: return 0;
  case Verdict::Budget: return 1;
  case Verdict::Pass: return 2;
  case Verdict::Unsupported: return 3;
  }
  return 4;
}

void appendDetailCell(std::string &out, const Result *r) {
  if (!r) {
    out += "<td class=\"r d-none\" data-s=\"5\">&ndash;</td>";
    return;
  }
  std::string sort = std::to_string(severity(r->verdict));
  switch (r->verdict) {
  case Verdict::Pass:
    out += "<td class=\"r d-pass\" data-s=\"" + sort + "\">pass</td>";
    return;
  case Verdict::Budget:
    out += "<td class=\"r d-budget\" data-s=\"" + sort + "\">" + escape(detail::formatUlp(r->maxUlp)) + " / " +
           escape(detail::formatUlp(r->budgetUlp)) + " ULP";
    break;
  case Verdict::Fail:
    out += "<td class=\"r d-fail\" data-s=\"" + sort + "\">fail";
    if (r->maxUlp > 0 || r->budgetUlp > 0)
      out += " (" + escape(detail::formatUlp(r->maxUlp)) + " ULP, budget " + escape(detail::formatUlp(r->budgetUlp)) +
             ")";
    break;
  case Verdict::Unsupported:
    out += "<td class=\"r d-unsup\" data-s=\"" + sort + "\">unsupported";
    break;
  }
  if (!r->detail.empty())
    out += "<div>" + escape(r->detail) + "</div>";
  out += "</td>";
}

void appendFailures(std::string &out, const Report &report, size_t failures) {
  constexpr size_t kListed = 200;
  out += "<h2>Failures</h2>\n<table class=\"fails\"><thead><tr><th>case</th><th>target</th><th>first difference</th>"
         "</tr></thead><tbody>\n";
  size_t listed = 0;
  for (const Result &r : report.results) {
    if (r.verdict != Verdict::Fail)
      continue;
    if (listed++ == kListed)
      break;
    out += "<tr><td>" + escape(r.caseId()) + "</td><td>" + escape(r.target) + "</td><td class=\"d\"><code>" +
           escape(r.detail) + "</code></td></tr>\n";
  }
  out += "</tbody></table>\n";
  if (failures > kListed)
    out += "<p class=\"more\">&hellip; and " + std::to_string(failures - kListed) +
           " more: tick &ldquo;failures only&rdquo; below.</p>\n";
}

} // namespace

std::string toHtml(const Report &report) {
  Tally t = report.tally();
  detail::Summary s = detail::summarize(report, false);

  // Details rows: grouped by family in the summary's order, cases in order of appearance.
  std::unordered_map<std::string, size_t> rowOf, familyIndex;
  for (size_t f = 0; f < s.rows.size(); ++f)
    familyIndex.emplace(s.rows[f], f);
  std::unordered_map<std::string, size_t> columnOf;
  for (size_t c = 0; c < s.columns.size(); ++c)
    columnOf.emplace(s.columns[c], c);
  std::vector<std::vector<CaseRow>> byFamily(s.rows.size());
  std::vector<std::pair<size_t, size_t>> rowPlace; // (family, index in it)
  for (size_t i = 0; i < report.results.size(); ++i) {
    const Result &r = report.results[i];
    size_t family = familyIndex.at(r.family.empty() ? std::string("(no family)") : r.family);
    auto [it, added] = rowOf.emplace(r.family + '\x1f' + r.caseId(), rowPlace.size());
    if (added) {
      rowPlace.emplace_back(family, byFamily[family].size());
      byFamily[family].push_back({i, std::vector<long>(s.columns.size(), -1)});
    }
    auto [f, k] = rowPlace[it->second];
    CaseRow &row = byFamily[f][k];
    long &slot = row.byColumn[columnOf.at(r.target)];
    // A case reported twice on one target shows its worst verdict.
    if (slot < 0 || severity(r.verdict) < severity(report.results[slot].verdict))
      slot = long(i);
    row.failed |= r.verdict == Verdict::Fail;
  }
  std::vector<size_t> familyAnchor(s.rows.size());
  size_t rowNumber = 0;
  for (size_t f = 0; f < byFamily.size(); ++f) {
    familyAnchor[f] = rowNumber;
    rowNumber += byFamily[f].size();
  }

  std::string out;
  out.reserve(8192 + report.results.size() * 160);
  out += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
         "script-src 'unsafe-inline'\"><title>" +
         escape(report.title) + ": " + escape(report.overallVerdict()) + "</title>\n<style>" + kStyle +
         "</style></head>\n<body><main>\n";
  appendHeader(out, report, t, s.columns.size());
  if (report.results.empty()) {
    out += "<h2>Summary</h2>\n<p class=\"empty\">No results: no case ran";
    out += s.columns.empty() ? " and no target was found." : " on any of the targets.";
    out += "</p>\n";
  } else {
    appendSummary(out, s, familyAnchor);
    if (t.fail)
      appendFailures(out, report, t.fail);
    out += "<h2>Every case</h2>\n<div class=\"controls\"><label><input type=\"checkbox\" id=\"only-fail\"> failures "
           "only</label><input type=\"search\" id=\"filter\" placeholder=\"filter: case, dtype, message&hellip;\">"
           "<span class=\"more\">" +
           std::to_string(rowNumber) + " cases &middot; click a header to sort</span></div>\n";
    out += "<table class=\"details\" id=\"details\"><thead><tr><th>family</th><th>case</th><th>dtype</th>"
           "<th>shape</th><th>mode</th>";
    for (const std::string &c : s.columns)
      appendTargetHeader(out, c);
    out += "</tr></thead>\n<tbody>\n";
    size_t number = 0;
    for (const auto &rows : byFamily) {
      for (const CaseRow &row : rows) {
        const Result &first = report.results[row.first];
        out += "<tr id=\"row-" + std::to_string(number++) + "\"" + (row.failed ? " class=\"has-fail\">" : ">");
        for (const std::string *field : {&first.family, &first.caseName, &first.dtype, &first.shape, &first.mode})
          out += "<td>" + escape(*field) + "</td>";
        for (long index : row.byColumn)
          appendDetailCell(out, index < 0 ? nullptr : &report.results[index]);
        out += "</tr>\n";
      }
    }
    out += "</tbody></table>\n";
  }
  out += "<footer>";
  out += escape(kJsonSchema);
  out += " &middot; generated by tessera conformance</footer>\n</main>\n<script>";
  out += kScript;
  out += "</script>\n</body></html>\n";
  return out;
}

} // namespace tessera::conformance
