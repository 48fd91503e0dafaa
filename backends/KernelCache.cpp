// KernelCache: compiled packages on disk, keyed by everything that decides their bytes.
#include "tessera/kernel_cache.hpp"
#include "CompileVariables.h"
#include "tessera/runtime/Runtime.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>

namespace tessera {
namespace {

constexpr char kMagic[] = "tessera kernel cache v1\n";

/// This compiler build: its version and when this file was compiled (any rebuild of the
/// library changes it, so an entry never outlives the compiler that wrote it).
const char *compilerBuild() { return "tessera 0.1.0 built " __DATE__ " " __TIME__; }

std::string defaultDirectory() {
  std::string base = cacheDirectory();
  return base.empty() ? base : base + "/kernels";
}

void appendU64(std::string &out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(char((v >> (8 * i)) & 0xff));
}
uint64_t readU64(const std::string &in, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(uint8_t(in[at + i])) << (8 * i);
  return v;
}

} // namespace

KernelCache::KernelCache(std::string directory) : dir_(directory.empty() ? defaultDirectory() : std::move(directory)) {}

std::string KernelCache::keyOf(const TracedKernel &kernel, const TargetDesc &target) const {
  std::ostringstream key;
  key << compilerBuild() << "\ntarget " << toString(target.kind) << " chip=" << target.chip << " ptx=" << target.ptxVersion
      << " subgroup=" << target.subgroupSize;
  // The variables compile() reads (backends/CompileVariables.h), each as it appears in the key.
  for (const backend::CompileVariable &v : backend::kCompileVariables)
    if (const char *value = std::getenv(v.variable.data()); value && *value) key << " " << v.key << "=" << value;
  key << "\n" << kernel.tileIR();
  return key.str();
}

/// The file of the entry with key `key`: named by the key's 64-bit FNV-1a. The entry holds the
/// whole key, so a collision is a miss, never a wrong kernel.
static std::string pathOfKey(const std::string &dir, const std::string &key) {
  char name[32];
  uint64_t h = fnv1a64(std::span<const uint8_t>(reinterpret_cast<const uint8_t *>(key.data()), key.size()));
  std::snprintf(name, sizeof name, "%016llx.tsk", static_cast<unsigned long long>(h));
  return dir + "/" + name;
}

std::string KernelCache::entryPath(const TracedKernel &kernel, const TargetDesc &target) const {
  return pathOfKey(dir_, keyOf(kernel, target));
}

Result<Package> KernelCache::compile(const TracedKernel &kernel, const TargetDesc &target) {
  if (!kernel.impl_)
    return Status(StatusCode::InvalidArgument, "compile of an empty TracedKernel (trace failed?)");
  if (dir_.empty()) { // no home, no cache: compile every time
    misses_++;
    return tessera::compile(kernel, target);
  }
  const std::string key = keyOf(kernel, target), path = pathOfKey(dir_, key); // the tile IR is printed once
  // An entry: the magic line, the key's length and bytes, then the package (checksummed).
  std::ifstream in(path, std::ios::binary);
  if (in) {
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t head = sizeof kMagic - 1;
    if (bytes.size() > head + 8 && bytes.compare(0, head, kMagic) == 0) {
      uint64_t keyLength = readU64(bytes, head);
      if (keyLength <= bytes.size() - head - 8 && bytes.compare(head + 8, keyLength, key) == 0) {
        const auto *pkg = reinterpret_cast<const uint8_t *>(bytes.data()) + head + 8 + keyLength;
        Result<Package> cached = parsePackage(std::span<const uint8_t>(pkg, bytes.size() - head - 8 - keyLength));
        if (cached) {
          hits_++;
          return cached;
        }
      }
    }
    rebuilt_++;
  }
  misses_++;
  Result<Package> pkg = tessera::compile(kernel, target);
  if (!pkg)
    return pkg;
  // Store it (through a temporary file and a rename). A cache that cannot be written only costs
  // the next run a compile.
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  std::string entry(kMagic);
  appendU64(entry, key.size());
  entry += key;
  std::vector<uint8_t> packed = serializePackage(*pkg);
  entry.append(reinterpret_cast<const char *>(packed.data()), packed.size());
  (void)writeFileAtomically(path, std::span<const uint8_t>(reinterpret_cast<const uint8_t *>(entry.data()), entry.size()));
  return pkg;
}

} // namespace tessera
