// Writes the header of typed launch functions for C++ kernel files (docs/aot.md shows its API).
// Everything the header names is fully qualified (::tessera::, ::std::), so an argument called
// `tessera` or `std` cannot hide what the generated code means.
#include "GeneratedHeader.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace tessera::cli {

namespace {

// C++20's keywords and alternative tokens: names an argument or a kernel cannot have in the header.
const std::set<std::string> kKeywords = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
    "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr",
    "constinit", "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete",
    "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
    "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
    "requires", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
    "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename",
    "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq"};

// Names the generated class declares itself.
const std::set<std::string> kClassMembers = {"Kernels", "load", "find", "bind", "Arg", "kernels_"};

// The exact C++ type a scalar argument of `dtype` takes.
const char *scalarType(DType dtype) {
  switch (dtype) {
  case DType::F32: return "float";
  case DType::I32: return "::std::int32_t";
  case DType::F16: return "::tessera::f16";
  case DType::BF16: return "::tessera::bf16";
  case DType::I8: return "::std::int8_t";
  case DType::I16: return "::std::int16_t";
  case DType::I64: return "::std::int64_t";
  case DType::U8: return "::std::uint8_t";
  case DType::U32: return "::std::uint32_t";
  case DType::Bool: break;
  }
  return "bool";
}

std::string dtypeEnum(DType dtype) {
  std::string name(toString(dtype));
  std::string out;
  for (char c : name)
    out += char(std::toupper((unsigned char)c));
  return out;
}

// A parameter name that no kernel argument has: `name`, else `name_`, `name__`, ...
std::string freeName(const HeaderKernel &k, std::string name) {
  while (std::any_of(k.args.begin(), k.args.end(), [&](const ArgSpec &a) { return a.name == name; }))
    name += '_';
  return name;
}

std::string describeArg(const ArgSpec &a) {
  if (a.kind == ArgKind::Buffer)
    return "buffer of " + std::string(toString(a.dtype));
  std::string type = scalarType(a.dtype);
  if (type.rfind("::std::", 0) == 0)
    type = type.substr(7);
  else if (type.rfind("::", 0) == 0)
    type = type.substr(2);
  return std::string(toString(a.dtype)) + " scalar (exactly " + type + ")";
}

// "/src/app/k.cpp:12" -> "k.cpp:12": the header reads the same wherever it was built.
std::string baseName(const std::string &path) { return path.substr(path.rfind('/') + 1); }

// The launch function of one kernel; `onStream`: the overload with a trailing Stream.
void appendLaunchFunction(std::string &out, const HeaderKernel &k, size_t index, bool onStream) {
  std::string grid = freeName(k, "grid"), stream = freeName(k, "stream");
  if (!onStream) {
    out += "  /// " + k.name + ", exported at " + baseName(k.exportedAt) + ":\n";
    size_t width = 0;
    for (const ArgSpec &a : k.args)
      width = std::max(width, a.name.size());
    for (const ArgSpec &a : k.args)
      out += "  ///   " + a.name + std::string(width - a.name.size() + 2, ' ') + describeArg(a) + "\n";
  } else {
    out += "  /// " + k.name + " on `" + stream + "` (a stream of the device the kernels were loaded on).\n";
  }
  std::string head = "  ::tessera::Status " + k.name + "(";
  out += head + "::tessera::Grid " + grid;
  for (const ArgSpec &a : k.args) {
    out += ",\n" + std::string(head.size(), ' ');
    if (a.kind == ArgKind::Buffer)
      out += "const ::tessera::Buffer &" + a.name;
    else
      out += "::std::same_as<" + std::string(scalarType(a.dtype)) + "> auto " + a.name;
  }
  if (onStream)
    out += ",\n" + std::string(head.size(), ' ') + "const ::tessera::Stream &" + stream;
  out += ") const {\n    return this->kernels_[" + std::to_string(index) + "].launch(" + grid + ", {";
  for (size_t i = 0; i < k.args.size(); ++i) {
    const ArgSpec &a = k.args[i];
    out += i ? ", " : "";
    // KernelArg converts from buffers and the 32/64-bit and 16-bit float scalars; other types
    // need KernelArg::scalar.
    bool direct = a.kind == ArgKind::Buffer || (a.dtype != DType::I8 && a.dtype != DType::I16 && a.dtype != DType::U8);
    out += (direct ? "::tessera::KernelArg(" : "::tessera::KernelArg::scalar(") + a.name + ")";
  }
  out += onStream ? "}, " + stream + ");\n  }\n\n" : "});\n  }\n\n";
}

