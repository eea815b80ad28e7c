// compopt: simulator and research testbed for communication-compressed optimizers.

#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "core/util/error.h"
#include "experiments/commands.h"

int main(int argc, char** argv) {
  CLI::App app{
      "compopt: simulator and testbed for communication-compressed distributed optimizers"};
  app.require_subcommand(1);
  compopt::cli::register_collectives_command(app);
  compopt::cli::register_comm_bench_command(app);
  compopt::cli::register_launch_command(app);
  compopt::cli::register_train_command(app);
  compopt::cli::register_profile_command(app);
  compopt::cli::register_sweep_command(app);
  compopt::cli::register_reproduce_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
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
  return 0;
}
