// `compopt sweep`: what-if study over a TOML config (workload, cluster, sweep
// axes), each scenario simulated by the step simulator in its own forked
// process (SimGrid allows one engine per process), all cores at once. Writes
// sweep.csv (one row per scenario and optimizer stage) and run.json; bad input
// fails before any work with exit code 2 and leaves earlier results untouched.

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <cstdio>

#include "core/util/error.h"
#include "experiments/commands.h"
#include "experiments/forked_jobs.h"
#include "experiments/memory_estimates.h"
#include "experiments/option_ranges.h"
#include "experiments/run_directory.h"
#include "experiments/sweep_config.h"
#include "experiments/sweep_totals.h"
#include "net_models/cluster_presets.h"
#include "net_models/workload.h"
#include "sim/scenario.h"

namespace compopt::cli {
namespace {

struct Options {
  std::string config;
  std::vector<std::string> sets;
  int jobs = 0;
  std::string out;
  bool overwrite = false;
};

class Progress {
 public:
  explicit Progress(size_t total) : total_(total), tty_(isatty(fileno(stderr)) != 0) {}
  void done(const sim::Scenario& s) {
    ++done_;
    if (tty_) {
      const size_t width = 30, filled = width * done_ / total_;
      fmt::print(stderr, "\r[{}{}] {}/{} scenarios", std::string(filled, '#'),
                 std::string(width - filled, ' '), done_, total_);
      if (done_ == total_) fmt::print(stderr, "\n");
    } else {
      fmt::print(stderr, "scenario {}/{} done: {} {} gpus={}\n", done_, total_, s.workload,
                 s.optimizer, s.gpus);
    }
  }

 private:
  size_t total_, done_ = 0;
  bool tty_;
};

// Simulates every scenario in its own forked process, `jobs` at a time; returns
// their CSV rows in order.
std::vector<std::string> run_all(const std::vector<sim::Scenario>& scenarios, int jobs) {
  Progress progress(scenarios.size());
  return run_forked({.count = scenarios.size(),
                     .parallel = jobs,
                     .work =
                         [&](size_t i) {
                           const sim::StepConfig config = sim::resolve_scenario(scenarios[i]);
                           return sim::scenario_csv_rows(config, scenarios[i].training,
                                                         sim::simulate_step(config));
                         },
                     .describe =
                         [&](size_t i) {
                           return fmt::format("scenario {} ({} on {} GPUs)", i + 1,
                                              scenarios[i].optimizer, scenarios[i].gpus);
                         },
                     .on_done = [&](size_t i) { progress.done(scenarios[i]); }});
}

// The largest GPU count of the scenarios (each already checked by load_sweep_config).
int largest_gpus(const std::vector<sim::Scenario>& scenarios) {
  int gpus = 0;
  for (const sim::Scenario& s : scenarios)
    gpus = std::max(gpus, sim::resolve_scenario(s).cluster.gpus());
  return gpus;
}

void run(const Options& o) {
  const SweepConfig config =
      load_sweep_config(o.config, o.sets);  // all bad input fails here, exit 2
  const std::vector<sim::Scenario>& scenarios = config.scenarios;
  const int jobs = parallel_jobs(o.jobs);
  check_simulation_memory(largest_gpus(scenarios),
                          std::min(jobs, static_cast<int>(scenarios.size())), "sweep.gpus",
                          MemoryBudget::of_this_machine());
  RunDirectory dir("sweep", o.out, out_mode(o.overwrite));
  fmt::print("compopt sweep: {} scenarios from {}, {} at a time\n", scenarios.size(), o.config,
             jobs);
  dir.write_run_json({{"config_file", o.config},
                      {"config", config.resolved},
                      {"scenarios", scenarios.size()},
                      {"backend", "sim"}});
  dir.run([&] {
    std::string csv = sim::scenario_csv_header();
    for (const std::string& rows : run_all(scenarios, jobs)) csv += rows;
    dir.write_file("sweep.csv", finish_sweep_csv(csv, scenarios.front().training));
  });
  fmt::print("wrote {}/sweep.csv ({} scenarios) and run.json\n", dir.path().string(),
             scenarios.size());
}

}  // namespace

void register_sweep_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "sweep", "Simulate a grid of scenarios from a TOML config (what-if study)");
  cmd->add_option("config", o->config, "TOML config (see experiments/configs/sweep_*.toml)")
      ->required();
  cmd->add_option("--set", o->sets, "override a config key, e.g. --set sweep.gpus=[8,16]");
  cmd->add_option("--jobs", o->jobs, "parallel scenarios (0 = all cores)")
      ->check(in_range("--jobs", 0, kMaxJobs, "processes at once, 0 = all cores"))
      ->capture_default_str();
  cmd->add_option("--out", o->out, "run directory (default runs/sweep-<time>)");
  cmd->footer(fmt::format(
      "Workload presets (workload.name):\n{}Cluster presets (cluster.preset):\n{}Optimizers "
      "(sweep.optimizers): {}",
      net::workload_registry().help_lines(), net::cluster_registry().help_lines(),
      fmt::join(sim::step_optimizer_names(), ", ")));
  add_overwrite_flag(*cmd, o->overwrite);
  cmd->callback([o] { run(*o); });
}

}  // namespace compopt::cli
