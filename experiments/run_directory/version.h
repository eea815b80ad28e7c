#pragma once
// The build's identity: the project version and the git commit of the checkout it was built
// from (with "+changes" when tracked files differed from that commit; "unknown" outside a git
// checkout), recorded at every build (build_info.cc.in, generated). `compopt --version` prints
// them with the backends, and every run.json records them.

namespace compopt::cli {

const char* compopt_version();
const char* compopt_git_commit();

}  // namespace compopt::cli
