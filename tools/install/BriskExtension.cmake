# brisk_add_extension, included by BriskConfig.cmake (Brisk's docs/install.md, "Extensions"):
#
#   find_package(Brisk REQUIRED)
#   brisk_add_extension(my_ops SOURCES my_ops.cc my_ops.cu)
#   target_link_libraries(app PRIVATE my_ops)
#
# brisk_add_extension(NAME SOURCES source...) adds the target NAME: a SHARED library of C++ and
# CUDA (.cu) sources linked to Brisk::brisk. Shared rather than MODULE because a program uses
# an extension through its header (its functions, its modules) and so links it, which CMake
# refuses for a MODULE; its op registrations run when the program loads it, which a program
# that links it always does (--no-as-needed). An undefined symbol fails the extension's own
# link (--no-undefined), not the program's.
#
# With .cu sources, which need a Brisk built with CUDA (Brisk_WITH_CUDA), it enables CUDA
# with the nvcc of the toolkit Brisk was built with (Brisk_NVCC) unless the project chose one
# (CMAKE_CUDA_COMPILER, CUDACXX), for Brisk's own GPU architectures (Brisk_CUDA_ARCHITECTURES)
# unless the project chose them (CMAKE_CUDA_ARCHITECTURES, CUDAARCHS) before CUDA was
# enabled. The .cu sources are compiled as C++17 with the host compiler's OpenMP, as Brisk's
# headers are, and the extension links the shared CUDA runtime that libbrisk.so uses.
#
# A macro, not a function: enable_language(CUDA) must run in the scope of the directory.
macro(brisk_add_extension _brisk_extension)
  set(_brisk_cuda_sources "")
  foreach(_brisk_source IN ITEMS ${ARGN})
    if(_brisk_source MATCHES "\\.cu$")
      list(APPEND _brisk_cuda_sources "${_brisk_source}")
    endif()
  endforeach()
  if(_brisk_cuda_sources)
    _brisk_check_cuda(${_brisk_extension} "${_brisk_cuda_sources}")
  endif()
  get_property(_brisk_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(_brisk_cuda_sources AND NOT "CUDA" IN_LIST _brisk_languages)
    if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
      set(CMAKE_CUDA_COMPILER "${Brisk_NVCC}")
    endif()
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
      set(CMAKE_CUDA_ARCHITECTURES "${Brisk_CUDA_ARCHITECTURES}")
    endif()
    enable_language(CUDA)
  endif()
  _brisk_add_extension(${_brisk_extension} ${ARGN})
  unset(_brisk_cuda_sources)
  unset(_brisk_source)
  unset(_brisk_languages)
endmacro()

function(_brisk_check_cuda name cuda_sources)
  if(CMAKE_VERSION VERSION_LESS 3.18)
    message(FATAL_ERROR "brisk_add_extension(${name}): CUDA sources (${cuda_sources}) need CMake "
      "3.18 or newer (CUDA_ARCHITECTURES), and this is CMake ${CMAKE_VERSION}.")
  endif()
  if(NOT Brisk_WITH_CUDA)
    message(FATAL_ERROR "brisk_add_extension(${name}): CUDA sources (${cuda_sources}) need a Brisk "
      "built with CUDA, and the Brisk found at ${Brisk_DIR} was built without (Brisk_WITH_CUDA is "
      "OFF: tools/install.sh --cpu-only, or no CUDA toolkit). Install Brisk with CUDA, or build "
      "the extension from its C++ sources only.")
  endif()
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND NOT EXISTS "${Brisk_NVCC}")
    message(FATAL_ERROR "brisk_add_extension(${name}): CUDA sources (${cuda_sources}) need nvcc, "
      "and there is none at ${Brisk_NVCC}, where the CUDA toolkit Brisk was built with had it. "
      "Install that toolkit, or set CMAKE_CUDA_COMPILER to the nvcc of a toolkit of the same "
      "version.")
  endif()
endfunction()

function(_brisk_add_extension name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES")
  if(arg_UNPARSED_ARGUMENTS OR arg_KEYWORDS_MISSING_VALUES OR NOT arg_SOURCES)
    message(FATAL_ERROR "brisk_add_extension(${name} ${ARGN}): expected "
      "brisk_add_extension(NAME SOURCES source...)")
  endif()
  add_library(${name} SHARED ${arg_SOURCES})
  target_link_libraries(${name} PUBLIC Brisk::brisk)
  target_link_options(${name} PRIVATE "LINKER:--no-undefined")
  # A program that calls the extension's ops only by name (library::find_op) references none
  # of its symbols, and a linker that drops unreferenced libraries (--as-needed, the default
  # of Debian's and Ubuntu's compilers) would leave it out, and its ops unregistered.
  target_link_options(${name} INTERFACE "LINKER:--no-as-needed")
  foreach(source IN LISTS arg_SOURCES)
    if(source MATCHES "\\.cu$")
      set_target_properties(${name} PROPERTIES
        CUDA_STANDARD 17
        CUDA_STANDARD_REQUIRED ON
        CUDA_EXTENSIONS OFF
        CUDA_RUNTIME_LIBRARY Shared)
      target_compile_options(${name} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fopenmp>")
      break()
    endif()
  endforeach()
endfunction()
