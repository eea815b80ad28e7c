# NCCL detection, included from the top-level CMakeLists.txt after real_backend/cuda_kernels/detect.cmake.
#
# Looked for only when CUDA was found, in: NCCL_ROOT (CMake or environment variable), the CUDA
# toolkit, system paths, and the nvidia/nccl directory of the `nvidia-nccl-cu*` Python wheel
# (located with `import nvidia.nccl` by COMPOPT_PYTHON_EXECUTABLE, then by python3 on PATH, else
# by globbing site-packages).
# Sets COMPOPT_HAVE_NCCL and, when found, the imported target compopt::nccl.

set(COMPOPT_HAVE_NCCL OFF)
if(COMPOPT_HAVE_CUDA)
  set(COMPOPT_NCCL_HINTS ${NCCL_ROOT} $ENV{NCCL_ROOT})
  # The Python the bindings are built for first (its wheels are the ones that will be loaded).
  foreach(python IN ITEMS ${COMPOPT_PYTHON_EXECUTABLE} python3)
    find_program(COMPOPT_NCCL_ASKED_PYTHON ${python} NO_CACHE)
    if(NOT COMPOPT_NCCL_ASKED_PYTHON)
      continue()
    endif()
    execute_process(
      COMMAND ${COMPOPT_NCCL_ASKED_PYTHON} -c "import nvidia.nccl as m; print(list(m.__path__)[0])"
      OUTPUT_VARIABLE COMPOPT_NCCL_WHEEL OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
      RESULT_VARIABLE COMPOPT_NCCL_WHEEL_RC)
    if(COMPOPT_NCCL_WHEEL_RC EQUAL 0 AND COMPOPT_NCCL_WHEEL)
      list(APPEND COMPOPT_NCCL_HINTS ${COMPOPT_NCCL_WHEEL})
    endif()
    unset(COMPOPT_NCCL_ASKED_PYTHON)
  endforeach()
  file(GLOB COMPOPT_NCCL_GLOBBED LIST_DIRECTORIES true
       /usr/lib/python3*/site-packages/nvidia/nccl /usr/lib/python3/dist-packages/nvidia/nccl
       /usr/local/lib/python3*/site-packages/nvidia/nccl /usr/local/lib/python3*/dist-packages/nvidia/nccl
       $ENV{HOME}/.local/lib/python3*/site-packages/nvidia/nccl $ENV{VIRTUAL_ENV}/lib/python3*/site-packages/nvidia/nccl)
  list(APPEND COMPOPT_NCCL_HINTS ${COMPOPT_NCCL_GLOBBED} ${CUDAToolkit_LIBRARY_ROOT})
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${COMPOPT_NCCL_HINTS} ${CUDAToolkit_INCLUDE_DIRS}
            PATH_SUFFIXES include)
  # The wheel ships only libnccl.so.2 (no libnccl.so link).
  find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 NAMES_PER_DIR HINTS ${COMPOPT_NCCL_HINTS} ${CUDAToolkit_LIBRARY_DIR}
               PATH_SUFFIXES lib lib64)
  if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
    file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" COMPOPT_NCCL_VERSION_LINES REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
    set(COMPOPT_NCCL_VERSION "")
    foreach(line IN LISTS COMPOPT_NCCL_VERSION_LINES)
      string(REGEX REPLACE "^#define NCCL_[A-Z]+ +([0-9]+).*" "\\1" part "${line}")
      string(APPEND COMPOPT_NCCL_VERSION "${part}.")
    endforeach()
    string(REGEX REPLACE "\\.$" "" COMPOPT_NCCL_VERSION "${COMPOPT_NCCL_VERSION}")
    if(COMPOPT_NCCL_VERSION VERSION_LESS 2.18)
      message(STATUS "compopt: NCCL ${COMPOPT_NCCL_VERSION} at ${NCCL_LIBRARY} is older than 2.18 "
                     "(ncclCommSplit): NCCL backend disabled")
    else()
      add_library(compopt::nccl UNKNOWN IMPORTED)
      set_target_properties(compopt::nccl PROPERTIES IMPORTED_LOCATION "${NCCL_LIBRARY}"
                                                     INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
      set(COMPOPT_HAVE_NCCL ON)
      message(STATUS "compopt: NCCL ${COMPOPT_NCCL_VERSION} found: ${NCCL_LIBRARY} (headers ${NCCL_INCLUDE_DIR}): "
                     "NCCL backend enabled")
    endif()
  else()
    message(STATUS "compopt: NCCL not found (NCCL_ROOT, CUDA toolkit, system paths, python3 nvidia.nccl): "
                   "NCCL backend disabled")
  endif()
endif()
