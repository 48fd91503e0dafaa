// The kernels a kernel file exports (tessera/aot.hpp): filled during static initialization of
// the tracer program that `tessera compile` builds from the file.
#include "tessera/aot.hpp"

namespace tessera::aot {

namespace {
// A function-local static: exporters in the user's file run before main, in any order
// relative to this library's own globals.
std::vector<ExportedKernel> &registry() {
  static std::vector<ExportedKernel> kernels;
  return kernels;
}
} // namespace

void exportKernel(ExportedKernel kernel) { registry().push_back(std::move(kernel)); }

const std::vector<ExportedKernel> &exportedKernels() { return registry(); }

} // namespace tessera::aot
