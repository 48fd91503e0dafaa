// Kernel files for ahead-of-time compilation: a C++ file declares the kernels it exports, and
// `tessera compile KERNELS.cpp -o K.tspkg --header K.hpp` traces and compiles them into a
// package plus a header of typed launch functions (docs/aot.md). The app then needs only the
// runtime.
//
//   #include "tessera/aot.hpp"
//   namespace tl = tessera::tl;
//
//   void scale(tl::Ptr<float> x, tl::Ptr<float> out, tl::Scalar<float> a, tl::Scalar<int32_t> n) {
//     tl::Tile offs = tl::program_id(0) * 256 + tl::arange(0, 256);
//     tl::store(out + offs, tl::load(x + offs, offs < n) * a, offs < n);
//   }
//   TESSERA_EXPORT_KERNEL(scale, {.argNames = {"x", "out", "a", "n"}});
//
// The kernel's name is the C++ name (`scale`); the options are tessera::KernelOptions (argument
// names, numWarps, numerics) and may be left out. Name a template instance or a lambda first:
// `constexpr auto scale256 = &scaleBy<256>;` then TESSERA_EXPORT_KERNEL(scale256).
#pragma once

#include "tessera/tl.hpp"

#include <functional>
#include <source_location>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tessera::aot {

/// One kernel a kernel file exports: what TESSERA_EXPORT_KERNEL records before main runs.
struct ExportedKernel {
  std::string name;
  std::source_location where; // the TESSERA_EXPORT_KERNEL line
  std::function<Result<TracedKernel>()> trace;
};

/// Adds a kernel to this program's list (TESSERA_EXPORT_KERNEL calls it during static
/// initialization); `tessera compile` traces them in this order.
void exportKernel(ExportedKernel kernel);
/// Every kernel exported so far, in the order of export.
const std::vector<ExportedKernel> &exportedKernels();

namespace detail {
/// The object TESSERA_EXPORT_KERNEL defines: its constructor records the kernel.
struct KernelExporter {
  template <class F>
  KernelExporter(const char *name, F &&fn, KernelOptions options = {},
                 std::source_location where = std::source_location::current()) {
    exportKernel({name, where, [name = std::string(name), fn = std::decay_t<F>(std::forward<F>(fn)), options, where] {
                    return tessera::trace(name, fn, options, where);
                  }});
  }
};
} // namespace detail

} // namespace tessera::aot

#define TESSERA_AOT_CONCAT_(a, b) a##b
#define TESSERA_AOT_CONCAT(a, b) TESSERA_AOT_CONCAT_(a, b)

/// Exports the kernel function or lambda `fn` under its C++ name, optionally with
/// tessera::KernelOptions: TESSERA_EXPORT_KERNEL(edges, {.argNames = {"rgba", "out", "W", "H"}}).
#define TESSERA_EXPORT_KERNEL(fn, ...)                                                                           \
  static const ::tessera::aot::detail::KernelExporter TESSERA_AOT_CONCAT(tesseraExportedKernel_, __COUNTER__)( \
      #fn, fn __VA_OPT__(, ::tessera::KernelOptions __VA_ARGS__))
