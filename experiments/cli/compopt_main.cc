// compopt: simulator and research testbed for communication-compressed optimizers.
// `compopt` alone prints the help; `compopt --version` the version and git commit.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>

#include "core/util/error.h"
#include "experiments/cli/commands.h"
#include "experiments/run_directory/version.h"
#include "real_backend/backend_registry.h"

namespace {

// "compopt <version> (git <commit>)" and one line listing the backends: those that can run
// here, and those that cannot with the reason.
std::string version_text() {
  std::string usable, unusable;
  for (const compopt::BackendEntry& backend : compopt::backend_registry().entries()) {
    const std::string why_not = backend.available();
    if (why_not.empty()) {
      usable += (usable.empty() ? "" : ", ") + backend.name;
    } else {
      unusable += fmt::format("\n  {}: {}", backend.name, why_not);
    }
  }
  std::string text =
      fmt::format("compopt {} (git {})\nbackends: {}", compopt::cli::compopt_version(),
                  compopt::cli::compopt_git_commit(), usable);
  if (!unusable.empty()) text += "\nnot available here:" + unusable;
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "compopt: simulator and testbed for communication-compressed distributed optimizers"};
  app.require_subcommand(0, 1);
  app.set_version_flag(
      "--version", [] { return version_text(); },
      "print the version, git commit and backends, and exit");
  compopt::cli::register_collectives_command(app);
  compopt::cli::register_comm_bench_command(app);
  compopt::cli::register_launch_command(app);
  compopt::cli::register_train_command(app);
  compopt::cli::register_profile_command(app);
  compopt::cli::register_sweep_command(app);
  compopt::cli::register_validate_command(app);
  compopt::cli::register_reproduce_command(app);
  compopt::cli::register_list_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --help-all, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "compopt: error: {}\nRun with --help for the accepted options.\n", e.what());
    return 2;
  } catch (const compopt::InvalidArgument& e) {
    fmt::print(stderr, "compopt: error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "compopt: failed: {}\n", e.what());
    return 1;
  }
  if (app.get_subcommands().empty()) fmt::print("{}", app.help());
  return 0;
}
