// `tessera compile KERNELS.cpp`: the C++ kernel files are compiled with the host C++ compiler and
// linked with this library into a tracer program, which `tessera compile` runs with its own
// arguments. The tracer's main (tessera_aot_main, below) traces every exported kernel and
// writes the package and the header, exactly as `tessera compile` does for tile IR.
#include "CompileOptions.h"
#include "CompilerMain.h"
#include "GeneratedHeader.h"

#include "tessera/aot.hpp"

#include <dlfcn.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <sstream>

extern char **environ;

namespace tessera::cli {

namespace {

bool exists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// The folder of libtessera_compiler.so: the tracer links the libraries found there.
std::string libraryDir() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void *>(&tessera_compiler_main), &info) || !info.dli_fname)
    return "";
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// The installed headers beside the library (PREFIX/lib -> PREFIX/include), else the build tree's.
std::vector<std::string> includeDirs(const std::string &libDir) {
  for (const char *up : {"/../include", "/../../include"})
    if (exists(libDir + up + "/tessera/aot.hpp"))
      return {libDir + up};
  return {TESSERA_SOURCE_FRONTEND_INCLUDE, TESSERA_SOURCE_RUNTIME_INCLUDE}; // set by backends/CMakeLists.txt
}

// $CXX split at spaces ("ccache clang++" works), else c++.
std::vector<std::string> cxxCommand() {
  const char *cxx = std::getenv("CXX");
  std::vector<std::string> words;
  std::stringstream ss(cxx && *cxx ? cxx : "c++");
  for (std::string w; ss >> w;)
    words.push_back(w);
  return words;
}

std::string commandText(const std::vector<std::string> &argv) {
  std::string text;
  for (const std::string &a : argv)
    text += (text.empty() ? "" : " ") + a;
  return text;
}

// Runs argv and waits. Its output goes straight to ours, so the user sees the C++ compiler's
// own diagnostics (their file and line) unchanged. An error Status says why it did not succeed.
Status run(const std::vector<std::string> &argv, const std::string &what) {
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  if (int err = posix_spawnp(&pid, args[0], nullptr, nullptr, args.data(), environ); err != 0)
    return Status(StatusCode::Unavailable, "cannot run " + what + " '" + argv[0] + "': " + std::strerror(err) +
                                               (what == "the C++ compiler" ? " (set CXX to a C++20 compiler)" : ""));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return Status(StatusCode::Internal, "waiting for " + what + ": " + std::strerror(errno));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return Status();
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE) // its reader went away: nothing to say
    return Status(StatusCode::CompileError, what + " stopped: its output was closed");
  if (WIFSIGNALED(status))
    return Status(StatusCode::Internal, what + " was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
                                            strsignal(WTERMSIG(status)) + ")");
  return Status(StatusCode::CompileError, what + " failed (exit code " + std::to_string(WEXITSTATUS(status)) + ")");
}

// A temporary folder for the tracer's objects and program, removed with everything in it.
class TempDir {
public:
  TempDir() {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/tessera-compile-XXXXXX";
    if (mkdtemp(pattern.data()))
      path_ = pattern;
  }
  ~TempDir() {
    for (const std::string &f : files_)
      unlink(f.c_str());
    if (!path_.empty())
      rmdir(path_.c_str());
  }
  const std::string &path() const { return path_; }
  std::string file(const std::string &name) { return files_.emplace_back(path_ + "/" + name); }

private:
  std::string path_;
  std::vector<std::string> files_;
};

const char *kTracerMain = "// The tracer program's main: everything else is in libtessera_compiler.so.\n"
                          "extern \"C\" int tessera_aot_main(int argc, char **argv);\n"
                          "int main(int argc, char **argv) { return tessera_aot_main(argc, argv); }\n";

Status writeText(const std::string &path, const std::string &text) {
  return writeFileAtomically(path,
                             std::span<const uint8_t>(reinterpret_cast<const uint8_t *>(text.data()), text.size()));
}

// One rule "target: deps of every file" from the compiler's rule per kernel file (each one
// "target: \\\n deps..."), for build tools that expect a single rule.
std::string mergedDepfile(const std::vector<std::string> &depfiles, const std::string &target) {
  std::string merged = target + ":";
  for (const std::string &d : depfiles) {
    std::ifstream in(d);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string rule = ss.str();
    if (rule.compare(0, target.size() + 1, target + ":") == 0)
      rule.erase(0, target.size() + 1);
    size_t first = rule.find_first_not_of(" \\\n"), last = rule.find_last_not_of(" \\\n");
    rule = first == std::string::npos ? "" : rule.substr(first, last - first + 1);
    merged += " \\\n" + rule;
  }
  return merged + "\n";
}