void appendBytes(std::string &out, const std::vector<uint8_t> &bytes) {
  char buf[8];
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i % 20 == 0)
      out += i ? "\n    " : "    ";
    std::snprintf(buf, sizeof buf, "%u,", unsigned(bytes[i]));
    out += buf;
  }
  out += "\n";
}

// The fixed parts of the class; @HEADER@ is the header's file name, @COUNT@ the number of kernels.
const char *kLoadHead = //
    R"(  /// Loads the kernels onto `device` from the embedded package (each kernel's artifact for it).
  static ::tessera::Result<Kernels> load(::tessera::Device &device) {
    ::tessera::Result<::tessera::Package> package = ::tessera::parsePackage(kPackage);
    if (!package) return package.status();
    return load(device, *package);
  }
  /// Loads them from another build of the same kernel files (e.g. a package read with
  /// ::tessera::readPackageFile); each kernel's arguments must match this header's.
  static ::tessera::Result<Kernels> load(::tessera::Device &device, const ::tessera::Package &package) {
    ::tessera::Result<::tessera::Module> module = device.load(package);
    if (!module) return module.status();
    constexpr ::tessera::ArgKind B = ::tessera::ArgKind::Buffer, S = ::tessera::ArgKind::Scalar;
    using D = ::tessera::DType;
    Kernels k;
)";

const char *kClassTail = //
    R"(  /// The loaded kernel called `name` (its signature, its artifact for this device), or null.
  const ::tessera::Kernel *find(::std::string_view name) const {
    for (const ::tessera::Kernel &k : this->kernels_)
      if (k.entry().name == name) return &k;
    return nullptr;
  }

private:
  Kernels() = default; // only load() makes one: every kernel is then loaded
  struct Arg {
    ::tessera::ArgKind kind;
    ::tessera::DType dtype;
  };
  static ::tessera::Status bind(const ::tessera::Module &module, const char *name,
                                ::std::initializer_list<Arg> args, ::tessera::Kernel &out) {
    ::tessera::Result<::tessera::Kernel> kernel = module.kernel(name);
    if (!kernel) return kernel.status();
    const ::std::vector<::tessera::ArgSpec> &has = kernel->entry().args;
    bool same = has.size() == args.size();
    for (::std::size_t i = 0; same && i < has.size(); ++i)
      same = has[i].kind == args.begin()[i].kind && has[i].dtype == args.begin()[i].dtype;
    if (!same)
      return ::tessera::Status(::tessera::StatusCode::InvalidArgument,
                               "kernel '" + ::std::string(name) + "' of this package takes other arguments "
                               "than @HEADER@ was generated for; regenerate the header with tessera compile");
    out = *kernel;
    return ::tessera::Status();
  }

  ::tessera::Kernel kernels_[@COUNT@];
};
)";

std::string replaced(std::string text, const std::string &key, const std::string &value) {
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
    text.replace(at, key.size(), value);
  return text;
}

void appendLoad(std::string &out, const HeaderSpec &spec) {
  out += kLoadHead;
  for (size_t i = 0; i < spec.kernels.size(); ++i) {
    const HeaderKernel &kernel = spec.kernels[i];
    out += "    if (::tessera::Status s = bind(*module, \"" + kernel.name + "\", {";
    for (size_t j = 0; j < kernel.args.size(); ++j) {
      const ArgSpec &a = kernel.args[j];
      out += j ? ", " : "";
      out += std::string("{") + (a.kind == ArgKind::Buffer ? "B" : "S") + ", D::" + dtypeEnum(a.dtype) + "}";
    }
    out += "}, k.kernels_[" + std::to_string(i) + "]); !s) return s;\n";
  }
  out += "    return k;\n  }\n\n";
}

void appendClassTail(std::string &out, const HeaderSpec &spec) {
  out += replaced(replaced(kClassTail, "@HEADER@", spec.fileName), "@COUNT@", std::to_string(spec.kernels.size()));
}

} // namespace

