#pragma once
// The build's identity: the project version and the git commit of the checkout it was built
// from (with "+changes" when tracked files differed from that commit; "unknown" outside a git
// checkout), recorded at every build. `compopt --version` prints them with the backends, and
// every run.json records them.

#include <string>

namespace compopt::cli {

const char* compopt_version();
const char* compopt_git_commit();

// "compopt <version> (git <commit>)" and one line listing the backends: those that can run
// here, and those that cannot with the reason.
std::string version_text();

}  // namespace compopt::cli
