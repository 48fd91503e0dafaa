// Parsing `tessera compile`'s command line into CompileOptions, with the defaults of each input kind.
#include "CompileOptions.h"

#include "KernelImpl.hpp"

#include <cstring>
#include <sstream>

namespace tessera::cli {

const char *const kCompileUsage = R"(usage: tessera compile INPUT.mlir [options]
       tessera compile KERNELS.cpp... -o OUT.tspkg --header OUT.hpp [options]

Compiles the tile-dialect kernels in INPUT.mlir ('-' reads standard input), or the kernels that
C++ kernel files export with TESSERA_EXPORT_KERNEL (tessera/aot.hpp; docs/aot.md): the files
are compiled with $CXX (else c++), linked with the compiler library and run, which traces
every exported kernel.

  --emit=STAGE        tile | tile-opt | gpu | nvvm | ptx | spirv-mlir | spirv | package
                      (default: package)
  --target=T          nvptx or spirv; repeat for several (default: both for a package,
                      spirv otherwise)
  --chip=sm_XY[,..]   NVPTX chips; a package gets one PTX artifact per chip (default sm_90;
                      sm_80 for C++ kernel files, which the CUDA driver JITs for newer GPUs)
  --ptx-version=N     PTX ISA version, 80 for 8.0 (default: the oldest the chip accepts)
  --subgroup-size=L   SPIR-V subgroup sizes, comma separated (default 32; 8,16,32,64 for a
                      package from C++ kernel files); a package gets one SPIR-V artifact per size
  --denormals=D       SPIR-V: native (default), software (portable kernels keep f32 denormals by
                      redoing in f64 what a driver that flushes them may get wrong), or both (a package gets
                      both artifacts; the runtime picks per device). A package from C++ kernel
                      files defaults to both for portable kernels and native for fast ones
  --coopmat=C         SPIR-V: no (default), yes, lanes, bf16, bf16-lanes, lanes-wg, bf16-lanes-wg,
                      both or all: code for
                      Vulkan cooperative matrices (chip vulkan1.3+coopmat, SPIR-V 1.6): fast-mode
                      dot on f16 runs on the device's matrix units; lanes (chip
                      vulkan1.3+coopmat+mma-lanes, subgroup 32) also keeps accumulators in
                      registers, for devices that place them as mma.sync does (NVIDIA); bf16 and
                      bf16-lanes (chips vulkan1.3+coopmat+bf16[+mma-lanes]) run dot on bf16 there
                      too (VK_KHR_shader_bfloat16); lanes-wg and bf16-lanes-wg (chips ending
                      +wgmat) run block matmuls on workgroup-scope matrices that the driver stages
                      (VK_NV_cooperative_matrix2), a variant for sizes that are multiples of the
                      blocks (a package gets it only where a loop takes that form; alone, as
                      --emit output, it is the whole kernel). both = no + yes; all = every one of them:
                      the runtime picks the best its self-test allows. Portable kernels never
                      use it (their dot sums in order)
  -o FILE             output file (default: standard output; required for a package from .mlir)

C++ kernel files only:
  --header FILE       also write a C++ header of typed launch functions with the package
                      embedded: the app then needs only the runtime (-o is then optional)
  --namespace NS      the header's namespace (default: the header's file name, e.g. k for k.hpp)
  --depfile FILE      write the files the kernel files include, for build systems (Make syntax)
  -IDIR, -DNAME[=V]   passed to the C++ compiler
)";

