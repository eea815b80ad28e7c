// `compopt sweep`: what-if study over a TOML config (workload, cluster, sweep
// axes), each scenario simulated by the step simulator in its own forked
// process (SimGrid allows one engine per process), all cores at once. Writes
// sweep.csv (one row per scenario and optimizer stage) and run.json, and prints
// the speedup table of sweep_summary.h; bad input fails before any work with
// exit code 2 and leaves earlier results untouched. Under mpirun the scenarios
// spread over the ranks (sweep_distribution.h) and rank 0 writes the results. `--sensitivity`
// then analyses each scenario of a compressed optimizer on rank 0 (sensitivity_option.h);
// `--tune-baseline` (or [sweep] tune_baseline = true) runs each scenario's baseline tuned there
// too and adds its columns (tuned_baseline_columns.h). The header and run.json state what the
// rows were charged: implementation, algorithm, buckets used, compute utilisation and its source.

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "core/util/csv_table.h"
#include "core/util/error.h"
#include "experiments/cli/commands.h"
#include "experiments/cli/sensitivity_option.h"
#include "experiments/run_directory/run_directory.h"
#include "experiments/scenario/forked_simulation.h"
#include "experiments/scenario/host_memory.h"
#include "experiments/scenario/option_ranges.h"
#include "experiments/scenario/scenario_origin.h"
#include "experiments/scenario/scenario_rows.h"
#include "experiments/scenario/sweep_config.h"
#include "experiments/scenario/sweep_distribution.h"
#include "experiments/scenario/sweep_summary.h"
#include "experiments/scenario/sweep_totals.h"
#include "experiments/scenario/tuned_baseline_columns.h"
#include "net_models/cluster_presets.h"
#include "net_models/workload.h"
#include "sim/backend/sim_backend.h"
#include "sim/implementation_profile.h"
#include "sim/scenario.h"

namespace compopt::cli {
namespace {

struct Options {
  std::string config;
  std::vector<std::string> sets;
  std::string implementation;  // --implementation: one more --set, applied last
  int jobs = 0;
  std::string out;
  bool overwrite = false;
  bool sensitivity = false;    // --sensitivity
  bool tune_baseline = false;  // --tune-baseline
};

class Progress {
 public:
  Progress(size_t total, std::string prefix)
      : total_(total), prefix_(std::move(prefix)), tty_(isatty(fileno(stderr)) != 0) {}
  void done(const sim::Scenario& s) {
    ++done_;
    if (tty_) {
      const size_t width = 30, filled = width * done_ / total_;
      fmt::print(stderr, "\r{}[{}{}] {}/{} scenarios", prefix_, std::string(filled, '#'),
                 std::string(width - filled, ' '), done_, total_);
      if (done_ == total_) fmt::print(stderr, "\n");
    } else {
      fmt::print(stderr, "{}scenario {}/{} done: {} {} gpus={}\n", prefix_, done_, total_,
                 s.workload, s.optimizer, s.gpus);
    }
  }

