// `tessera compile`: tile IR file in, any pipeline stage or a kernel package out. The CLI
// (which links only the runtime) loads this library and calls tessera_compiler_main.
#include "tessera/compiler.hpp"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

const char *kUsage = R"(usage: tessera compile INPUT.mlir [options]

Compiles the tile-dialect kernels in INPUT.mlir ('-' reads standard input).

  --emit=STAGE        tile | tile-opt | gpu | nvvm | ptx | spirv-mlir | spirv | package
                      (default: package)
  --target=T          nvptx or spirv; repeat for several (default: both for a package,
                      spirv otherwise)
  --chip=sm_XY        NVPTX chip (default sm_90)
  --ptx-version=N     PTX ISA version, 80 for 8.0 (default: the oldest the chip accepts)
  --subgroup-size=L   SPIR-V subgroup sizes, comma separated (default 32); a package gets one
                      SPIR-V artifact per size
  --denormals=D       SPIR-V: native (default), software (portable kernels keep f32 denormals in
                      integer and f64 code, for drivers that flush them), or both (a package gets
                      both artifacts; the runtime picks per device)
  -o FILE             output file (default: standard output; required for a package)
)";

int fail(const std::string &message) {
  std::fprintf(stderr, "tessera compile: error: %s\n", message.c_str());
  return 1;
}

bool readInput(const std::string &path, std::string &text) {
  if (path == "-") {
    std::stringstream ss;
    ss << std::cin.rdbuf();
    text = ss.str();
    return true;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::stringstream ss;
  ss << in.rdbuf();
  text = ss.str();
  return true;
}

bool startsWith(const std::string &s, const char *prefix, std::string &rest) {
  size_t n = std::strlen(prefix);
  if (s.compare(0, n, prefix) != 0)
    return false;
  rest = s.substr(n);
  return true;
}

} // namespace

extern "C" int tessera_compiler_main(int argc, char **argv) {
  using namespace tessera;
  std::string input, output, emitName = "package", chip = "sm_90", value;
  std::vector<std::string> targetNames;
  std::vector<uint32_t> subgroups;
  uint32_t ptxVersion = 0;
  std::vector<bool> softDenormals{false};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (startsWith(a, "--emit=", value)) {
      emitName = value;
    } else if (startsWith(a, "--target=", value)) {
      targetNames.push_back(value);
    } else if (startsWith(a, "--chip=", value)) {
      chip = value;
    } else if (startsWith(a, "--ptx-version=", value)) {
      ptxVersion = uint32_t(std::strtoul(value.c_str(), nullptr, 10));
      if (ptxVersion == 0)
        return fail("--ptx-version wants a number such as 80 for PTX ISA 8.0, got '" + value + "'");
    } else if (startsWith(a, "--subgroup-size=", value)) {
      std::stringstream ss(value);
      for (std::string item; std::getline(ss, item, ',');) {
        uint32_t n = uint32_t(std::strtoul(item.c_str(), nullptr, 10));
        if (n == 0)
          return fail("--subgroup-size wants numbers such as 8,32; got '" + value + "'");
        subgroups.push_back(n);
      }
    } else if (startsWith(a, "--denormals=", value)) {
      if (value == "native" || value == "software" || value == "both")
        softDenormals = value == "native" ? std::vector<bool>{false} : value == "software" ? std::vector<bool>{true}
                                                                                             : std::vector<bool>{false, true};
      else
        return fail("--denormals wants native, software or both; got '" + value + "'");
    } else if (a == "-o" && i + 1 < argc) {
      output = argv[++i];
    } else if (!a.empty() && a[0] == '-' && a != "-") {
      return fail("unknown option '" + a + "'\n" + kUsage);
    } else if (input.empty()) {
      input = a;
    } else {
      return fail("more than one input file ('" + input + "' and '" + a + "')");
    }
  }
  if (input.empty())
    return fail(std::string("no input file\n") + kUsage);
  bool package = emitName == "package";
  std::optional<Stage> stage = parseStage(emitName);
  if (!package && !stage)
    return fail("unknown --emit stage '" + emitName + "'; use tile, tile-opt, gpu, nvvm, ptx, spirv-mlir, spirv or package");
  if (subgroups.empty())
    subgroups.push_back(32);
  if (targetNames.empty()) {
    if (package)
      targetNames = {"nvptx", "spirv"};
    else
      targetNames = {(stage == Stage::NVVM || stage == Stage::PTX) ? "nvptx" : "spirv"};
  }
  std::vector<TargetDesc> targets;
  for (const std::string &t : targetNames) {
    if (t == "nvptx") {
      targets.push_back(nvptxTarget(chip, ptxVersion));
    } else if (t == "spirv") {
      for (uint32_t s : subgroups)
        for (bool soft : softDenormals)
          targets.push_back(spirvTarget(s, soft));
    } else {
      return fail("unknown --target '" + t + "'; use nvptx or spirv");
    }
  }
  for (const TargetDesc &t : targets)
    if (Result<TargetDesc> v = validateTarget(t); !v)
      return fail(v.status().message());

  std::string text;
  if (!readInput(input, text))
    return fail("cannot read '" + input + "'");
  Result<std::vector<TracedKernel>> kernels = parseTileIR(text, input);
  if (!kernels)
    return fail(kernels.status().message());

  if (package) {
    if (output.empty())
      return fail("a package needs an output file: -o NAME.tspkg");
    Result<Package> pkg = compile(*kernels, targets);
    if (!pkg)
      return fail(pkg.status().message());
    if (Status s = writePackageFile(output, *pkg); !s)
      return fail(s.toString());
    return 0;
  }
  if (targets.size() != 1)
    return fail("--emit=" + emitName + " prints one target; give one --target (and one --subgroup-size)");
  std::string out;
  for (const TracedKernel &k : *kernels) {
    Result<std::string> s = emit(k, targets[0], *stage);
    if (!s)
      return fail(s.status().message());
    out += *s;
  }
  if (output.empty()) {
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
  }
  std::ofstream o(output, std::ios::binary);
  o << out;
  return o ? 0 : fail("cannot write '" + output + "'");
}
