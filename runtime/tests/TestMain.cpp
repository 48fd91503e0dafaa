// doctest's main() for tessera-runtime-tests.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TESSERA_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TESSERA_TEST_ASAN 1
#endif

#ifdef TESSERA_TEST_ASAN
// Under AddressSanitizer (scripts/sanitize.sh address): the Vulkan loader unloads the drivers it
// probed (radeon, intel, lavapipe, ...) when an instance goes away, and what they still held is
// then referenced from nowhere LeakSanitizer can see, so it would be reported as leaked memory of
// an "<unknown module>". Libraries stay loaded in this process instead (this dlclose, found before
// libc's, does nothing): Tessera's own leaks are still reported, with their stacks.
extern "C" int dlclose(void *) { return 0; }
#endif
