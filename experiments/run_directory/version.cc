#include "experiments/run_directory/version.h"

#include <fmt/format.h>

#include "real_backend/backend_registry.h"

namespace compopt::cli {

std::string version_text() {
  std::string usable, unusable;
  for (const BackendEntry& backend : backend_registry().entries()) {
    const std::string why_not = backend.available();
    if (why_not.empty()) {
      usable += (usable.empty() ? "" : ", ") + backend.name;
    } else {
      unusable += fmt::format("\n  {}: {}", backend.name, why_not);
    }
  }
  std::string text = fmt::format("compopt {} (git {})\nbackends: {}", compopt_version(),
                                 compopt_git_commit(), usable);
  if (!unusable.empty()) text += "\nnot available here:" + unusable;
  return text;
}

}  // namespace compopt::cli
