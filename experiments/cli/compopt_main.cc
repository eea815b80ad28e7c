// compopt: simulator and research testbed for communication-compressed optimizers.
// `compopt` alone prints the help; `compopt --version` the version and git commit.

#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "core/util/error.h"
#include "experiments/cli/commands.h"
#include "experiments/run_directory/version.h"

int main(int argc, char** argv) {
  CLI::App app{
      "compopt: simulator and testbed for communication-compressed distributed optimizers"};
  app.require_subcommand(0, 1);
  app.set_version_flag(
      "--version", [] { return compopt::cli::version_text(); },
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