namespace {

Status usageError(const std::string &message) { return Status(StatusCode::InvalidArgument, message); }

bool startsWith(const std::string &s, const char *prefix, std::string &rest) {
  size_t n = std::strlen(prefix);
  if (s.compare(0, n, prefix) != 0)
    return false;
  rest = s.substr(n);
  return true;
}

bool isKernelFile(const std::string &path) {
  for (const char *ext : {".cpp", ".cc", ".cxx", ".c++", ".C"}) {
    size_t n = std::strlen(ext);
    if (path.size() > n && path.compare(path.size() - n, n, ext) == 0)
      return true;
  }
  return false;
}

std::vector<std::string> commaSeparated(const std::string &value) {
  std::vector<std::string> items;
  std::stringstream ss(value);
  for (std::string item; std::getline(ss, item, ',');)
    items.push_back(item);
  return items;
}

// "out/edges_kernels.hpp" -> "edges_kernels"; other characters become '_'.
std::string namespaceFromHeader(const std::string &header) {
  std::string stem = header.substr(header.rfind('/') + 1);
  stem = stem.substr(0, stem.find('.'));
  for (char &c : stem)
    if (!(std::isalnum((unsigned char)c) || c == '_'))
      c = '_';
  if (stem.empty() || std::isdigit((unsigned char)stem[0]))
    stem = "kernels_" + stem;
  return stem;
}

// The parts of the options that need the input kind: defaults and combinations.
Status resolveDefaults(CompileOptions &o) {
  if (o.inputs.empty())
    return usageError(std::string("no input file\n") + kCompileUsage);
  o.kernelFiles = isKernelFile(o.inputs[0]);
  for (const std::string &in : o.inputs)
    if (isKernelFile(in) != o.kernelFiles || (!o.kernelFiles && o.inputs.size() > 1))
      return usageError("more than one input file ('" + o.inputs[0] + "' and '" + in +
                        "'); several inputs must all be C++ kernel files");
  if (!o.kernelFiles) {
    if (!o.header.empty() || !o.nameSpace.empty() || !o.depfile.empty() || !o.cxxFlags.empty())
      return usageError("--header, --namespace, --depfile, -I and -D are for C++ kernel files (KERNELS.cpp), not '" +
                        o.inputs[0] + "'");
    if (o.package() && o.output.empty())
      return usageError("a package needs an output file: -o NAME.tspkg");
  } else {
    if (!o.header.empty() && !o.package())
      return usageError("--header goes with a package, not --emit=" + o.emitName);
    if (o.package() && o.output.empty() && o.header.empty())
      return usageError("a C++ kernel file needs an output: -o NAME.tspkg, --header NAME.hpp, or both");
    if (!o.header.empty() && o.nameSpace.empty())
      o.nameSpace = namespaceFromHeader(o.header);
    std::stringstream parts(o.nameSpace);
    for (std::string part; std::getline(parts, part, ':');)
      if (!part.empty() && !detail::isIdentifier(part))
        return usageError("--namespace wants a C++ namespace such as app::kernels, got '" + o.nameSpace + "'");
  }
  if (o.chips.empty())
    o.chips.push_back(o.kernelFiles ? "sm_80" : "sm_90");
  // A package from kernel files runs everywhere; one stage printed is one target.
  const bool everywhere = o.kernelFiles && o.package();
  if (o.subgroups.empty())
    o.subgroups = everywhere ? std::vector<uint32_t>{8, 16, 32, 64} : std::vector<uint32_t>{32};
  if (!everywhere && !o.softDenormals)
    o.softDenormals = std::vector<bool>{false};
  if (o.targetNames.empty()) {
    if (o.package())
      o.targetNames = {"nvptx", "spirv"};
    else
      o.targetNames = {(o.stage == Stage::NVVM || o.stage == Stage::PTX) ? "nvptx" : "spirv"};
  }
  // Every target checked before any input is read (LLVM would abort on a bad chip).
  for (const std::string &t : o.targetNames)
    if (t != "nvptx" && t != "spirv")
      return usageError("unknown --target '" + t + "'; use nvptx or spirv");
  TracedKernel none;
  for (const TargetDesc &t : targetsFor(o, none))
    if (Result<TargetDesc> v = validateTarget(t); !v)
      return v.status();
  return Status();
}

} // namespace

