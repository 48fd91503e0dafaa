// The edges app's kernel file: compiled ahead of time by tessera_add_kernels (CMakeLists.txt) into
// edges_kernels.hpp, whose Kernels::edges the app calls. Only the build runs this code.
//
// The kernel is plain integer arithmetic (luminance (77 R + 150 G + 29 B) >> 8, a 3 x 3 Sobel
// operator, |gx| + |gy| clamped to 255), so every device gives exactly the CPU's pixels.
#include "tessera/aot.hpp"

#include "edges_block.hpp"

namespace tl = tessera::tl;
using tessera::DType;

// One row of kEdgesBlock pixels per program: program_id(0) the block, program_id(1) the row.
void edges(tl::Ptr<uint8_t> rgba, tl::Ptr<uint8_t> out, tl::Scalar<int32_t> W, tl::Scalar<int32_t> H) {
  tl::Tile y = tl::program_id(1), x = tl::program_id(0) * kEdgesBlock + tl::arange(0, kEdgesBlock);
  tl::Tile inside = x < W;
  // The brightness of the neighbour (dy, dx), the image's border repeated outwards.
  auto lum = [&](int dy, int dx) {
    tl::Tile yy = tl::maximum(tl::minimum(y + dy, H - 1), 0), xx = tl::maximum(tl::minimum(x + dx, W - 1), 0);
    tl::Tile at = (yy * W + xx) * 4;
    tl::Tile r = tl::cast(tl::load(rgba + at, inside), DType::I32);
    tl::Tile g = tl::cast(tl::load(rgba + (at + 1), inside), DType::I32);
    tl::Tile b = tl::cast(tl::load(rgba + (at + 2), inside), DType::I32);
    return (r * 77 + g * 150 + b * 29) >> 8;
  };
  tl::Tile gx = lum(-1, 1) + 2 * lum(0, 1) + lum(1, 1) - (lum(-1, -1) + 2 * lum(0, -1) + lum(1, -1));
  tl::Tile gy = lum(1, -1) + 2 * lum(1, 0) + lum(1, 1) - (lum(-1, -1) + 2 * lum(-1, 0) + lum(-1, 1));
  tl::store(out + (y * W + x), tl::cast(tl::minimum(tl::abs(gx) + tl::abs(gy), 255), DType::U8), inside);
}
TESSERA_EXPORT_KERNEL(edges, {.argNames = {"rgba", "out", "W", "H"}});