 private:
  size_t total_, done_ = 0;
  std::string prefix_;
  bool tty_;
};

// Simulates the scenarios `indexes` each in its own forked process, `jobs` at a time, with
// the runs of their measured inputs; their steps in that order.
std::vector<SimulatedStep> run_share(const std::vector<sim::Scenario>& scenarios,
                                     const std::vector<size_t>& indexes, int jobs,
                                     const SweepWorld& world) {
  Progress progress(indexes.size(),
                    world.size > 1 ? fmt::format("rank {}/{}: ", world.rank, world.size) : "");
  return simulate_forked(scenarios, indexes,
                         {.parallel = jobs, .spread = true, .on_done = [&](size_t k) {
                            progress.done(scenarios[indexes[k]]);
                          }});
}

// Under mpirun: sends this rank's steps to rank 0; there, returns every scenario's, in order.
std::vector<SimulatedStep> gather_steps(const SweepWorld& world, size_t count,
                                        const std::vector<SimulatedStep>& mine) {
  std::vector<std::string> texts;
  texts.reserve(mine.size());
  for (const SimulatedStep& step : mine) texts.push_back(encode_simulated_step(step));
  const std::vector<std::string> gathered = gather_results(world, count, texts);
  std::vector<SimulatedStep> all;
  all.reserve(gathered.size());
  for (const std::string& text : gathered) all.push_back(decode_simulated_step(text));
  return all;
}

// A platform file SimGrid refuses is bad input found only by loading it: one scenario of each
// platform file is simulated (forked) before the run directory exists, so such a sweep exits 2
// and leaves nothing behind, as profile does.
void check_platform_files(const std::vector<sim::Scenario>& scenarios) {
  std::map<std::string, size_t> first;  // platform file -> its first scenario
  for (size_t i = 0; i < scenarios.size(); ++i) {
    // The file as resolve_scenario takes it, without resolving every scenario once more.
    std::string file = scenarios[i].platform_file;
    if (file.empty() && scenarios[i].cluster_spec) file = scenarios[i].cluster_spec->platform_file;
    if (!file.empty()) first.emplace(file, i);
  }
  std::vector<size_t> indexes;
  indexes.reserve(first.size());
  for (const auto& [file, i] : first) indexes.push_back(i);
  if (!indexes.empty()) simulate_forked(scenarios, indexes, {.parallel = 1});
}

// Distinct cluster and compute lines the header prints before counting the rest.
constexpr size_t kOriginLines = 8;
// Lines of the tuned-baseline report printed before counting the rest.
constexpr size_t kBaselineLines = 24;

// run.json's record of what the rows were charged: each distinct (implementation, optimizer,
// stage, algorithm, buckets used, compute utilisation and its source) with its row count.
nlohmann::json charged_json(const std::vector<SweepRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  std::map<std::string, size_t> index;  // a charge's fields, joined -> its entry in `out`
  for (const SweepRow& r : rows) {
    const std::string key =
        fmt::format("{}|{}|{}|{}|{}|{}|{}", r.implementation, r.optimizer, r.stage, r.algorithm,
                    r.buckets_used, r.compute_utilization, r.compute_utilization_source);
    const auto [at, added] = index.emplace(key, out.size());
    if (added) {
      out.push_back({{"implementation", r.implementation},
                     {"optimizer", r.optimizer},
                     {"stage", r.stage},
                     {"algorithm", r.algorithm},
                     {"buckets_used", r.buckets_used},
                     {"compute_utilization", r.compute_utilization},
                     {"compute_utilization_source", r.compute_utilization_source},
                     {"rows", 0}});
    }
    nlohmann::json& entry = out[at->second];
    entry["rows"] = entry["rows"].get<int>() + 1;
  }
  return out;
}

// With --tune-baseline: the baselines' lines, the tuned columns appended to `csv` and the
// baselines in run.json; without, a line saying how to get them.
std::string add_tuned_baseline(bool tune, const std::vector<sim::Scenario>& scenarios,
                               const std::vector<SimulatedStep>& steps, int jobs, std::string csv,
                               nlohmann::json& run_json) {
  if (!tune) {
    fmt::print(
        "\nbaseline: NCCL's default algorithm and buckets; --tune-baseline also runs each "
        "baseline tuned and compares\n");
    return csv;
  }
  const std::vector<ScenarioBaseline> baselines = tune_scenario_baselines(scenarios, jobs);
  fmt::print("\ntuned baseline (each algorithm at the default's buckets, then bucket counts):\n{}",
             tuned_baseline_report(scenarios, steps, baselines, kBaselineLines));
  nlohmann::json records = nlohmann::json::array();  // one per scenario, in order
  for (const ScenarioBaseline& b : baselines) records.push_back(tuned_baseline_json(b));
  run_json["tuned_baseline"] = std::move(records);
  return with_tuned_baseline_columns(csv, steps, baselines);
}

// With [training] phases: the run the hours of sweep.csv are of (the first scenario's phases),
// since the printed step times are the scenario's own workload's.
void print_phases(const std::string& csv, const sim::TrainingSpec& training) {
  if (training.phases.empty()) return;
  fmt::print(
      "\ntime to train in sweep.csv: each run in training.phases (column training_phases), e.g. "
      "{}; the step times above are the [workload]'s\n",
      CsvTable(csv, "sweep.csv").text(0, "training_phases"));
}

void run(const Options& o) {
  const SweepWorld world = sweep_world_from_env();
  check_sweep_world(world);
  std::vector<std::string> sets = o.sets;
  if (!o.implementation.empty()) sets.push_back("sweep.implementation=" + o.implementation);
  const SweepConfig config = load_sweep_config(o.config, sets);  // all bad input fails here, exit 2
  const std::vector<sim::Scenario>& scenarios = config.scenarios;
  const std::vector<size_t> mine = scenarios_of_rank(scenarios.size(), world);
  const int jobs = jobs_per_rank(o.jobs, world);
  // The job's ranks on this machine share its memory.
  const int at_once = std::max(1, std::min(jobs, static_cast<int>(mine.size()))) * world.local_size;
  check_simulation_memory(scenarios, at_once, "sweep.gpus", MemoryBudget::of_this_machine());
  check_platform_files(scenarios);
  const std::vector<SensitivityPlan> plans =
      o.sensitivity ? sweep_sensitivity_plans(scenarios, "--sensitivity")
                    : std::vector<SensitivityPlan>{};
  if (!plans.empty())
    check_simulation_memory(plan_scenarios(plans), jobs, "sweep.gpus",
                            MemoryBudget::of_this_machine());
  const bool tune = o.tune_baseline || config.tune_baseline;
  if (tune) {
    check_simulation_memory(baseline_scenarios(scenarios), jobs, "sweep.gpus",
                            MemoryBudget::of_this_machine());
  }
  if (world.rank != 0) {  // a further MPI rank: simulate its share, send it to rank 0
    gather_steps(world, scenarios.size(), run_share(scenarios, mine, jobs, world));
    return;
  }
  RunDirectory dir("sweep", o.out, out_mode(o.overwrite));
  fmt::print("compopt sweep: {} scenarios from {}, {} at a time{}\n", scenarios.size(), o.config,
             jobs, world.size > 1 ? fmt::format(" on each of {} MPI ranks", world.size) : "");
  for (const std::string& line : scenario_origin_lines(scenarios, kOriginLines))
    fmt::print("{}\n", line);
  nlohmann::json run_json = {{"config_file", o.config},       {"config", config.resolved},
                             {"scenarios", scenarios.size()}, {"backend", sim::kSimBackendName},
                             {"ranks", world.size},           {"tune_baseline", tune}};
  dir.write_run_json(run_json);
  const sim::TrainingSpec& training = scenarios.front().training;
  std::vector<SweepRow> rows;
  dir.run([&] {
    std::vector<SimulatedStep> steps = run_share(scenarios, mine, jobs, world);
    if (world.size > 1) steps = gather_steps(world, scenarios.size(), steps);
    std::string csv = finish_sweep_csv(sweep_csv(scenarios, steps, rows), training);
    fmt::print("\n{}", sweep_summary(rows, training.baseline));
    print_phases(csv, training);
    run_json["charged"] = charged_json(rows);
    csv = add_tuned_baseline(tune, scenarios, steps, jobs, std::move(csv), run_json);
    dir.write_file("sweep.csv", csv);
    dir.write_run_json(run_json);
    if (plans.empty()) return;
    run_json["sensitivity"] = write_sensitivity(plans, jobs, dir);
    dir.write_run_json(run_json);
  });
  fmt::print("\nwrote {}/sweep.csv ({} scenarios){} and run.json\n", dir.path().string(),
             scenarios.size(), plans.empty() ? "" : ", sensitivity.csv");
}

}  // namespace

void register_sweep_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "sweep", "Simulate a grid of scenarios from a TOML config (what-if study)");
  cmd->add_option("config", o->config, "TOML config (see experiments/configs/sweep_*.toml)")
      ->required();
  cmd->add_option("--set", o->sets, "override a config key, e.g. --set sweep.gpus=[8,16]");
  cmd->add_option(
         "--jobs", o->jobs,
         "parallel scenarios on each MPI rank (0 = the cores, shared by the machine's ranks)")
      ->check(in_range("--jobs", 0, kMaxJobs, "processes at once, 0 = all cores"))
      ->capture_default_str();
  cmd->add_option("--out", o->out, "run directory (default runs/sweep-<time>)")
      ->check(non_empty_out());
  cmd->footer(fmt::format(
      "Workload presets (workload.name):\n{}Cluster presets (cluster.preset):\n{}Optimizers "
      "(sweep.optimizers): {}",
      net::workload_registry().help_lines(), net::cluster_registry().help_lines(),
      fmt::join(sim::step_optimizer_names(), ", ")));
  add_sensitivity_flag(*cmd, o->sensitivity);
  cmd->add_flag("--tune-baseline", o->tune_baseline,
                "also run each scenario's uncompressed baseline tuned (each allreduce algorithm, "
                "then bucket counts) and add its columns and speedups (as [sweep] "
                "tune_baseline = true)");
  cmd->add_option("--implementation", o->implementation,
                  "the software of every scenario (as --set sweep.implementation=NAME): " +
                      sim::implementation_registry().expected());
  add_overwrite_flag(*cmd, o->overwrite);
  cmd->callback([o] { run(*o); });
}

}  // namespace compopt::cli