Result<CompileOptions> parseCompileOptions(int argc, char **argv, bool &help) {
  CompileOptions o;
  std::string value;
  help = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      help = true;
      return o;
    } else if (startsWith(a, "--emit=", value)) {
      o.emitName = value;
    } else if (startsWith(a, "--target=", value)) {
      o.targetNames.push_back(value);
    } else if (startsWith(a, "--chip=", value)) {
      for (const std::string &chip : commaSeparated(value))
        o.chips.push_back(chip);
    } else if (startsWith(a, "--ptx-version=", value)) {
      o.ptxVersion = uint32_t(std::strtoul(value.c_str(), nullptr, 10));
      if (o.ptxVersion == 0)
        return usageError("--ptx-version wants a number such as 80 for PTX ISA 8.0, got '" + value + "'");
    } else if (startsWith(a, "--subgroup-size=", value)) {
      for (const std::string &item : commaSeparated(value)) {
        uint32_t n = uint32_t(std::strtoul(item.c_str(), nullptr, 10));
        if (n == 0)
          return usageError("--subgroup-size wants numbers such as 8,32; got '" + value + "'");
        o.subgroups.push_back(n);
      }
    } else if (startsWith(a, "--denormals=", value)) {
      if (value == "native")
        o.softDenormals = std::vector<bool>{false};
      else if (value == "software")
        o.softDenormals = std::vector<bool>{true};
      else if (value == "both")
        o.softDenormals = std::vector<bool>{false, true};
      else
        return usageError("--denormals wants native, software or both; got '" + value + "'");
    } else if (startsWith(a, "--coopmat=", value)) {
      if (value == "no")
        o.coopMatrix = {CompileOptions::CoopMatrix::None};
      else if (value == "yes")
        o.coopMatrix = {CompileOptions::CoopMatrix::Staged};
      else if (value == "lanes")
        o.coopMatrix = {CompileOptions::CoopMatrix::Lanes};
      else if (value == "bf16")
        o.coopMatrix = {CompileOptions::CoopMatrix::BF16};
      else if (value == "bf16-lanes")
        o.coopMatrix = {CompileOptions::CoopMatrix::BF16Lanes};
      else if (value == "lanes-wg")
        o.coopMatrix = {CompileOptions::CoopMatrix::LanesWorkgroup};
      else if (value == "bf16-lanes-wg")
        o.coopMatrix = {CompileOptions::CoopMatrix::BF16LanesWorkgroup};
      else if (value == "both")
        o.coopMatrix = {CompileOptions::CoopMatrix::None, CompileOptions::CoopMatrix::Staged};
      else if (value == "all")
        o.coopMatrix = {CompileOptions::CoopMatrix::None,          CompileOptions::CoopMatrix::Staged,
                        CompileOptions::CoopMatrix::Lanes,         CompileOptions::CoopMatrix::BF16,
                        CompileOptions::CoopMatrix::BF16Lanes,     CompileOptions::CoopMatrix::LanesWorkgroup,
                        CompileOptions::CoopMatrix::BF16LanesWorkgroup};
      else
        return usageError("--coopmat wants no, yes, lanes, bf16, bf16-lanes, lanes-wg, bf16-lanes-wg, both or all; got '" +
                          value + "'");
    } else if (a == "-o" || a == "--header" || a == "--namespace" || a == "--depfile") {
      if (i + 1 >= argc)
        return usageError(a + " needs a value");
      value = argv[++i];
      (a == "-o" ? o.output : a == "--header" ? o.header : a == "--namespace" ? o.nameSpace : o.depfile) = value;
    } else if (startsWith(a, "--header=", value)) {
      o.header = value;
    } else if (startsWith(a, "--namespace=", value)) {
      o.nameSpace = value;
    } else if (startsWith(a, "--depfile=", value)) {
      o.depfile = value;
    } else if (a.size() > 2 && (a.compare(0, 2, "-I") == 0 || a.compare(0, 2, "-D") == 0)) {
      o.cxxFlags.push_back(a);
    } else if (!a.empty() && a[0] == '-' && a != "-") {
      return usageError("unknown option '" + a + "'\n" + kCompileUsage);
    } else {
      o.inputs.push_back(a);
    }
  }
  if (o.emitName != "package") {
    o.stage = parseStage(o.emitName);
    if (!o.stage)
      return usageError("unknown --emit stage '" + o.emitName +
                        "'; use tile, tile-opt, gpu, nvvm, ptx, spirv-mlir, spirv or package");
  }
  if (Status s = resolveDefaults(o); !s)
    return s;
  return o;
}

std::vector<TargetDesc> targetsFor(const CompileOptions &o, const TracedKernel &kernel) {
  std::vector<bool> softDenormals{false};
  if (o.softDenormals)
    softDenormals = *o.softDenormals;
  else if (kernel.impl_ && kernel.numerics() == Numerics::Portable)
    softDenormals = {false, true};
  std::vector<CompileOptions::CoopMatrix> coopMatrix = o.coopMatrix;
  if (kernel.impl_ && kernel.numerics() == Numerics::Portable)
    coopMatrix = {CompileOptions::CoopMatrix::None}; // portable dot sums in order on every target: the same code
  std::vector<TargetDesc> targets;
  for (const std::string &t : o.targetNames) {
    if (t == "nvptx") {
      for (const std::string &chip : o.chips)
        targets.push_back(nvptxTarget(chip, o.ptxVersion));
    } else {
      for (uint32_t s : o.subgroups)
        for (CompileOptions::CoopMatrix coop : coopMatrix)
          for (bool soft : softDenormals) {
            using C = CompileOptions::CoopMatrix;
            const bool workgroup = coop == C::LanesWorkgroup || coop == C::BF16LanesWorkgroup;
            targets.push_back(spirvTarget(s, soft, coop != C::None, coop == C::Lanes || coop == C::BF16Lanes || workgroup,
                                          coop == C::BF16 || coop == C::BF16Lanes || coop == C::BF16LanesWorkgroup,
                                          workgroup));
          }
    }
  }
  return targets;
}

} // namespace tessera::cli
