// The `tessera` command line: `devices` (what the runtime sees), `kernels` (a package's kernels as
// loaded on a device), `compile` (forwarded to the compiler library), `conformance` (the numerics
// suite), `bench`, `help`.
#include "tessera/runtime/Runtime.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace {

constexpr int kExitUsage = 2;

void printHelp(FILE *out) {
  std::fputs("usage: tessera <command> [options]\n"
             "\n"
             "commands:\n"
             "  devices [--json] [--probe]\n"
             "                     list the devices and backends this machine offers, and why a backend is absent;\n"
             "                     --probe opens each one: matrix units for fast dot, denormal support\n"
             "  kernels PKG...     load packages on the default device; per kernel: the code chosen, its threads and\n"
             "                     shared memory, and what the driver reports about the machine code (registers, spills)\n"
             "  compile ...        compile tile IR or C++ kernel files into a package (and a header of typed launch\n"
             "                     functions); needs libtessera_compiler.so; see 'tessera compile --help'\n"
             "  conformance ...    the numerics suite on the interpreter and every device (docs/numerics.md; --help)\n"
             "  bench ...          check and time the benchmark kernels on the default device (docs/bench.md; --help)\n"
             "  help               show this text\n"
             "\n"
             "environment:\n"
             "  TESSERA_DEVICE     device index or case-insensitive part of its name (for programs using openDefault)\n"
             "  TESSERA_BACKEND    cuda | vulkan\n"
             "  TESSERA_COOPMAT    0 turns Vulkan cooperative matrices off (code without them runs instead)\n"
             "  TESSERA_VULKAN_PUSH_DESCRIPTORS  1: Vulkan launches push their buffers' descriptors into the\n"
             "                     command buffer (VK_KHR_push_descriptor) instead of writing a set each (off\n"
             "                     by default: slower through NVIDIA's driver, docs/bench.md)\n"
             "  TESSERA_VULKAN_ALLOCATION  plain | stagger: other placements of Vulkan buffers' memory, to\n"
             "                     measure (default: dedicated from 64 MiB; docs/runtime.md)\n"
             "  TESSERA_TENSOR_COPIES  0 keeps CUDA launches off a kernel's bulk-tensor-copy (TMA) form\n"
             "  TESSERA_SPECIALIZE 0 keeps launches off a kernel's variant for integer arguments that are\n"
             "                     multiples of 16 (docs/compiler.md, \"Argument specialization\")\n"
             "  TESSERA_WORKGROUP_MATRICES  1 runs a kernel's Vulkan variant on workgroup-scope matrices\n"
             "                     (+wgmat) wherever its sizes allow, not only where its other code cannot\n"
             "                     load (docs/runtime.md)\n"
             "  TESSERA_OCCUPANCY_RETRY  0 keeps CUDA code a few registers past an occupancy step as the\n"
             "                     JIT made it (by default it is compiled again under the step where that\n"
             "                     spills nothing: docs/runtime.md)\n"
             "  TESSERA_TENSOR_COPIES_A  1 (compiling) also makes that form for dots whose A is copied from its\n"
             "                     buffer (the matmul; off by default: measured no faster, docs/compiler.md)\n"
             "  TESSERA_TENSOR_COPY_ISSUE  one | lanes (compiling): a tensor-copy loop's boxes leave from one\n"
             "                     thread (default) or from the first subgroup's lanes\n"
             "  TESSERA_TENSOR_COPY_RELEASE  barrier | mbarrier (compiling): where every operand of a loop comes\n"
             "                     by tensor copy, the program waits at a barrier each iteration (default) or\n"
             "                     the readers release each stage through a second mbarrier\n"
             "  TESSERA_PINGPONG   1 (compiling; TESSERA_TENSOR_COPY_RELEASE then defaults to mbarrier): a\n"
             "                     program's two warpgroups take turns at the matrix units in loops with\n"
             "                     several dots\n"
             "  TESSERA_PRODUCER_WARP  1 | 0 | auto (compiling): the tensor-copy form gets a warpgroup more that\n"
             "                     issues a loop's copies ahead of the others; auto (unset): programs of two\n"
             "                     warpgroups or more whose loop copies no dot's A (attention's) and whose\n"
             "                     accumulators take 96 values a thread or more\n"
             "  TESSERA_COPIES_AFTER_MMA  0 (compiling): a pipelined warpgroup dot issues its cp.async copies for\n"
             "                     the iteration ahead before its matrix instructions, not after (to measure)\n"
             "  TESSERA_WAIT_BEFORE_COPIES  1 (compiling): a pipelined warpgroup dot whose batch stays in flight\n"
             "                     waits for the batch before it ahead of its copies, not after (to measure)\n"
             "  TESSERA_STORE_STAGING  0 (compiling): a matrix-unit accumulator's tile is stored as it lies\n"
             "                     in registers (4-byte runs for f16), not through shared memory as\n"
             "                     16-byte runs (to measure)\n"
             "  TESSERA_FMA_LAYOUT  0 (compiling): a dot's accumulator on the FMA path keeps the plain split of\n"
             "                     the threads, not the one that loads the fewest values a k step (to measure)\n"
             "  TESSERA_FMA_VECTOR_A  0 (compiling): SPIR-V stages a dot's transposed A on the FMA path value\n"
             "                     by value, read a value at a time, not in vectors of 4 (to measure)\n"
             "  TESSERA_COOP_HOIST_A  0 (compiling): a Vulkan cooperative-matrix dot whose A does not change in\n"
             "                     its loop (attention's queries) reads A's matrices from shared memory each\n"
             "                     iteration, not once before the loop into registers (to measure)\n"
             "  TESSERA_COOP_A_LANES  1 (compiling): a Vulkan cooperative-matrix dot whose A is in registers in\n"
             "                     the accumulator layout (attention's probabilities) builds A's matrices\n"
             "                     from the lanes' values instead of staging A (off until measured)\n"
             "  TESSERA_FMA_HALVES  1 | 0 (compiling): a dot on the FMA path in a loop stages what changes in it\n"
             "                     in two halves, one barrier an iteration instead of two, on every target\n"
             "                     where they fit | on none (unset: through CUDA only, where it measured faster)\n"
             "  TESSERA_FMA_ASYNC_COPIES  1 | 0 (compiling): an f32 dot on the FMA path in a loop takes the\n"
             "                     operands it loads by cp.async copies in stages through CUDA, always | never\n"
             "                     (unset: where a thread holds 128 accumulators or more, or a program 4 warps or fewer)\n"
             "  TESSERA_FMA_UNROLL  N (compiling): the k values, a power of two up to 64, that a dot on the FMA\n"
             "                     path takes a step, in one block of multiply-adds (unset: the target's, 32 on\n"
             "                     PTX, 16 on SPIR-V for subgroups of 32 or more, 8 for narrower; to measure)\n"
             "  TESSERA_ASYNC_COPY_FENCE  0 (compiling): no async-proxy fence after the cp.async copies a\n"
             "                     warpgroup dot reads (to measure; the memory model asks for the fence)\n",
             out);
}

