# Finds LLVM/MLIR 22 and SPIRV-Tools and sets up TableGen for the compiler targets.
# The compiler links the MLIR and LLVM dylibs (fast links, small binaries); the runtime never
# includes this file.
find_package(MLIR REQUIRED CONFIG HINTS /usr/lib/llvm-22/lib/cmake/mlir)
if(LLVM_VERSION_MAJOR LESS 22)
  message(FATAL_ERROR "Tessera needs LLVM/MLIR 22; found ${LLVM_PACKAGE_VERSION} at ${MLIR_DIR}")
endif()
message(STATUS "MLIR ${LLVM_PACKAGE_VERSION} from ${MLIR_DIR}")
list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
include(TableGen)
include(AddLLVM)
include(AddMLIR)

# LLVM_DEFINITIONS already holds "-D..." items: add_definitions, not add_compile_definitions.
separate_arguments(TESSERA_LLVM_DEFS NATIVE_COMMAND "${LLVM_DEFINITIONS}")
add_definitions(${TESSERA_LLVM_DEFS})
include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
if(NOT TARGET mlir-headers)
  add_custom_target(mlir-headers) # add_mlir_dialect() hangs its tablegen targets here
endif()

find_package(SPIRV-Tools REQUIRED CONFIG)

# Tools the lit tests need.
find_program(TESSERA_FILECHECK FileCheck HINTS ${LLVM_TOOLS_BINARY_DIR} REQUIRED)
find_program(TESSERA_LIT lit HINTS ${LLVM_TOOLS_BINARY_DIR} REQUIRED)
find_program(TESSERA_PTXAS ptxas HINTS /usr/local/cuda/bin)
find_program(TESSERA_SPIRV_VAL spirv-val)
