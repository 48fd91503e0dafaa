// The conformance cases and where their kernels come from (traced and compiled here, or read
// from packages on a machine without the compiler).
#pragma once

#include "tessera/runtime/Runtime.hpp"

#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace tessera::conformance {

/// out = x + y over n elements, BLOCK elements per program.
struct VectorAddCase {
  long n;
  int block;
  std::string name() const { return "vector_add n=" + std::to_string(n) + " BLOCK=" + std::to_string(block); }
};

/// Sizes that hit every edge: empty, one element, one short of a block, exact blocks, one
/// past, and large with a ragged tail (2^24 + 3).
const std::vector<VectorAddCase> &vectorAddCases();

/// Packages of the conformance kernels, per BLOCK and target.
class KernelSource {
public:
  /// With a package folder the kernels are read from there; otherwise they are compiled
  /// (which needs a build with the compiler).
  explicit KernelSource(std::string packageDir) : packageDir_(std::move(packageDir)) {}
  Result<Package> vectorAdd(int block, const TargetDesc &target);
  /// Writes one package per kernel with every target the test machines need.
  Status writePackages(const std::string &dir);

private:
  std::string packageDir_;
  std::map<std::tuple<int, TargetKind, std::string, uint32_t>, Package> cache_;
};

} // namespace tessera::conformance
