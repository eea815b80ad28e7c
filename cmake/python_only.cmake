# Dependencies of COMPOPT_PYTHON_ONLY=ON, included from the top-level CMakeLists.txt: the Python
# module and what it links (core, real backends), for machines without SimGrid, Eigen, GoogleTest,
# Google Benchmark, CLI11, toml++ or nlohmann-json (a GPU machine with its own Python and torch,
# docs/python_gpu.md). None of those is looked for. The rest degrades in this order:
#   fmt:  the installed package (find_package), else header-only (FMT_HEADER_ONLY) from
#         COMPOPT_FMT_INCLUDE_DIR, by default the fmt headers a torch wheel ships in torch/include
#         (asked of COMPOPT_PYTHON_EXECUTABLE); FATAL_ERROR naming both when neither exists;
#   nlohmann-json (header-only; core/optim reads DeepSpeed configs with it): the installed
#         package, else the nlohmann/json.hpp in COMPOPT_JSON_INCLUDE_DIR (default BOOST_INCLUDE_DIR:
#         scripts/pack_boost_headers.sh copies it beside the Boost headers); FATAL_ERROR otherwise;
#   zlib: the installed package, else core/util's built-in CRC-32 (same values);
#   Eigen (pkg-config, optional): with zlib, builds core's tasks and train libraries, which the
#         module does not need.
# pybind11 is looked up by python/CMakeLists.txt.

find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(EIGEN3 QUIET IMPORTED_TARGET eigen3)
endif()
find_package(ZLIB QUIET)

find_package(fmt QUIET)
if(NOT fmt_FOUND)
  execute_process(
    COMMAND ${COMPOPT_PYTHON_EXECUTABLE} -c
            "import os, torch; print(os.path.join(os.path.dirname(torch.__file__), 'include'))"
    OUTPUT_VARIABLE COMPOPT_TORCH_INCLUDE OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  set(COMPOPT_FMT_INCLUDE_DIR "${COMPOPT_TORCH_INCLUDE}" CACHE PATH
      "Folder holding fmt/format.h, used header-only when the fmt package is not installed")
  if(NOT EXISTS "${COMPOPT_FMT_INCLUDE_DIR}/fmt/format.h")
    message(FATAL_ERROR "compopt: fmt not found: no installed fmt package and no fmt/format.h in "
                        "COMPOPT_FMT_INCLUDE_DIR='${COMPOPT_FMT_INCLUDE_DIR}' (default: the torch/include "
                        "of ${COMPOPT_PYTHON_EXECUTABLE}); install libfmt-dev or pass -DCOMPOPT_FMT_INCLUDE_DIR")
  endif()
  add_library(fmt::fmt INTERFACE IMPORTED)
  set_target_properties(fmt::fmt PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${COMPOPT_FMT_INCLUDE_DIR}"
                                            INTERFACE_COMPILE_DEFINITIONS FMT_HEADER_ONLY=1)
endif()

find_package(nlohmann_json 3 QUIET)
if(NOT nlohmann_json_FOUND)
  set(COMPOPT_JSON_INCLUDE_DIR "${BOOST_INCLUDE_DIR}" CACHE PATH
      "Folder holding nlohmann/json.hpp, used when the nlohmann-json package is not installed")
  if(NOT EXISTS "${COMPOPT_JSON_INCLUDE_DIR}/nlohmann/json.hpp")
    message(FATAL_ERROR "compopt: nlohmann-json not found: no installed package and no nlohmann/json.hpp "
                        "in COMPOPT_JSON_INCLUDE_DIR='${COMPOPT_JSON_INCLUDE_DIR}'; install "
                        "nlohmann-json3-dev or pass the include folder of scripts/pack_boost_headers.sh")
  endif()
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
  set_target_properties(nlohmann_json::nlohmann_json PROPERTIES
                        INTERFACE_INCLUDE_DIRECTORIES "${COMPOPT_JSON_INCLUDE_DIR}")
endif()

set(COMPOPT_FMT_WHERE "${fmt_DIR}")
if(NOT fmt_FOUND)
  set(COMPOPT_FMT_WHERE "header-only from ${COMPOPT_FMT_INCLUDE_DIR}")
endif()
set(COMPOPT_EIGEN_WHERE "not found (core's tasks and train not built)")
if(EIGEN3_FOUND AND ZLIB_FOUND)
  set(COMPOPT_EIGEN_WHERE "${EIGEN3_VERSION}")
endif()
set(COMPOPT_ZLIB_WHERE "built-in CRC-32")
if(ZLIB_FOUND)
  set(COMPOPT_ZLIB_WHERE "${ZLIB_LIBRARIES}")
endif()
message(STATUS "compopt: COMPOPT_PYTHON_ONLY: no simulator, CLI or C++ tests; fmt: ${COMPOPT_FMT_WHERE}; "
               "zlib: ${COMPOPT_ZLIB_WHERE}; Eigen: ${COMPOPT_EIGEN_WHERE}")
