// tessera-conformance-suite (`tessera conformance`): every case x dtype x size x mode on the
// reference interpreter and on every device and backend present.
//
//   portable: bit-identical to the interpreter (NaN matches any NaN), and within budget
//   fast:     within budget against the float64 value the interpreter's shadow carries
//   a GPU reached through CUDA and Vulkan: portable outputs identical across the two
//
// Prints progress and a table; --json=FILE and --html=FILE write the report. Exit code 0 only
// when nothing failed.
#include "Suite.hpp"
#include "report/Report.hpp"

#ifndef TESSERA_SUITE_AOT
#include "tessera/tessera.hpp"
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>

#include <unistd.h>

using namespace tessera;
using namespace tessera::suite;
using conformance::Verdict;

namespace {

struct Options {
  uint32_t seed = std::random_device{}();
  std::string json, html, filter;
  std::vector<Numerics> modes{Numerics::Fast, Numerics::Portable};
  bool quick = false;      // skip the large sizes
  std::string writeGoldens; // also write packages and reference files here
  std::string goldens;      // read them from here instead of tracing and interpreting
};

struct Target {
  std::string label; // "device / backend"
  std::shared_ptr<Device> device;
  uint32_t deviceIndex = 0;
  Backend backend = Backend::Vulkan;
  std::string backendLabel; // "cuda", "vulkan", "vulkan (soft denormals)"
  // Portable kernels compiled with software f32 denormals on a device that keeps them natively:
  // the emulation checked bit for bit where it is not needed (lavapipe in CI). Portable only.
  bool softDenormals = false;
};

/// The package restricted to the SPIR-V artifacts with software f32 denormals.
Package onlySoftDenormals(Package pkg) {
  for (KernelEntry &k : pkg.kernels)
    std::erase_if(k.artifacts, [](const Artifact &a) { return a.target.kind != TargetKind::SPIRV || !hasSoftDenormals(a.target.chip); });
  return pkg;
}

std::string show(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

bool sameElement(const HostBuffer &a, const HostBuffer &b, size_t i) {
  size_t w = sizeOf(a.dtype);
  if (std::memcmp(a.bytes.data() + i * w, b.bytes.data() + i * w, w) == 0)
    return true;
  return std::isnan(elementValue(a, i)) && std::isnan(elementValue(b, i));
}

Bound boundFor(const Case &c, DType t, Numerics mode) {
  Bound b = mode == Numerics::Portable ? c.budgets.portable : c.budgets.fast;
  if (t == DType::F32)
    return b;
  return {std::max(c.budgets.half.ulps, b.ulps > 0 ? 1.0 : 0.0), 0, b.absolute}; // rounded once more
}

/// Largest error (in ULP) of `out` against the exact values, and the first element over `bound`.
std::pair<double, std::optional<size_t>> measure(const Reference &ref, const HostBuffer &out, const Bound &bound,
                                                 bool fastDomainOnly) {
  double worst = 0;
  std::optional<size_t> first;
  const Problem &p = ref.problem;
  for (int32_t i = 0; i < p.n; ++i) {
    if (fastDomainOnly && !p.inFastDomain[i])
      continue;
    if (fastDomainOnly && ref.exact[i] != 0 && std::fabs(ref.exact[i]) < 0x1p-126)
      continue; // a denormal result: fast mode may flush it
    double got = elementValue(out, i), exact = ref.exact[i];
    double ulps = ulpDistance(out.dtype, got, exact);
    if (ulps == 0 || (bound.absolute > 0 && p.scale[i] == INFINITY)) // an unbounded absolute term
      continue;
    double ulpSize = ulps == INFINITY ? 0 : std::fabs(got - exact) / ulps;
    double allowed = bound.ulps + bound.growth * p.growth[i];
    if (ulpSize > 0)
      allowed += bound.absolute * p.scale[i] / ulpSize;
    if (!(ulps <= allowed) && !first)
      first = i;
    if (ulps != INFINITY)
      worst = std::max(worst, ulps);
  }
  return {worst, first};
}

std::string describe(const Reference &ref, const HostBuffer &out, size_t i, bool vsGolden) {
  const Problem &p = ref.problem;
  std::string s = "element " + std::to_string(i);
  if (i < p.x.count())
    s += ": x = " + show(elementValue(p.x, i)) + ", y = " + show(elementValue(p.y, i));
  s += ": got " + show(elementValue(out, i));
  if (vsGolden)
    s += ", interpreter " + show(elementValue(ref.golden, i));
  if (i < ref.exact.size())
    s += ", exact " + show(ref.exact[i]);
  return s;
}

/// Runs one reference: inputs from the rng, golden bits and exact values from the interpreter.
std::optional<Reference> reference(const Case &c, DType t, int32_t n, const TracedKernel &kernel, std::mt19937 &rng,
                                   std::string &error) {
#ifdef TESSERA_SUITE_AOT
  (void)c, (void)t, (void)n, (void)kernel, (void)rng;
  error = "this build has no interpreter; run with --goldens=DIR";
  return std::nullopt;
#else
  Reference ref{c.problem(t, n, rng), {}, {}};
  ref.problem.out.fill(0xff);
  HostBuffer x = ref.problem.x, y = ref.problem.y;
  ref.golden = ref.problem.out;
  if (Status s = interpret(kernel, ref.problem.grid, {x, y, ref.golden, ref.problem.n}); !s) {
    error = "interpreter: " + s.toString();
    return std::nullopt;
  }
  HostBuffer shadowOut = ref.problem.out;
  HostBuffer sx = ref.problem.x, sy = ref.problem.y;
  if (Status s = interpret(kernel, ref.problem.grid, {sx, sy, shadowOut, ref.problem.n},
                           {.shadow = true, .portableExpansion = false});
      !s) {
    error = "interpreter (shadow): " + s.toString();
    return std::nullopt;
  }
  ref.exact = shadowOut.shadow;
  ref.exact.resize(shadowOut.count(), NAN);
  return ref;
#endif
}

/// Launches the case on one target; the output, or the failure (Unsupported when the target refused).
Result<HostBuffer> runOnTarget(Device &dev, const Package &pkg, const std::string &name, const Reference &ref) {
  Result<Module> module = dev.load(pkg);
  if (!module)
    return module.status();
  Result<Kernel> kernel = module->kernel(name);
  if (!kernel)
    return kernel.status();
  const Problem &p = ref.problem;
  auto alloc = [&](const HostBuffer &h) -> Result<Buffer> {
    Result<Buffer> b = dev.allocate(h.dtype, h.count());
    if (!b)
      return b;
    if (Status s = b->upload(h.bytes.data(), h.bytes.size()); !s)
      return s;
    return b;
  };
  Result<Buffer> bx = alloc(p.x), by = alloc(p.y), bo = alloc(p.out);
  for (auto *b : {&bx, &by, &bo})
    if (!*b)
      return b->status();
  if (Status s = kernel->launch(p.grid, {*bx, *by, *bo, p.n}); !s)
    return s;
  HostBuffer out = p.out;
  if (Status s = bo->download(out.bytes.data(), out.bytes.size()); !s)
    return s;
  return out;
}

std::string sizeLabel(int32_t n) { return "n=" + std::to_string(n); }

int run(const Options &opt, int argc, char **argv) {
  auto started = std::chrono::steady_clock::now();
  conformance::Report report;
  report.startedAt = conformance::utcTimestamp();
  report.seed = std::to_string(opt.seed);
  report.host = conformance::hostName();
  for (int i = 0; i < argc; ++i)
    report.command += (i ? " " : "") + std::string(argv[i]);

  std::vector<Target> targets;
  auto rt = Runtime::create();
  if (!rt) {
    std::fprintf(stderr, "tessera conformance: %s\n", rt.status().toString().c_str());
    return 2;
  }
  for (const DeviceInfo &d : (*rt)->devices())
    for (const BackendInfo &b : d.backends) {
      auto dev = (*rt)->open(d.index, b.backend);
      if (!dev) {
        std::fprintf(stderr, "tessera conformance: skipping %s / %s: %s\n", d.name.c_str(), toString(b.backend),
                     dev.status().toString().c_str());
        continue;
      }
      targets.push_back({d.name + " / " + toString(b.backend), *dev, d.index, b.backend, toString(b.backend)});
      if (b.backend == Backend::Vulkan && !hasSoftDenormals((*dev)->target().chip)) {
        const std::string soft = std::string(toString(b.backend)) + " (soft denormals)";
        targets.push_back({d.name + " / " + soft, *dev, d.index, b.backend, soft, true});
      }
    }
  const std::string interpreterTarget = "interpreter";
  report.targets.push_back(interpreterTarget);
  for (const Target &t : targets)
    report.targets.push_back(t.label);

  // Everything that will run, to size the progress bar.
  struct Job {
    const Case *kase;
    DType dtype;
    Numerics mode;
  };
  std::vector<Job> jobs;
  for (const Case &c : cases())
    if (opt.filter.empty() || c.name.find(opt.filter) != std::string::npos || c.family == opt.filter)
      for (DType t : caseDTypes())
        for (Numerics m : opt.modes)
          jobs.push_back({&c, t, m});
  size_t total = 0;
  for (const Job &j : jobs)
    for (int32_t n : j.kase->sizes)
      if (!(opt.quick && n > 4096))
        total += 1 + std::count_if(targets.begin(), targets.end(), [&](const Target &t) {
                   return !t.softDenormals || j.mode == Numerics::Portable;
                 });
  conformance::Progress progress(total);
  std::mt19937 rng(opt.seed);

  for (const Job &job : jobs) {
    const Case &c = *job.kase;
    std::string dtype(toString(job.dtype)), mode(toString(job.mode));
    const std::string stem = jobStem(c.name, job.dtype, job.mode);
    Result<TracedKernel> kernel = opt.goldens.empty() ? c.trace(job.dtype, job.mode)
                                                      : Result<TracedKernel>(Status(StatusCode::Unavailable, "from goldens"));
    std::map<std::string, Result<Package>> packages; // per target
    std::optional<Result<Package>> recorded;         // --goldens: one package for every target
    if (!opt.goldens.empty())
      recorded = readPackageFile(opt.goldens + "/" + stem + ".tspkg");
    if (!opt.writeGoldens.empty() && kernel) {
#ifndef TESSERA_SUITE_AOT
      // What the GPU test machine (CUDA sm_90, NVIDIA Vulkan: subgroup 32) and lavapipe (8) run.
      // Both denormal handlings for SPIR-V: the runtime picks per device.
      std::vector<TargetDesc> golden{nvptxTarget("sm_90"), spirvTarget(8), spirvTarget(32), spirvTarget(8, true),
                                     spirvTarget(32, true)};
      Result<Package> all = compile(std::span(&*kernel, 1), golden);
      Status s = all ? writePackageFile(opt.writeGoldens + "/" + stem + ".tspkg", *all) : all.status();
      if (!s)
        std::fprintf(stderr, "tessera conformance: %s: %s\n", stem.c_str(), s.toString().c_str());
#endif
    }
    for (int32_t n : c.sizes) {
      if (opt.quick && n > 4096)
        continue;
      auto result = [&](const std::string &target) {
        conformance::Result r;
        r.caseName = c.name;
        r.family = c.family;
        r.dtype = dtype;
        r.shape = sizeLabel(n);
        r.mode = mode;
        r.target = target;
        return r;
      };
      auto finish = [&](conformance::Result r, std::chrono::steady_clock::time_point t0) {
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (r.verdict == Verdict::Fail)
          progress.note("FAIL " + r.target + " " + r.caseId() + ": " + r.detail);
        progress.advance(r);
        report.results.push_back(std::move(r));
      };
      auto t0 = std::chrono::steady_clock::now();
      conformance::Result ir = result(interpreterTarget);
      Bound bound = boundFor(c, job.dtype, job.mode);
      ir.budgetUlp = bound.ulps;
      std::string error = kernel ? "" : "trace: " + kernel.status().toString();
      std::optional<Reference> ref;
      const std::string refPath = "/" + stem + "_n" + std::to_string(n) + ".ref";
      if (!opt.goldens.empty()) {
        Result<Reference> read = readReference(opt.goldens + refPath);
        if (read)
          ref = std::move(*read);
        else
          error = read.status().toString();
      } else if (kernel) {
        ref = reference(c, job.dtype, n, *kernel, rng, error);
      }
      if (ref && !opt.writeGoldens.empty())
        if (Status s = writeReference(opt.writeGoldens + refPath, *ref); !s)
          error = s.toString(), ref.reset();
      if (!ref) {
        ir.verdict = Verdict::Fail;
        ir.detail = error;
        finish(ir, t0);
        for (const Target &t : targets) {
          conformance::Result r = result(t.label);
          r.verdict = Verdict::Fail;
          r.detail = "no reference: " + error;
          finish(r, t0);
        }
        continue;
      }
      // The interpreter itself against float64: the accuracy of the portable expansion.
      auto [irWorst, irOver] = measure(*ref, ref->golden, bound, job.mode == Numerics::Fast);
      ir.maxUlp = irWorst;
      ir.verdict = irOver ? Verdict::Fail : irWorst == 0 ? Verdict::Pass : Verdict::Budget;
      if (irOver)
        ir.detail = "over budget: " + describe(*ref, ref->golden, *irOver, false);
      finish(ir, t0);

      std::map<uint32_t, std::vector<std::pair<std::string, HostBuffer>>> portableOutputs; // device -> outputs
      for (const Target &t : targets) {
        if (t.softDenormals && job.mode != Numerics::Portable)
          continue;
        t0 = std::chrono::steady_clock::now();
        conformance::Result r = result(t.label);
        r.budgetUlp = bound.ulps;
        auto pkg = packages.find(t.label);
        if (pkg == packages.end()) {
          Result<Package> p = Status(StatusCode::Internal, "no package");
#ifdef TESSERA_SUITE_AOT
          p = *recorded;
#else
          TargetDesc target = t.device->target();
          if (t.softDenormals)
            target.chip += kSoftDenormalsSuffix;
          p = recorded ? *recorded : compile(*kernel, target);
#endif
          if (p && t.softDenormals)
            p = onlySoftDenormals(*p);
          pkg = packages.emplace(t.label, std::move(p)).first;
        }
        Result<HostBuffer> out = pkg->second ? runOnTarget(*t.device, *pkg->second, c.name, *ref)
                                             : Result<HostBuffer>(pkg->second.status());
        if (!out) {
          bool refused = out.status().code() == StatusCode::Unsupported;
          r.verdict = refused ? Verdict::Unsupported : Verdict::Fail;
          r.detail = out.status().toString();
          finish(r, t0);
          continue;
        }
        // Guard elements past n must keep their poison.
        for (size_t i = size_t(std::max(n, 0)); i < out->count(); ++i)
          if (!sameElement(*out, ref->problem.out, i)) {
            r.verdict = Verdict::Fail;
            r.detail = "element " + std::to_string(i) + " is past n = " + std::to_string(n) + " but was written";
            break;
          }
        if (r.verdict != Verdict::Fail) {
          auto [worst, over] = measure(*ref, *out, bound, job.mode == Numerics::Fast);
          r.maxUlp = worst;
          if (job.mode == Numerics::Portable) {
            for (int32_t i = 0; i < n; ++i)
              if (!sameElement(*out, ref->golden, i)) {
                r.verdict = Verdict::Fail;
                r.detail = "differs from the interpreter: " + describe(*ref, *out, i, true);
                break;
              }
            if (r.verdict != Verdict::Fail)
              portableOutputs[t.deviceIndex].push_back({t.backendLabel, *out});
          } else if (over) {
            r.verdict = Verdict::Fail;
            r.detail = "over budget: " + describe(*ref, *out, *over, false);
          } else {
            r.verdict = worst == 0 ? Verdict::Pass : Verdict::Budget;
          }
        }
        finish(r, t0);
      }
      // One GPU through two backends (or two denormal handlings): portable outputs identical.
      for (auto &[device, outs] : portableOutputs)
        for (size_t k = 1; k < outs.size(); ++k) {
          conformance::Result r =
              result(conformance::crossBackendTarget((*rt)->devices()[device].name, outs[0].first, outs[k].first));
          // The same bits, except that a NaN matches any NaN (payloads are the vendor's: the contract).
          r.verdict = Verdict::Pass;
          for (int32_t i = 0; i < n; ++i)
            if (!sameElement(outs[0].second, outs[k].second, i)) {
              r.verdict = Verdict::Fail;
              r.detail = "backends differ at " + describe(*ref, outs[k].second, i, true);
              break;
            }
          report.results.push_back(r);
        }
    }
  }
  progress.finish();
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::fputs(conformance::toTable(report, isatty(fileno(stdout))).c_str(), stdout);
  int rc = report.failures() ? 1 : 0;
  if (!opt.json.empty())
    if (std::string e = conformance::writeFile(opt.json, conformance::toJson(report)); !e.empty()) {
      std::fprintf(stderr, "tessera conformance: %s\n", e.c_str());
      rc = 2;
    }
  if (!opt.html.empty())
    if (std::string e = conformance::writeFile(opt.html, conformance::toHtml(report)); !e.empty()) {
      std::fprintf(stderr, "tessera conformance: %s\n", e.c_str());
      rc = 2;
    }
  std::printf("tessera conformance: %s (seed %u, %.1f s)\n", report.overallVerdict().c_str(), opt.seed, report.seconds);
  return rc;
}

int usage(const char *why) {
  std::fprintf(stderr,
               "tessera conformance: %s\n"
               "usage: tessera conformance [--seed=N] [--filter=NAME|FAMILY] [--mode=fast|portable] [--quick]\n"
               "                           [--json=FILE] [--html=FILE] [--write-goldens=DIR | --goldens=DIR]\n",
               why);
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *flag) -> std::optional<std::string> {
      size_t len = std::strlen(flag);
      if (a.compare(0, len, flag) == 0)
        return a.substr(len);
      return std::nullopt;
    };
    if (auto v = value("--seed=")) opt.seed = uint32_t(std::stoul(*v));
    else if (auto v = value("--json=")) opt.json = *v;
    else if (auto v = value("--html=")) opt.html = *v;
    else if (auto v = value("--filter=")) opt.filter = *v;
    else if (auto v = value("--write-goldens=")) opt.writeGoldens = *v;
    else if (auto v = value("--goldens=")) opt.goldens = *v;
    else if (auto v = value("--mode=")) {
      if (*v == "fast") opt.modes = {Numerics::Fast};
      else if (*v == "portable") opt.modes = {Numerics::Portable};
      else return usage(("unknown mode '" + *v + "'; use fast or portable").c_str());
    } else if (a == "--quick") opt.quick = true;
    else if (a == "--help" || a == "-h") return usage("every case x dtype x size x mode, on the interpreter and on every device and backend"), 0;
    else return usage(("unknown option '" + a + "'").c_str());
  }
#ifdef TESSERA_SUITE_AOT
  if (opt.goldens.empty())
    return usage("this build has no compiler: pass --goldens=DIR (written by tessera-conformance-suite --write-goldens=DIR)");
#endif
  if (!opt.goldens.empty() && !opt.writeGoldens.empty())
    return usage("--goldens and --write-goldens exclude each other");
  if (!opt.writeGoldens.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(opt.writeGoldens, ec);
    if (ec)
      return usage(("cannot create " + opt.writeGoldens + ": " + ec.message()).c_str());
  }
  return run(opt, argc, argv);
}