Status checkHeaderNames(const std::vector<HeaderKernel> &kernels) {
  std::set<std::string> seen;
  for (const HeaderKernel &k : kernels) {
    auto error = [&](const std::string &what) {
      return Status(StatusCode::CompileError, k.exportedAt + ": error: " + what);
    };
    if (!seen.insert(k.name).second)
      return error("kernel '" + k.name + "' is exported twice; each kernel needs its own name");
    if (kKeywords.count(k.name) || kClassMembers.count(k.name))
      return error("kernel '" + k.name + "' cannot be a launch function of the generated header: '" + k.name +
                   "' is taken (a C++ keyword or a member of the generated class); rename the kernel");
    for (const ArgSpec &a : k.args)
      if (kKeywords.count(a.name))
        return error("argument '" + a.name + "' of kernel '" + k.name +
                     "' is a C++ keyword, so the generated header cannot use it; rename it in argNames");
  }
  return Status();
}

std::string describeTargets(const Package &package) {
  std::set<std::string> chips;
  std::set<uint32_t> subgroups;
  std::set<bool> soft;
  for (const KernelEntry &k : package.kernels)
    for (const Artifact &a : k.artifacts) {
      if (a.target.kind == TargetKind::PTX) {
        chips.insert(a.target.chip);
      } else {
        subgroups.insert(a.target.subgroupSize);
        soft.insert(hasSoftDenormals(a.target.chip));
      }
    }
  std::string out;
  if (!chips.empty()) {
    out += "PTX";
    for (const std::string &c : chips)
      out += " " + c;
  }
  if (!subgroups.empty()) {
    out += std::string(out.empty() ? "" : "; ") + "SPIR-V for subgroup size";
    const char *sep = " ";
    for (uint32_t s : subgroups)
      out += sep + std::to_string(s), sep = ", ";
    if (soft.count(true))
      out += soft.count(false) ? " (portable kernels also with software denormals)" : " (software denormals)";
  }
  return out;
}

std::string generateHeader(const HeaderSpec &spec) {
  std::string sources, names;
  for (const std::string &s : spec.sources)
    sources += (sources.empty() ? "" : ", ") + baseName(s);
  for (const HeaderKernel &k : spec.kernels)
    names += (names.empty() ? "" : ", ") + k.name;
  std::string out;
  out += "// " + spec.fileName + ": typed launch functions for the kernels of " + sources +
         ", with their package\n"
         "// embedded. Generated by `tessera compile`: do not edit, regenerate (docs/aot.md).\n"
         "#pragma once\n\n"
         "#include \"tessera/runtime/Package.hpp\"\n"
         "#include \"tessera/runtime/Runtime.hpp\"\n\n"
         "#include <concepts>\n#include <cstddef>\n#include <cstdint>\n#include <initializer_list>\n"
         "#include <string>\n#include <string_view>\n#include <vector>\n\n"
         "namespace " +
         spec.nameSpace +
         " {\n\n"
         "/// The compiled package of " +
         names + ": " + spec.targets +
         ".\n"
         "inline constexpr unsigned char kPackage[" +
         std::to_string(spec.package.size()) + "] = {\n";
  appendBytes(out, spec.package);
  out += "};\n\n"
         "/// The kernels, loaded onto one device. Each launch function takes the grid (programs per axis)\n"
         "/// and the kernel's arguments: buffers as ::tessera::Buffer (the runtime checks their element\n"
         "/// type and device), scalars as exactly the C++ type of their dtype (anything else does not\n"
         "/// compile), then optionally a ::tessera::Stream (else the device's default stream). A launch\n"
         "/// returns the runtime's Status; it completes at a Stream/Device synchronize, an Event or a\n"
         "/// synchronous download.\n"
         "///\n"
         "///   auto kernels = " +
         spec.nameSpace + "::Kernels::load(*device);\n"
         "class Kernels {\npublic:\n";
  appendLoad(out, spec);
  for (size_t i = 0; i < spec.kernels.size(); ++i) {
    appendLaunchFunction(out, spec.kernels[i], i, false);
    appendLaunchFunction(out, spec.kernels[i], i, true);
  }
  appendClassTail(out, spec);
  out += "\n} // namespace " + spec.nameSpace + "\n";
  return out;
}

} // namespace tessera::cli
