# Run at every build (target compopt_build_info): writes OUT from build_info.cc.in with the
# commit of SOURCE_DIR's checkout, rewriting it only when the text changes, so a new commit
# relinks `compopt` without recompiling anything else.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE COMPOPT_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE COMPOPT_GIT_CHANGES OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT COMPOPT_GIT_COMMIT)
  set(COMPOPT_GIT_COMMIT unknown)
elseif(COMPOPT_GIT_CHANGES)
  string(APPEND COMPOPT_GIT_COMMIT "+changes")
endif()
configure_file(${SOURCE_DIR}/experiments/run_directory/build_info.cc.in ${OUT} @ONLY)