std::string uuidText(const std::array<uint8_t, 16> &u) {
  std::string s;
  char buf[4];
  for (size_t i = 0; i < u.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    std::snprintf(buf, sizeof buf, "%02x", u[i]);
    s += buf;
  }
  return s;
}

std::string bytesText(uint64_t b) {
  char buf[64];
  if (b >= (1ull << 30)) std::snprintf(buf, sizeof buf, "%.1f GiB", double(b) / double(1ull << 30));
  else if (b >= (1ull << 20)) std::snprintf(buf, sizeof buf, "%.1f MiB", double(b) / double(1ull << 20));
  else if (b >= (1ull << 10)) std::snprintf(buf, sizeof buf, "%.1f KiB", double(b) / double(1ull << 10));
  else std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(b));
  return buf;
}

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// "    shader features      float16 float64 int8 ..." wrapped under the label.
void printFeatures(const std::vector<std::string> &features) {
  const std::string indent(25, ' ');
  std::string line = "    shader features      ";
  if (features.empty()) line += "(none)";
  size_t width = line.size();
  for (size_t i = 0; i < features.size(); ++i) {
    if (i > 0 && width + 1 + features[i].size() > 110) {
      std::printf("%s\n", line.c_str());
      line = indent;
      width = indent.size();
    } else if (i > 0) {
      line += ' ';
      ++width;
    }
    line += features[i];
    width += features[i].size();
  }
  std::printf("%s\n", line.c_str());
}

/// What opening the device through the backend tells (--probe): the matrix units fast-mode dot
/// uses (after the cooperative-matrix self-test) and how denormals are kept.
struct Probe {
  std::string matrixUnits, denormals, error;
};

