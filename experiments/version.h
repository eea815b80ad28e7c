#pragma once
// The build's identity for `compopt --version`: the project version and the git commit
// CMake recorded when it configured the build ("unknown" outside a git checkout).

#include <string>

namespace compopt::cli {

// "compopt <version> (git <commit>)".
std::string version_line();

}  // namespace compopt::cli
