// Tracing the benchmark kernels (compiler builds only).
#pragma once

#include "BenchKernels.hpp"

#include "tessera/tessera.hpp"

namespace tessera::bench {

/// The kernel of `p`, traced for its BLOCK, warps and numerics mode.
Result<TracedKernel> traceProblem(const Problem &p);

} // namespace tessera::bench
