// A grid axis that does not exist.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(program_id_axis) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    tl::Tile pid = tl::program_id(3); // expect-error: program_id axis 3 is out of range; the grid has axes 0, 1 and 2
    tl::store(x + pid * 64 + tl::arange(0, 64), 0.0f * tl::cast(pid, DType::F32));
  }).status();
}
