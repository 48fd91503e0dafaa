// program_id(3): the launch grid has three axes.
#include "ErrorCase.hpp"
TESSERA_ERROR_CASE(program_id_axis) {
  return tessera::trace("k", [](tl::Ptr<float> x) {
    // expect-error: program_id axis 3 is out of range; the grid has axes 0, 1 and 2: fold further dimensions
    //+ into one of them
    tl::Tile pid = tl::program_id(3);
    tl::store(x + pid * 64 + tl::arange(0, 64), tl::cast(pid, DType::F32));
  }).status();
}
