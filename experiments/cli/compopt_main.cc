// compopt: simulator and research testbed for communication-compressed optimizers.
// `compopt` alone prints the help; `compopt --version` the version and git commit.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

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

// A message as it may reach a terminal: control bytes other than newline and tab (an escape
// sequence echoed from a bad value) written as \xNN, and a message longer than kMaxMessageChars
// (a 100k-character value echoed whole) cut in its middle, keeping the start and the end, where
// messages say what was expected.
std::string printable(std::string_view message) {
  constexpr size_t kMaxMessageChars = 2000, kKeep = kMaxMessageChars / 2;
  std::string text(message);
  if (message.size() > kMaxMessageChars) {
    text = fmt::format("{} ... ({} characters left out) ... {}", message.substr(0, kKeep),
                       message.size() - 2 * kKeep, message.substr(message.size() - kKeep));
  }
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\n' && c != '\t') || byte == 0x7f) {
      out += fmt::format("\\x{:02x}", byte);
    } else {
      out += c;
    }
  }
  return out;
}

// Writes an error line to stderr without throwing: with stderr closed or full (2>&-,
// 2>/dev/full) the exit code must still say what happened, not an abort from a throwing print.
void print_error(const std::string& line) {
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
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
  compopt::cli::register_predict_collective_command(app);
  compopt::cli::register_launch_command(app);
  compopt::cli::register_train_command(app);
  compopt::cli::register_profile_command(app);
  compopt::cli::register_sweep_command(app);
  compopt::cli::register_validate_command(app);
  compopt::cli::register_calibrate_command(app);
  compopt::cli::register_reproduce_command(app);
  compopt::cli::register_plot_command(app);
  compopt::cli::register_list_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --help-all, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    print_error(fmt::format("compopt: error: {}\nRun with --help for the accepted options.\n",
                            printable(e.what())));
    return 2;
  } catch (const compopt::InvalidArgument& e) {
    print_error(fmt::format("compopt: error: {}\n", printable(e.what())));
    return 2;
  } catch (const std::exception& e) {
    print_error(fmt::format("compopt: failed: {}\n", printable(e.what())));
    return 1;
  }
  if (app.get_subcommands().empty()) fmt::print("{}", app.help());
  return 0;
}