// Compiles one kernel file to `object`; with a depfile, the compiler also lists what it includes.
Status compileObject(std::vector<std::string> command, const std::string &input, const std::string &object,
                     const std::string &depfile, const std::string &depTarget) {
  if (!exists(input))
    return Status(StatusCode::NotFound, "cannot read '" + input + "'");
  command.insert(command.end(), {"-c", input, "-o", object});
  if (!depfile.empty())
    command.insert(command.end(), {"-MD", "-MF", depfile, "-MT", depTarget});
  Status s = run(command, "the C++ compiler");
  if (s.code() == StatusCode::CompileError)
    return Status(StatusCode::CompileError,
                  "the C++ compiler failed on " + input + " (its messages are above; " + commandText(command) + ")");
  return s;
}

// Compiles each kernel file to an object and links them with the library into `tracer`.
Status buildTracer(const CompileOptions &o, TempDir &tmp, const std::string &tracer) {
  std::string libDir = libraryDir();
  if (libDir.empty())
    return Status(StatusCode::Internal, "cannot locate libtessera_compiler.so (dladdr)");
  std::vector<std::string> cxx = cxxCommand(), objects, depfiles;
  std::vector<std::string> compile = cxx;
  compile.insert(compile.end(), {"-std=c++20", "-O0"});
  for (const std::string &dir : includeDirs(libDir))
    compile.push_back("-I" + dir);
  compile.insert(compile.end(), o.cxxFlags.begin(), o.cxxFlags.end());
  const std::string depTarget = o.header.empty() ? o.output : o.header;
  for (size_t i = 0; i < o.inputs.size(); ++i) {
    objects.push_back(tmp.file("kernels" + std::to_string(i) + ".o"));
    if (!o.depfile.empty())
      depfiles.push_back(tmp.file("kernels" + std::to_string(i) + ".d"));
    if (Status s = compileObject(compile, o.inputs[i], objects.back(), o.depfile.empty() ? "" : depfiles.back(),
                                 depTarget);
        !s)
      return s;
  }
  std::string mainFile = tmp.file("tracer_main.cpp");
  if (Status s = writeText(mainFile, kTracerMain); !s)
    return s;
  std::vector<std::string> link = cxx;
  link.insert(link.end(), {"-std=c++20", mainFile});
  link.insert(link.end(), objects.begin(), objects.end());
  link.insert(link.end(),
              {"-o", tracer, "-L" + libDir, "-Wl,-rpath," + libDir, "-ltessera_compiler", "-ltessera_runtime"});
  if (Status s = run(link, "the C++ compiler"); !s)
    return Status(s.code(), "linking the kernel files' tracer failed (" + commandText(link) + "): " + s.message());
  return o.depfile.empty() ? Status() : writeText(o.depfile, mergedDepfile(depfiles, depTarget));
}

std::string sourceLine(const std::source_location &where) {
  return std::string(where.file_name()) + ":" + std::to_string(where.line());
}

} // namespace

int compileKernelFiles(const CompileOptions &o, int argc, char **argv) {
  TempDir tmp;
  if (tmp.path().empty())
    return fail(std::string("cannot create a temporary folder (set TMPDIR to a writable one): ") +
                std::strerror(errno));
  std::string tracer = tmp.file("tracer");
  if (Status s = buildTracer(o, tmp, tracer); !s)
    return fail(s.message());
  std::vector<std::string> args{tracer};
  for (int i = 1; i < argc; ++i)
    args.push_back(argv[i]);
  if (Status s = run(args, "the kernel files' tracer"); !s)
    return s.code() == StatusCode::CompileError ? 1 : fail(s.message());
  return 0;
}

int traceKernelFiles(const CompileOptions &o) {
  const std::vector<aot::ExportedKernel> &exported = aot::exportedKernels();
  std::string files;
  for (const std::string &in : o.inputs)
    files += (files.empty() ? "" : ", ") + in;
  if (exported.empty())
    return fail(files + " export no kernels; mark each kernel with TESSERA_EXPORT_KERNEL(name, {options}) "
                        "after its definition (#include \"tessera/aot.hpp\"; docs/aot.md)");
  std::vector<TracedKernel> kernels;
  std::vector<std::string> exportedAt;
  for (const aot::ExportedKernel &e : exported) {
    std::string at = sourceLine(e.where);
    Result<TracedKernel> k = Status(StatusCode::Internal, "");
    try {
      k = e.trace();
    } catch (const std::exception &ex) {
      k = Status(StatusCode::CompileError,
                 at + ": error: the kernel threw a C++ exception while being traced: " + ex.what());
    } catch (...) {
      k = Status(StatusCode::CompileError,
                 at + ": error: the kernel threw a C++ exception (not a std::exception) while being traced");
    }
    if (!k)
      return fail("kernel '" + e.name + "' (exported at " + at + ") does not trace:\n" + k.status().message());
    kernels.push_back(std::move(*k));
    exportedAt.push_back(at);
  }
  return emitKernels(o, kernels, exportedAt);
}

} // namespace tessera::cli
