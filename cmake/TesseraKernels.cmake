# tessera_add_kernels: C++ kernel files compiled ahead of time for one target (docs/aot.md).
#
#   tessera_add_kernels(app KERNELS app_kernels.cpp [more.cpp ...]
#                       [HEADER app_kernels.hpp] [NAMESPACE app_kernels]
#                       [TARGETS nvptx spirv] [OPTIONS --chip=sm_80,sm_90 --subgroup-size=8,32 -DBLOCK=256])
#
# At build time `tessera compile` traces the exported kernels (TESSERA_EXPORT_KERNEL) and writes
# HEADER (default <target>_kernels.hpp; NAMESPACE defaults to its name) with the package embedded,
# plus the package itself beside it; both are rebuilt when a kernel file or a header it includes
# changes. The target gets the header's folder on its include path and links the runtime only.
# Loaded by find_package(Tessera); inside Tessera's own build it uses the build tree's CLI.
if(POLICY CMP0116)
  cmake_policy(SET CMP0116 NEW) # depfile paths as the build tool expects them
endif()

function(tessera_add_kernels target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "HEADER;NAMESPACE" "KERNELS;TARGETS;OPTIONS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tessera_add_kernels(${target}): unknown arguments ${arg_UNPARSED_ARGUMENTS}; "
                        "expected KERNELS, HEADER, NAMESPACE, TARGETS, OPTIONS")
  endif()
  if(NOT arg_KERNELS)
    message(FATAL_ERROR "tessera_add_kernels(${target}): name the kernel files: KERNELS kernels.cpp")
  endif()
  if(TARGET tessera_compiler) # inside Tessera's own build (the CLI target may come later)
    set(cli tessera)
    set(runtime tessera_runtime)
    set(compiler tessera_compiler)
  elseif(TARGET Tessera::tessera AND TARGET Tessera::compiler)
    set(cli Tessera::tessera)
    set(runtime Tessera::runtime)
    set(compiler Tessera::compiler)
  else()
    message(FATAL_ERROR "tessera_add_kernels(${target}) needs the tessera command and the compiler library: "
                        "find_package(Tessera REQUIRED COMPONENTS runtime compiler) from an installation with the compiler")
  endif()

  if(NOT arg_HEADER)
    set(arg_HEADER ${target}_kernels.hpp)
  endif()
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/tessera_kernels/${target})
  set(header ${dir}/${arg_HEADER})
  string(REGEX REPLACE "\\.[^.]*$" ".tspkg" package ${header})
  set(depfile ${dir}/${arg_HEADER}.d)
  set(kernels)
  foreach(file IN LISTS arg_KERNELS)
    get_filename_component(file ${file} ABSOLUTE)
    list(APPEND kernels ${file})
  endforeach()
  set(options)
  if(arg_NAMESPACE)
    list(APPEND options --namespace ${arg_NAMESPACE})
  endif()
  foreach(t IN LISTS arg_TARGETS)
    list(APPEND options --target=${t})
  endforeach()
  list(APPEND options ${arg_OPTIONS})
  string(REPLACE ";" ", " files "${arg_KERNELS}")

  # The kernel files are compiled with this project's C++ compiler.
  add_custom_command(
    OUTPUT ${header} ${package}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND ${CMAKE_COMMAND} -E env CXX=${CMAKE_CXX_COMPILER} $<TARGET_FILE:${cli}> compile ${kernels}
            -o ${package} --header ${header} --depfile ${depfile} ${options}
    DEPENDS ${kernels} ${cli} ${compiler}
    DEPFILE ${depfile}
    COMMENT "Compiling the Tessera kernels of ${target} (${files})"
    VERBATIM)
  target_sources(${target} PRIVATE ${header})
  target_include_directories(${target} PRIVATE ${dir})
  target_link_libraries(${target} PRIVATE ${runtime})
endfunction()
