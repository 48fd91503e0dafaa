// `tessera compile`: tile IR or C++ kernel files in, any pipeline stage or a kernel package (and a
// header of typed launch functions) out. The CLI (which links only the runtime) loads this
// library and calls tessera_compiler_main.
#include "CompilerMain.h"

#include "GeneratedHeader.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

namespace tessera::cli {

namespace {

bool readInput(const std::string &path, std::string &text) {
  std::stringstream ss;
  if (path == "-") {
    ss << std::cin.rdbuf();
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in)
      return false;
    ss << in.rdbuf();
  }
  text = ss.str();
  return true;
}

// One package with every kernel compiled for its targets (targetsFor).
Result<Package> compilePackage(const CompileOptions &o, std::span<const TracedKernel> kernels,
                               const std::vector<std::string> &exportedAt) {
  Package all;
  for (size_t i = 0; i < kernels.size(); ++i) {
    std::vector<TargetDesc> targets = targetsFor(o, kernels[i]);
    Result<Package> pkg = compile(kernels.subspan(i, 1), targets);
    if (!pkg)
      return exportedAt.empty() ? pkg.status()
                                : Status(pkg.status().code(), "kernel '" + kernels[i].name() + "' (exported at " +
                                                                  exportedAt[i] + "): " + pkg.status().message());
    all.kernels.push_back(std::move(pkg->kernels[0]));
  }
  return all;
}

Status writeHeader(const CompileOptions &o, std::span<const TracedKernel> kernels,
                   const std::vector<std::string> &exportedAt, const Package &pkg) {
  HeaderSpec spec;
  spec.fileName = o.header.substr(o.header.rfind('/') + 1);
  spec.nameSpace = o.nameSpace;
  spec.sources = o.inputs;
  spec.targets = describeTargets(pkg);
  for (size_t i = 0; i < kernels.size(); ++i)
    spec.kernels.push_back({kernels[i].name(), kernels[i].signature(), exportedAt[i]});
  if (Status s = checkHeaderNames(spec.kernels); !s)
    return s;
  spec.package = serializePackage(pkg);
  std::string text = generateHeader(spec);
  return writeFileAtomically(o.header,
                             std::span<const uint8_t>(reinterpret_cast<const uint8_t *>(text.data()), text.size()));
}

} // namespace

int fail(const std::string &message) {
  std::fprintf(stderr, "tessera compile: error: %s\n", message.c_str());
  return 1;
}

int emitKernels(const CompileOptions &o, std::span<const TracedKernel> kernels,
                const std::vector<std::string> &exportedAt) {
  if (o.package()) {
    Result<Package> pkg = compilePackage(o, kernels, exportedAt);
    if (!pkg)
      return fail(pkg.status().message());
    if (!o.output.empty())
      if (Status s = writePackageFile(o.output, *pkg); !s)
        return fail(s.toString());
    if (!o.header.empty())
      if (Status s = writeHeader(o, kernels, exportedAt, *pkg); !s)
        return fail(s.code() == StatusCode::CompileError ? s.message() : s.toString());
    return 0;
  }
  std::string out;
  for (const TracedKernel &k : kernels) {
    std::vector<TargetDesc> targets = targetsFor(o, k);
    if (targets.size() != 1)
      return fail("--emit=" + o.emitName + " prints one target; give one --target (and one --chip or --subgroup-size)");
    Result<std::string> s = emit(k, targets[0], *o.stage);
    if (!s)
      return fail(s.status().message());
    out += *s;
  }
  if (o.output.empty()) {
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
  }
  std::ofstream file(o.output, std::ios::binary);
  file << out;
  return file ? 0 : fail("cannot write '" + o.output + "'");
}

} // namespace tessera::cli

namespace {

int compileMain(int argc, char **argv, bool inTracer) {
  using namespace tessera;
  using namespace tessera::cli;
  bool help = false;
  Result<CompileOptions> options = parseCompileOptions(argc, argv, help);
  if (help) {
    std::fputs(kCompileUsage, stdout);
    return 0;
  }
  if (!options)
    return fail(options.status().message());
  if (options->kernelFiles)
    return inTracer ? traceKernelFiles(*options) : compileKernelFiles(*options, argc, argv);
  std::string text;
  const std::string &input = options->inputs[0];
  if (!readInput(input, text))
    return fail("cannot read '" + input + "'");
  Result<std::vector<TracedKernel>> kernels = parseTileIR(text, input);
  if (!kernels)
    return fail(kernels.status().message());
  return emitKernels(*options, *kernels, {});
}

} // namespace

extern "C" int tessera_compiler_main(int argc, char **argv) { return compileMain(argc, argv, false); }

extern "C" int tessera_aot_main(int argc, char **argv) { return compileMain(argc, argv, true); }
