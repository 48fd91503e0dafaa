#!/usr/bin/env bash
# Installs a built Tessera into a temporary prefix and uses it the way an application would:
#   install-test.sh BUILD_DIR WORK_DIR [CXX [CC]]
# 1. `cmake --install BUILD_DIR --prefix WORK_DIR/prefix`;
# 2. the installed runtime links neither LLVM nor MLIR (ldd);
# 3. examples/embed configured out of tree with find_package(Tessera) and built: the installed
#    `tessera compile` turns its kernel file into a header through tessera_add_kernels; the app
#    links neither the compiler nor LLVM/MLIR (ldd) and runs on a test image with --check (every
#    pixel equal to the CPU's) while the compiler library is moved out of the installation;
# 4. a program compiled with `pkg-config --cflags --libs tessera` lists the devices;
# 5. the C API test compiled as C against the installed tessera.h runs a package from the build.
set -euo pipefail
build=$1 work=$2 cxx=${3:-c++} cc=${4:-cc}
src=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work/install.log"
lib=$(dirname "$(find "$prefix" -name libtessera_runtime.so | head -1)")
echo "installed into $prefix: $(find "$prefix" -type f | wc -l) files; libraries in $lib"
test -f "$prefix/include/tessera/tessera.hpp" -a -f "$prefix/include/tessera/runtime/Runtime.hpp"
test -f "$lib/libtessera_compiler.so" -a -x "$prefix/bin/tessera"
test -f "$lib/cmake/Tessera/TesseraConfig.cmake" -a -f "$lib/pkgconfig/tessera.pc"
if ldd "$lib/libtessera_runtime.so" | grep -Ei 'llvm|mlir'; then
  echo "the installed runtime links LLVM or MLIR"; exit 1
fi
echo "ldd libtessera_runtime.so: $(ldd "$lib/libtessera_runtime.so" | awk '{print $1}' | tr '\n' ' ')"

cmake -S "$src/examples/embed" -B "$work/embed" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_PREFIX_PATH="$prefix" > "$work/embed-configure.log"
cmake --build "$work/embed" > "$work/embed-build.log"
grep -q "Compiling the Tessera kernels of edges" "$work/embed-build.log"
test -f "$work/embed/tessera_kernels/edges/edges_kernels.hpp"
if ldd "$work/embed/edges" | grep -Ei 'tessera_compiler|llvm|mlir'; then
  echo "the edges app links the compiler, LLVM or MLIR"; exit 1
fi
echo "ldd edges: $(ldd "$work/embed/edges" | awk '{print $1}' | tr '\n' ' ')"
"$work/embed/edges" --make-test-image="$work/test.png" 333x201
# What a machine with only the runtime has: the compiler library is not there to be found.
mv "$lib/libtessera_compiler.so" "$work/libtessera_compiler.so.away"
status=0
"$work/embed/edges" --check --timings "$work/test.png" "$work/edges.png" || status=$?
mv "$work/libtessera_compiler.so.away" "$lib/libtessera_compiler.so"
test "$status" -eq 0
test -s "$work/edges.png"

cat > "$work/devices.cpp" <<'CPP'
#include "tessera/runtime/Runtime.hpp"
#include <cstdio>
int main() {
  auto rt = tessera::Runtime::create();
  if (!rt) return std::printf("%s\n", rt.status().toString().c_str()), 1;
  for (const tessera::DeviceInfo &d : (*rt)->devices()) std::printf("pkg-config build sees: %s\n", d.name.c_str());
  return (*rt)->devices().empty() ? 1 : 0;
}
CPP
export PKG_CONFIG_PATH=$lib/pkgconfig
# shellcheck disable=SC2046
"$cxx" -std=c++20 "$work/devices.cpp" -o "$work/devices" $(pkg-config --cflags --libs tessera)
"$work/devices"
test -f "$prefix/include/tessera/tessera.h"
# shellcheck disable=SC2046
"$cc" -std=c11 "$src/runtime/tests/c_api_test.c" -o "$work/c_api_test" $(pkg-config --cflags --libs tessera) -lm
"$build/bin/01_vector_add" 1 --block=128 --write-package="$work" > /dev/null
"$work/c_api_test" "$work/vector_add_b128.tspkg"
echo "install test: PASS"
