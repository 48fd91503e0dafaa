// Storing at a scalar offset (a tile of offsets is needed).
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(scalar_offset_store) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile pid = tl::program_id(0);
    tl::store(x + pid, tl::cast(pid, DType::F32)); // expect-error: store at a scalar offset: pointer offsets must be a tile; add tl::arange(0, N)
  }).status();
}