Probe probe(tessera::Runtime &rt, uint32_t device, tessera::Backend backend) {
  auto dev = rt.open(device, backend);
  if (!dev) return {"", "", dev.status().toString()};
  return {(*dev)->matrixUnits(), (*dev)->denormalSupport(), ""};
}

void printText(tessera::Runtime &rt, bool probing) {
  using tessera::Backend;
  if (rt.devices().empty()) std::printf("no devices\n");
  for (const tessera::DeviceInfo &d : rt.devices()) {
    std::printf("device %u: %s%s\n", d.index, d.name.c_str(), d.isCpu ? "  [CPU implementation]" : "");
    std::printf("  vendor  %s\n", d.vendor.c_str());
    std::printf("  uuid    %s\n", uuidText(d.uuid).c_str());
    for (const tessera::BackendInfo &b : d.backends) {
      bool isDefault = b.backend == d.defaultBackend;
      std::printf("  backend %s%s: driver %s, API %s\n", tessera::toString(b.backend), isDefault ? " (default)" : "",
                  b.driverVersion.c_str(), b.apiVersion.c_str());
      if (b.backend == Backend::CUDA)
        std::printf("    compute capability   %u.%u (sm_%u)\n", b.computeCapability / 10, b.computeCapability % 10,
                    b.computeCapability);
      std::printf("    subgroup size        %u\n", b.subgroupSize);
      std::printf("    memory               %s\n", bytesText(b.memoryBytes).c_str());
      std::printf("    max threads/group    %u\n", b.maxThreadsPerGroup);
      std::printf("    max grid             %u x %u x %u\n", b.maxGroupCount[0], b.maxGroupCount[1], b.maxGroupCount[2]);
      std::printf("    shared memory/group  %s\n", bytesText(b.maxSharedMemBytes).c_str());
      std::printf("    max buffer           %s (%llu bytes)\n", bytesText(b.maxBufferBytes).c_str(),
                  static_cast<unsigned long long>(b.maxBufferBytes));
      if (b.backend == Backend::Vulkan) printFeatures(b.features);
      for (size_t i = 0; i < b.matrixShapes.size(); ++i) // one shape a line
        std::printf("    %-21s%s\n", i ? "" : "cooperative matrices", b.matrixShapes[i].c_str());
      if (probing) {
        Probe p = probe(rt, d.index, b.backend);
        if (!p.error.empty()) std::printf("    cannot open          %s\n", p.error.c_str());
        else {
          std::printf("    matrix units         %s\n", p.matrixUnits.c_str());
          std::printf("    denormals            %s\n", p.denormals.c_str());
        }
      }
    }
  }
  for (const tessera::BackendAbsence &a : rt.absentBackends())
    std::printf("absent: %s: %s\n", tessera::toString(a.backend), a.reason.c_str());
}

std::string jsonStringArray(const std::vector<std::string> &items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + jsonString(items[i]);
  return out + "]";
}

void printJson(tessera::Runtime &rt, bool probing) {
  std::printf("{\n  \"devices\": [");
  bool firstDevice = true;
  for (const tessera::DeviceInfo &d : rt.devices()) {
    std::printf("%s\n    {\"index\": %u, \"name\": %s, \"vendor\": %s, \"uuid\": \"%s\", \"isCpu\": %s, "
                "\"defaultBackend\": \"%s\",\n     \"backends\": [",
                firstDevice ? "" : ",", d.index, jsonString(d.name).c_str(), jsonString(d.vendor).c_str(),
                uuidText(d.uuid).c_str(), d.isCpu ? "true" : "false", tessera::toString(d.defaultBackend));
    firstDevice = false;
    bool firstBackend = true;
    for (const tessera::BackendInfo &b : d.backends) {
      std::printf("%s\n       {\"backend\": \"%s\", \"default\": %s, \"driverVersion\": %s, \"apiVersion\": %s, "
                  "\"subgroupSize\": %u, \"memoryBytes\": %llu, \"maxThreadsPerGroup\": %u, "
                  "\"maxGroupCount\": [%u, %u, %u], \"maxSharedMemBytes\": %u, \"maxBufferBytes\": %llu, "
                  "\"computeCapability\": %u, \"features\": %s, \"matrixShapes\": %s",
                  firstBackend ? "" : ",", tessera::toString(b.backend), b.backend == d.defaultBackend ? "true" : "false",
                  jsonString(b.driverVersion).c_str(), jsonString(b.apiVersion).c_str(), b.subgroupSize,
                  static_cast<unsigned long long>(b.memoryBytes), b.maxThreadsPerGroup, b.maxGroupCount[0],
                  b.maxGroupCount[1], b.maxGroupCount[2], b.maxSharedMemBytes,
                  static_cast<unsigned long long>(b.maxBufferBytes), b.computeCapability,
                  jsonStringArray(b.features).c_str(), jsonStringArray(b.matrixShapes).c_str());
      if (probing) {
        std::printf(",\n\"probe\": ");
        Probe p = probe(rt, d.index, b.backend);
        if (!p.error.empty()) std::printf("{\"error\": %s}", jsonString(p.error).c_str());
        else
          std::printf("{\"matrixUnits\": %s, \"denormals\": %s}", jsonString(p.matrixUnits).c_str(),
                      jsonString(p.denormals).c_str());
      }
      std::printf("}");
      firstBackend = false;
    }
    std::printf("]}");
  }
  std::printf("%s],\n  \"absentBackends\": [", rt.devices().empty() ? "" : "\n  ");
  bool firstAbsent = true;
  for (const tessera::BackendAbsence &a : rt.absentBackends()) {
    std::printf("%s\n    {\"backend\": \"%s\", \"reason\": %s}", firstAbsent ? "" : ",", tessera::toString(a.backend),
                jsonString(a.reason).c_str());
    firstAbsent = false;
  }
  std::printf("%s]\n}\n", rt.absentBackends().empty() ? "" : "\n  ");
}

