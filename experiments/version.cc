#include "experiments/version.h"

#include <fmt/format.h>

#ifndef COMPOPT_GIT_COMMIT
#define COMPOPT_GIT_COMMIT "unknown"
#endif
#ifndef COMPOPT_VERSION
#define COMPOPT_VERSION "unknown"
#endif

namespace compopt::cli {

std::string version_line() {
  return fmt::format("compopt {} (git {})", COMPOPT_VERSION, COMPOPT_GIT_COMMIT);
}

}  // namespace compopt::cli
