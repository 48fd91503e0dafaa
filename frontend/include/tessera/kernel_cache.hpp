// The on-disk cache of compiled kernels: a JIT application compiles each kernel once per
// machine, not once per run.
//
//   tessera::KernelCache cache;                          // $TESSERA_CACHE_DIR/kernels, ...
//   auto pkg = cache.compile(*kernel, device->target()); // compiled on a miss, read on a hit
//   auto module = device->load(*pkg);
#pragma once

#include "tessera/compiler.hpp"

#include <atomic>
#include <cstdint>
#include <string>

namespace tessera {

/// What a KernelCache did so far.
struct KernelCacheStats {
  uint64_t hits = 0;      // read from disk, nothing compiled
  uint64_t misses = 0;    // compiled and stored (no entry, or one that was not whole: see `rebuilt`)
  uint64_t rebuilt = 0;   // of the misses: an entry was there but unreadable, corrupt or for another key
};

/// Compiled packages on disk, one file per (tile IR, kernel options, compiler build, target):
/// the tile IR carries the kernel's name, arguments, warps and numerics mode; the target its
/// backend, chip, PTX version and subgroup size; the compiler build is this library's version
/// and build time, so a rebuilt compiler never reads an older one's entries. An entry stores its
/// whole key and the package (whose checksum the reader verifies): an entry that is truncated,
/// corrupt or for another key is compiled again and replaced, never trusted. Entries are written
/// to a temporary file and renamed into place, so processes filling one directory at once never
/// read half an entry. Threads: use one KernelCache per thread for now (compiling is not yet
/// established to be safe from several threads at once; processes are, as above).
///
/// Not in the key: the driver. Packages hold PTX and SPIR-V, which every driver version takes;
/// the driver's own compilation of them (PTX JIT, Vulkan pipelines) happens at Device::load.
class KernelCache {
public:
  /// `directory` "" = $TESSERA_CACHE_DIR/kernels, else $XDG_CACHE_HOME/tessera/kernels, else
  /// ~/.cache/tessera/kernels (created when first written).
  explicit KernelCache(std::string directory = "");

  /// The package of `kernel` for `target`: read from the cache, or compiled and stored. A cache
  /// that cannot be written (read-only disk, ...) still compiles: the error is not the caller's.
  Result<Package> compile(const TracedKernel &kernel, const TargetDesc &target);

  /// The file that holds (or would hold) the entry of `kernel` for `target`.
  std::string entryPath(const TracedKernel &kernel, const TargetDesc &target) const;
  const std::string &directory() const { return dir_; }
  KernelCacheStats stats() const { return {hits_.load(), misses_.load(), rebuilt_.load()}; }

private:
  std::string dir_;
  std::atomic<uint64_t> hits_{0}, misses_{0}, rebuilt_{0};
  std::string keyOf(const TracedKernel &kernel, const TargetDesc &target) const;
};

} // namespace tessera