int runDevices(int argc, char **argv) {
  bool json = false, probing = false;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0) json = true;
    else if (std::strcmp(argv[i], "--probe") == 0) probing = true;
    else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::printf("usage: tessera devices [--json] [--probe]\n"
                  "Lists every device, each backend that reaches it (the default one marked), and why any\n"
                  "backend is absent. --probe also opens each device through each backend and reports the\n"
                  "matrix units fast-mode dot uses there (Vulkan: after the cooperative-matrix self-test) and\n"
                  "how float denormals are kept. Exit code 0 when at least one device is present, 1 when none.\n");
      return 0;
    } else {
      std::fprintf(stderr, "tessera devices: unknown option '%s' (expected --json or --probe)\n", argv[i]);
      return kExitUsage;
    }
  }
  auto rt = tessera::Runtime::create();
  if (!rt) {
    std::fprintf(stderr, "tessera devices: %s\n", rt.status().toString().c_str());
    return 1;
  }
  if (json) printJson(**rt, probing);
  else printText(**rt, probing);
  return (*rt)->devices().empty() ? 1 : 0;
}

int runKernels(int argc, char **argv) {
  std::vector<std::string> packages;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::printf("usage: tessera kernels PACKAGE.tspkg...\n"
                  "Loads each package on the default device (TESSERA_DEVICE and TESSERA_BACKEND pick another) and\n"
                  "prints, per kernel, the code the device chose (its target), threads per program, shared memory,\n"
                  "and the figures the driver reports about the machine code: through CUDA registers and local\n"
                  "memory (spills) per thread; through Vulkan the driver's pipeline statistics, where offered.\n"
                  "Exit code 0 when every package loaded, 1 otherwise.\n");
      return 0;
    }
    if (argv[i][0] == '-') {
      std::fprintf(stderr, "tessera kernels: unknown option '%s'\n", argv[i]);
      return kExitUsage;
    }
    packages.push_back(argv[i]);
  }
  if (packages.empty()) {
    std::fprintf(stderr, "tessera kernels: name one or more package files (.tspkg)\n");
    return kExitUsage;
  }
  auto rt = tessera::Runtime::create();
  if (!rt) return std::fprintf(stderr, "tessera kernels: %s\n", rt.status().toString().c_str()), 1;
  auto dev = (*rt)->openDefault();
  if (!dev) return std::fprintf(stderr, "tessera kernels: %s\n", dev.status().toString().c_str()), 1;
  std::printf("device: %s\n", (*dev)->describe().c_str());
  int status = 0;
  for (const std::string &path : packages) {
    auto pkg = tessera::readPackageFile(path);
    auto module = pkg ? (*dev)->load(*pkg) : tessera::Result<tessera::Module>(pkg.status());
    if (!module) {
      std::fprintf(stderr, "tessera kernels: %s: %s\n", path.c_str(), module.status().toString().c_str());
      status = 1;
      continue;
    }
    std::printf("%s\n", path.c_str());
    for (const tessera::KernelEntry &entry : pkg->kernels) {
      auto kernel = module->kernel(entry.name);
      if (!kernel) {
        std::fprintf(stderr, "tessera kernels: %s: %s\n", path.c_str(), kernel.status().toString().c_str());
        status = 1;
        continue;
      }
      const tessera::Artifact &a = kernel->artifact();
      std::printf("  %s: %s, %u x %u x %u threads, %s of shared memory\n", entry.name.c_str(),
                  a.target.chip.c_str(), a.blockSize[0], a.blockSize[1], a.blockSize[2],
                  bytesText(a.sharedMemBytes).c_str());
      std::vector<tessera::KernelStatistic> stats = kernel->statistics();
      if (stats.empty()) std::printf("    (the driver reports no statistics about the machine code)\n");
      for (const tessera::KernelStatistic &st : stats)
        std::printf("    %-28s %.15g\n", st.name.c_str(), st.value); // integers of up to 15 digits exactly
    }
  }
  return status;
}

