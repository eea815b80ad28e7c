// `compopt plot RUN_DIR [RUN_DIR...]`: draws run directories by their kind, the "command"
// their run.json records (train, sweep, profile, reproduce), or a trace file of `compopt
// profile --trace`, with analysis/plot_run.py under /usr/bin/python3 (Debian's matplotlib).
// Several train runs are overlaid in one figure. Figures go to RUN_DIR/figures/ or --out DIR.
// Every path is checked before anything is drawn: a missing path, a folder without run.json
// or a kind with no figures exits 2 naming it.

#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string_view>

#include "core/util/error.h"
#include "experiments/cli/commands.h"
#include "experiments/run_directory/run_status.h"

extern char** environ;

namespace compopt::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPython = "/usr/bin/python3";

struct Kind {
  std::string_view name;
  std::string_view figures;
};

// The run kinds analysis/plot_run.py draws (its table KINDS), with what each gets; a trace
// .json file given instead of a directory is its fifth kind.
constexpr std::array<Kind, 4> kKinds = {{
    {"train", "training curves (loss, accuracy, variance ratio, bytes, time); several overlaid"},
    {"sweep",
     "speedup over the baseline by GPU count per scenario, time to train; the tornado of "
     "--sensitivity when sensitivity.csv is there"},
    {"profile",
     "step-time breakdown per stage; the trace summary when trace.json is there; the tornado "
     "of --sensitivity when sensitivity.csv is there"},
    {"reproduce", "every study figure whose CSVs are there"},
}};

struct Options {
  std::vector<std::string> paths;
  std::string out;
  std::string analysis_dir;
};

bool known_kind(std::string_view name) {
  for (const Kind& k : kKinds)
    if (k.name == name) return true;
  return false;
}

std::string kind_names() {
  std::string names;
  for (const Kind& k : kKinds) names += fmt::format("{}{}", names.empty() ? "" : ", ", k.name);
  return names;
}

// Throws InvalidArgument unless `path` is a trace .json file or a run directory of a kind
// with figures.
void check_path(const std::string& path) {
  const fs::path p(path);
  if (fs::is_regular_file(p)) {
    if (p.extension() != ".json")
      throw InvalidArgument(fmt::format(
          "{}: a file, expected a run directory or a trace .json file (profile --trace)", path));
    return;
  }
  if (!fs::is_directory(p)) throw InvalidArgument(fmt::format("{}: no such run directory", path));
  std::ifstream in(p / "run.json");
  if (!in)
    throw InvalidArgument(fmt::format("{}: not a run directory (no run.json; compopt {} write one)",
                                      path, kind_names()));
  const nlohmann::json run = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!run.is_object() || !run.contains("command") || !run["command"].is_string())
    throw InvalidArgument(fmt::format("{}/run.json: no \"command\" naming the run's kind", path));
  const std::string kind = run["command"].get<std::string>();
  if (!known_kind(kind))
    throw InvalidArgument(fmt::format("{}: run kind '{}' has no figures (expected one of: {})",
                                      path, kind, kind_names()));
  // A run that did not complete wrote no results (a reproduce run draws what it has).
  const std::string status = run_status(run);
  if (kind != "reproduce" && status != "completed") {
    const std::string error = run.value("error", std::string());
    throw InvalidArgument(fmt::format("{}: the {} run is {}{}, expected a completed run to draw",
                                      path, kind, status, error.empty() ? "" : ": " + error));
  }
}

fs::path analysis_dir(const Options& o) {
  if (!o.analysis_dir.empty()) return o.analysis_dir;
  if (const char* env = std::getenv("COMPOPT_ANALYSIS_DIR")) return env;
  return fs::path(COMPOPT_SOURCE_DIR) / "analysis";
}

// Refuses everything that would stop the drawing before it starts.
fs::path check(const Options& o) {
  for (const std::string& path : o.paths) check_path(path);
  if (!o.out.empty() && fs::exists(o.out) && !fs::is_directory(o.out))
    throw InvalidArgument(fmt::format("--out {}: exists and is not a directory", o.out));
  fs::path script = analysis_dir(o) / "plot_run.py";
  if (!fs::is_regular_file(script))
    throw InvalidArgument(
        fmt::format("--analysis-dir {}: no plot_run.py in it, expected compopt's analysis/ folder",
                    analysis_dir(o).string()));
  if (!fs::exists(kPython))
    throw std::runtime_error(
        fmt::format("{} not found: the figures need Debian's python3 with python3-matplotlib "
                    "(bash scripts/install_deps.sh)",
                    kPython));
  return script;
}

// Runs python3 plot_run.py [--out DIR] PATH...; returns its exit status.
int run_script(const fs::path& script, const Options& o) {
  std::vector<std::string> args = {kPython, script.string()};
  if (!o.out.empty()) args.insert(args.end(), {"--out", o.out});
  args.insert(args.end(), o.paths.begin(), o.paths.end());
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(nullptr);
  pid_t pid = 0;
  const int err = posix_spawn(&pid, kPython, nullptr, nullptr, argv.data(), environ);
  if (err != 0)
    throw std::runtime_error(fmt::format("cannot start {}: {}", kPython, std::strerror(err)));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error("waitpid failed for the plotting script");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void run(const Options& o) {
  const fs::path script = check(o);
  const int status = run_script(script, o);
  if (status == 2)
    throw InvalidArgument("a CSV or trace could not be drawn (the line above names it)");
  if (status != 0)
    throw std::runtime_error(fmt::format("{} exited with status {}", script.string(), status));
}

}  // namespace

void register_plot_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "plot", "Draw run directories by their kind (train, sweep, profile, reproduce)");
  cmd->add_option("RUN_DIR", o->paths,
                  "run directories (their run.json says the kind) or trace .json files")
      ->required();
  cmd->add_option("--out", o->out, "write every figure here (default: RUN_DIR/figures/)");
  cmd->add_option("--analysis-dir", o->analysis_dir,
                  "folder of plot_run.py (default: the source tree's analysis/)");
  std::string footer = "Kinds and their figures:\n";
  for (const Kind& k : kKinds) footer += fmt::format("  {:<10} {}\n", k.name, k.figures);
  footer += "  a trace .json file (profile --trace FILE): timeline and time per span\n";
  cmd->footer(footer);
  cmd->callback([o] { run(*o); });
}

}  // namespace compopt::cli
