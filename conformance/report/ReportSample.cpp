// tessera-report-sample: writes a made-up but realistic conformance report (report.html,
// report.json, table.txt) into a folder, to look at the outputs without a GPU run.
//
//   tessera-report-sample DIR [--cases=N] [--failures=N] [--targets=N] [--progress]
#include "Report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <thread>

#include <unistd.h>

namespace tessera::conformance {
namespace {

struct Kernel {
  const char *family, *name;
  double fastBudgetUlp; ///< 0: exact in fast mode too
  bool floatOnly;
};

const Kernel kKernels[] = {
    {"binary", "add", 0, false},       {"binary", "mul", 0, false},     {"binary", "div", 2.5, false},
    {"binary", "fma", 0, true},        {"binary", "sqrt", 3, true},     {"compare", "lt", 0, false},
    {"compare", "where", 0, false},    {"cast", "to_f16", 0, false},    {"cast", "to_i32", 0, false},
    {"math", "exp", 2, true},          {"math", "log", 3, true},        {"math", "sin", 4, true},
    {"math", "tanh", 4, true},         {"math", "erf", 4, true},        {"math", "sigmoid", 3, true},
    {"memory", "load_masked", 0, false}, {"reduce", "sum_axis1", 16, false}, {"reduce", "max_all", 0, false},
    {"scan", "cumsum_axis0", 32, false}, {"shape", "trans", 0, false},  {"dot", "dot_16x16x16", 64, true},
};
const char *kDtypes[] = {"f32", "f16", "bf16", "i32", "i8", "u32"};
const char *kShapes[] = {"1", "253", "4096", "16x32 mask 13x29", "0"};

Report makeSample(size_t wantCases, size_t failures, size_t targetCount) {
  Report report;
  report.title = "Tessera conformance";
  report.startedAt = utcTimestamp();
  report.command = "tessera conformance --html=report.html --json=report.json";
  report.seed = "2718281828";
  report.host = hostName();
  std::vector<std::string> all = {"NVIDIA H200 / cuda", "NVIDIA H200 / vulkan",
                                  crossBackendTarget("NVIDIA H200", "cuda", "vulkan"),
                                  "llvmpipe (lavapipe) / vulkan", "interpreter / cpu"};
  all.resize(std::min(all.size(), std::max<size_t>(targetCount, 1)));
  report.targets = all;

  std::mt19937 rng(42);
  std::uniform_real_distribution<double> frac(0, 1);
  size_t cases = 0;
  for (size_t round = 0; cases < wantCases; ++round) {
    size_t before = cases;
    for (const Kernel &k : kKernels)
      for (const char *dtype : kDtypes) {
        bool isFloat = dtype[0] == 'f' || dtype[0] == 'b';
        if (k.floatOnly && !isFloat)
          continue;
        const char *shape = kShapes[(cases + round) % std::size(kShapes)];
        for (const char *mode : {"portable", "fast"}) {
          if (cases++ >= wantCases)
            break;
          for (const std::string &target : report.targets) {
            bool portable = mode[0] == 'p';
            bool lavapipe = target.starts_with("llvmpipe");
            bool cross = target.find(" vs ") != std::string::npos;
            if (cross && !portable) // fast mode promises no bit-identity across backends
              continue;
            Result r{.caseName = k.name, .family = k.family, .dtype = dtype, .shape = shape, .mode = mode,
                     .target = target, .detail = ""};
            if (round)
              r.caseName += "_v" + std::to_string(round);
            r.seconds = 0.002 + 0.01 * frac(rng);
            if (lavapipe && portable && std::strcmp(dtype, "bf16") == 0) {
              r.verdict = Verdict::Unsupported;
              r.detail = "portable mode needs shaderDenormPreserveFloat32";
            } else if (!portable && k.fastBudgetUlp > 0 && isFloat && !target.starts_with("interpreter")) {
              r.budgetUlp = k.fastBudgetUlp;
              r.maxUlp = std::round(k.fastBudgetUlp * frac(rng) * 2) / 2;
              r.verdict = r.maxUlp == 0 ? Verdict::Pass : Verdict::Budget;
            }
            report.results.push_back(std::move(r));
          }
        }
      }
    if (cases == before)
      break;
  }
  // Failures with details that would break a careless page: markup, quotes, control bytes.
  const char *details[] = {
      "first difference at [17] x=0x3c00 (1.0) y=0x0001 (5.96e-08): got 0x3c00, expected 0x3c01",
      "first difference at [252] (past the end: a masked lane wrote): got 0x7fc0dead, expected 0x00000000",
      "<script>alert('x')</script> & \"quoted\" \x01 control",
      "over budget at [4095]: x=88.72 got inf, expected 3.40e+38 (1.2e+09 ULP > 2)",
  };
  for (size_t f = 0, pick = 0; f < failures && pick < report.results.size() * 2; ++pick) {
    Result &r = report.results[(pick * 7919 + 13) % report.results.size()];
    if (r.verdict == Verdict::Unsupported || r.verdict == Verdict::Fail || r.target.starts_with("interpreter"))
      continue;
    r.verdict = Verdict::Fail;
    r.detail = details[f++ % std::size(details)];
    if (r.budgetUlp > 0)
      r.maxUlp = 1.2e9;
  }
  report.seconds = 0;
  for (const Result &r : report.results)
    report.seconds += r.seconds;
  return report;
}

int run(int argc, char **argv) {
  std::string dir;
  size_t cases = 240, failures = 3, targets = 5;
  bool progress = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--cases=", 8))
      cases = std::stoul(argv[i] + 8);
    else if (!std::strncmp(argv[i], "--failures=", 11))
      failures = std::stoul(argv[i] + 11);
    else if (!std::strncmp(argv[i], "--targets=", 10))
      targets = std::stoul(argv[i] + 10);
    else if (!std::strcmp(argv[i], "--progress"))
      progress = true;
    else if (argv[i][0] != '-' && dir.empty())
      dir = argv[i];
    else {
      std::fprintf(stderr, "usage: %s DIR [--cases=N] [--failures=N] [--targets=N] [--progress]\n", argv[0]);
      return 2;
    }
  }
  if (dir.empty()) {
    std::fprintf(stderr, "usage: %s DIR [--cases=N] [--failures=N] [--targets=N] [--progress]\n", argv[0]);
    return 2;
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  Report report = makeSample(cases, failures, targets);
  if (progress) { // what a run looks like, at a visible speed
    Progress bar(report.results.size());
    for (const Result &r : report.results) {
      bar.advance(r);
      if (r.verdict == Verdict::Fail)
        bar.note("FAIL " + r.caseId() + " on " + r.target);
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  std::string table = toTable(report, false);
  for (auto [name, text] : {std::pair{"/report.html", toHtml(report)}, {"/report.json", toJson(report)},
                            {"/table.txt", table}}) {
    if (std::string error = writeFile(dir + name, text); !error.empty()) {
      std::fprintf(stderr, "tessera-report-sample: %s\n", error.c_str());
      return 1;
    }
  }
  std::fputs(toTable(report, isatty(fileno(stdout))).c_str(), stdout);
  std::printf("wrote %s/report.html, report.json and table.txt (%zu results)\n", dir.c_str(), report.results.size());
  return 0;
}

} // namespace
} // namespace tessera::conformance

int main(int argc, char **argv) { return tessera::conformance::run(argc, argv); }
