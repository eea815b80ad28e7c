# pybind11 for python/CMakeLists.txt, in the order documented there. Sets COMPOPT_PYBIND11 (how it
# was found; empty when it was not, with the reason in COMPOPT_PYBIND11_WHY) and defines
# compopt_add_python_module(<name> <sources>...), an extension module for COMPOPT_PYTHON_EXECUTABLE.
set(COMPOPT_PYBIND11 "")
find_package(pybind11 CONFIG QUIET)
if(NOT pybind11_FOUND)
  execute_process(COMMAND ${COMPOPT_PYTHON_EXECUTABLE} -m pybind11 --cmakedir
                  OUTPUT_VARIABLE COMPOPT_PYBIND11_CMAKEDIR OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(COMPOPT_PYBIND11_CMAKEDIR)
    find_package(pybind11 CONFIG QUIET PATHS ${COMPOPT_PYBIND11_CMAKEDIR} NO_DEFAULT_PATH)
  endif()
endif()
if(pybind11_FOUND)
  set(COMPOPT_PYBIND11 "${pybind11_VERSION} at ${pybind11_DIR}")
  function(compopt_add_python_module name)
    pybind11_add_module(${name} ${ARGN})
  endfunction()
  return()
endif()

execute_process(
  COMMAND ${COMPOPT_PYTHON_EXECUTABLE} -c
          "import os, torch; print(os.path.join(os.path.dirname(torch.__file__), 'include'))"
  OUTPUT_VARIABLE COMPOPT_TORCH_INCLUDE OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
set(COMPOPT_PYBIND11_INCLUDE_DIR "${COMPOPT_TORCH_INCLUDE}" CACHE PATH
    "Folder holding pybind11/pybind11.h, used when no pybind11 CMake package is found")
set(COMPOPT_PYBIND11_WHY "no pybind11 CMake package, no '${COMPOPT_PYTHON_EXECUTABLE} -m pybind11', "
                         "no pybind11/pybind11.h in COMPOPT_PYBIND11_INCLUDE_DIR='${COMPOPT_PYBIND11_INCLUDE_DIR}'")
if(NOT EXISTS "${COMPOPT_PYBIND11_INCLUDE_DIR}/pybind11/pybind11.h")
  return()
endif()
find_package(Python COMPONENTS Interpreter Development.Module QUIET)
if(NOT Python_Development.Module_FOUND)
  set(COMPOPT_PYBIND11_WHY "pybind11 headers in ${COMPOPT_PYBIND11_INCLUDE_DIR}, but no Python.h for "
                           "${COMPOPT_PYTHON_EXECUTABLE} (install its -dev package)")
  return()
endif()
# Only pybind11/ of that folder goes on the include path: torch/include also holds an fmt that
# must not shadow the one core links.
set(COMPOPT_PYBIND11_ONLY ${CMAKE_CURRENT_BINARY_DIR}/pybind11_include)
file(MAKE_DIRECTORY ${COMPOPT_PYBIND11_ONLY})
file(CREATE_LINK ${COMPOPT_PYBIND11_INCLUDE_DIR}/pybind11 ${COMPOPT_PYBIND11_ONLY}/pybind11 SYMBOLIC)
set(COMPOPT_PYBIND11 "headers in ${COMPOPT_PYBIND11_INCLUDE_DIR}, Python ${Python_VERSION}")
function(compopt_add_python_module name)
  Python_add_library(${name} MODULE WITH_SOABI ${ARGN})
  target_include_directories(${name} SYSTEM PRIVATE ${COMPOPT_PYBIND11_ONLY})
  set_target_properties(${name} PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
endfunction()
