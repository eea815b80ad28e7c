# CUDA detection, included from the top-level CMakeLists.txt (enable_language must run at the top).
#
# COMPOPT_CUDA = AUTO (default: build the CUDA kernels when a working nvcc is found),
#                ON (fail when none is found) or OFF (never look).
# nvcc is looked up as CMAKE_CUDA_COMPILER, then $CUDACXX, then nvcc on PATH, then
# ${CUDAToolkit_ROOT}/bin/nvcc (default /usr/local/cuda). A machine without nvcc only pays
# for that search. Sets COMPOPT_HAVE_CUDA and, when found, the CUDA::cudart targets.

set(COMPOPT_CUDA AUTO CACHE STRING "Build the CUDA kernels and GPU backends: AUTO, ON or OFF")
set_property(CACHE COMPOPT_CUDA PROPERTY STRINGS AUTO ON OFF)
string(TOUPPER "${COMPOPT_CUDA}" COMPOPT_CUDA_MODE)
if(NOT COMPOPT_CUDA_MODE MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "COMPOPT_CUDA='${COMPOPT_CUDA}', expected AUTO, ON or OFF")
endif()

set(COMPOPT_HAVE_CUDA OFF)
set(COMPOPT_CUDA_WHY "COMPOPT_CUDA=OFF")
if(NOT COMPOPT_CUDA_MODE STREQUAL "OFF")
  if(DEFINED CMAKE_CUDA_COMPILER AND CMAKE_CUDA_COMPILER AND NOT EXISTS "${CMAKE_CUDA_COMPILER}")
    set(COMPOPT_CUDA_WHY "CMAKE_CUDA_COMPILER=${CMAKE_CUDA_COMPILER} does not exist")
  else()
    if(DEFINED CUDAToolkit_ROOT)
      set(COMPOPT_NVCC_DEFAULT "${CUDAToolkit_ROOT}/bin/nvcc")
    else()
      set(COMPOPT_NVCC_DEFAULT "/usr/local/cuda/bin/nvcc")
    endif()
    if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
      find_program(COMPOPT_NVCC_ON_PATH nvcc NO_CACHE)
      if(NOT COMPOPT_NVCC_ON_PATH AND EXISTS "${COMPOPT_NVCC_DEFAULT}")
        set(ENV{CUDACXX} "${COMPOPT_NVCC_DEFAULT}")
      endif()
    endif()
    include(CheckLanguage)
    check_language(CUDA)
    if(CMAKE_CUDA_COMPILER)
      # sm_80 (A100) and sm_90 (H100/H200) machine code, plus compute_90 PTX for newer GPUs.
      if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
        set(CMAKE_CUDA_ARCHITECTURES "80-real;90")
      endif()
      enable_language(CUDA)
      # CMake 3.25 knows no C++20 dialect flag for nvcc (added in 3.26); nvcc >= 12 has -std=c++20.
      if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.0)
        set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
        set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
      endif()
      set(CMAKE_CUDA_STANDARD 20)
      set(CMAKE_CUDA_STANDARD_REQUIRED ON)
      set(CMAKE_CUDA_EXTENSIONS OFF)
      find_package(CUDAToolkit REQUIRED)
      set(COMPOPT_HAVE_CUDA ON)
    else()
      set(COMPOPT_CUDA_WHY "no working nvcc in CMAKE_CUDA_COMPILER, CUDACXX, PATH or ${COMPOPT_NVCC_DEFAULT}")
    endif()
  endif()
endif()

if(COMPOPT_HAVE_CUDA)
  message(STATUS "compopt: CUDA found: ${CMAKE_CUDA_COMPILER} (${CMAKE_CUDA_COMPILER_VERSION}), "
                 "architectures ${CMAKE_CUDA_ARCHITECTURES}: CUDA kernels and hybrid backend enabled")
elseif(COMPOPT_CUDA_MODE STREQUAL "ON")
  message(FATAL_ERROR "compopt: COMPOPT_CUDA=ON but CUDA was not found: ${COMPOPT_CUDA_WHY}")
else()
  message(STATUS "compopt: CUDA not found (${COMPOPT_CUDA_WHY}): CUDA kernels, hybrid and NCCL backends disabled")
endif()
