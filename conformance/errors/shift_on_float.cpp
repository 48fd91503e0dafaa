// A left shift of an f32 tile.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(shift_on_float) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile offs = tl::arange(0, 64);
    tl::Tile v = tl::load(x + offs);
    // expect-error: '<<' needs integers, got f32; shift an integer tile (tl::cast to tessera::DType::I32
    //+ first), or multiply a float by a power of two
    tl::store(x + offs, v << v);
  }).status();
}
