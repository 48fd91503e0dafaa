// A store at a scalar offset: loads and stores address a tile of elements.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(scalar_offset_store) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile pid = tl::program_id(0);
    // expect-error: store at a scalar offset: pointer offsets must be a tile; add tl::arange(0, N) to address N
    //+ elements
    tl::store(x + pid, tl::cast(pid, DType::F32));
  }).status();
}