// The folder this executable lies in (what it installs beside it), or nullopt after saying why.
std::optional<std::string> executableDir(const char *command) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) {
    std::fprintf(stderr, "%s: cannot locate this executable (/proc/self/exe): %s\n", command, std::strerror(errno));
    return std::nullopt;
  }
  std::string dir(exe, size_t(n));
  dir.resize(dir.rfind('/'));
  return dir;
}

// The compiler lives in its own library so a runtime-only install stays free of LLVM and MLIR.
int runCompile(int argc, char **argv) {
  std::optional<std::string> found = executableDir("tessera compile");
  if (!found) return kExitUsage;
  const std::string &dir = *found;
  std::string library = dir + "/../lib/libtessera_compiler.so";
  dlerror();
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *err = dlerror();
    std::fprintf(stderr,
                 "tessera compile needs the compiler library libtessera_compiler.so, which this installation lacks "
                 "(runtime-only install): %s\n",
                 err ? err : library.c_str());
    return kExitUsage;
  }
  using CompilerMain = int (*)(int, char **);
  auto entry = reinterpret_cast<CompilerMain>(dlsym(handle, "tessera_compiler_main"));
  if (!entry) {
    std::fprintf(stderr, "tessera compile: %s does not export tessera_compiler_main (a mismatched build?)\n",
                 library.c_str());
    return kExitUsage;
  }
  std::vector<char *> args;
  static char programName[] = "tessera compile";
  args.push_back(programName);
  for (int i = 0; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  // The library stays loaded until exit: compiler statics may be registered with atexit.
  return entry(static_cast<int>(args.size() - 1), args.data());
}

// The suite and the benchmark harness are programs of their own (they link the compiler, or read
// packages in their -aot form): run the one beside this executable, preferring the full build.
int runBeside(const char *command, const char *program, int argc, char **argv) {
  const std::string what = std::string("tessera ") + command;
  std::optional<std::string> found = executableDir(what.c_str());
  if (!found) return kExitUsage;
  const std::string &dir = *found;
  const std::string full = program, aot = full + "-aot";
  for (const std::string &name : {full, aot}) {
    std::string path = dir + "/" + name;
    if (access(path.c_str(), X_OK) != 0) continue;
    std::vector<char *> args{path.data()};
    for (int i = 0; i < argc; ++i) args.push_back(argv[i]);
    args.push_back(nullptr);
    execv(path.c_str(), args.data());
    std::fprintf(stderr, "%s: cannot run %s: %s\n", what.c_str(), path.c_str(), std::strerror(errno));
    return kExitUsage;
  }
  std::fprintf(stderr, "%s: neither %s nor %s is installed in %s\n", what.c_str(), full.c_str(), aot.c_str(), dir.c_str());
  return kExitUsage;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    printHelp(stderr);
    return kExitUsage;
  }
  std::string command = argv[1];
  if (command == "help" || command == "--help" || command == "-h") {
    printHelp(stdout);
    return 0;
  }
  if (command == "devices") return runDevices(argc - 2, argv + 2);
  if (command == "kernels") return runKernels(argc - 2, argv + 2);
  if (command == "compile") return runCompile(argc - 2, argv + 2);
  if (command == "conformance") return runBeside("conformance", "tessera-conformance-suite", argc - 2, argv + 2);
  if (command == "bench") return runBeside("bench", "tessera-bench", argc - 2, argv + 2);
  std::fprintf(stderr, "tessera: unknown command '%s'\n\n", command.c_str());
  printHelp(stderr);
  return kExitUsage;
}
