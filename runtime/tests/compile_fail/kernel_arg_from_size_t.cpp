// Must not compile: a size_t passed as a launch argument would silently become some scalar type.
// runtime.kernel_arg.size_t_does_not_compile checks the compiler's message.
#include "tessera/runtime/Runtime.hpp"

void launchWithSizeT(const tessera::Kernel &k, const tessera::Buffer &b, size_t n) { (void)k.launch({1, 1, 1}, {b, n}); }
