// The CUDA driver's occupancy retry (drivers/cuda/Occupancy.hpp): which register cap lets one
// more program fit on a multiprocessor, and where none is tried. No GPU needed; the retry itself
// runs where a GPU is (docs/gpu-runs.md, run 54).
#include "TestSupport.hpp"

#include "cuda/Occupancy.hpp"

using namespace tessera::cuda;

TEST_CASE("occupancy.a_few_registers_past_a_step_get_the_step") {
  // Softmax 4096 x 16384 on 16 warps: 71 registers keep one program of 512 threads on a
  // multiprocessor; 64 fit two (the portable form's 66 likewise).
  CHECK(occupancyRegisterCap(71, 512, 1) == 64);
  CHECK(occupancyRegisterCap(66, 512, 1) == 64);
  // 72 on 8 warps: three programs; 64 fit four.
  CHECK(occupancyRegisterCap(72, 256, 3) == 64);
  // Registers are counted in units of 8 a thread: 65 is 72's step.
  CHECK(occupancyRegisterCap(65, 256, 3) == 64);
}

TEST_CASE("occupancy.no_cap_far_below_or_where_registers_do_not_limit") {
  // Layernorm 8192 on 16 warps, 40 registers, three programs: four need 32, a fifth fewer.
  CHECK(occupancyRegisterCap(40, 512, 3) == 0);
  // Layernorm 4096 on 8 warps, 40 registers, six programs: seven need 32.
  CHECK(occupancyRegisterCap(40, 256, 6) == 0);
  // 63 on 8 warps: four programs; five need 48.
  CHECK(occupancyRegisterCap(63, 256, 4) == 0);
  // 128 threads of 24 registers: a multiprocessor's 64 warps limit the programs (16), not the
  // registers (21 would fit).
  CHECK(occupancyRegisterCap(24, 128, 16) == 0);
  // Nothing known, or nothing fits.
  CHECK(occupancyRegisterCap(0, 256, 1) == 0);
  CHECK(occupancyRegisterCap(64, 256, 0) == 0);
}

TEST_CASE("occupancy.register_cap_goes_in_the_entry_directives") {
  const std::string ptx = ".version 8.0\n.target sm_90\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n"
                          ".maxntid 512, 1, 1\n{\n\tret;\n}\n";
  std::optional<std::string> bounded = withRegisterCap(ptx, 64);
  REQUIRE(bounded);
  // Among the directives, before the body; the rest of the text unchanged.
  CHECK(*bounded == ".version 8.0\n.target sm_90\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n"
                    ".maxntid 512, 1, 1\n.maxnreg 64\n{\n\tret;\n}\n");
  // Already bounded, no entry, two entries, or no cap: nothing.
  CHECK_FALSE(withRegisterCap(*bounded, 56));
  CHECK_FALSE(withRegisterCap(".version 8.0\n.func f()\n{\n}\n", 64));
  CHECK_FALSE(withRegisterCap(ptx + ".visible .entry j()\n{\n}\n", 64));
  CHECK_FALSE(withRegisterCap(ptx, 0));
}
