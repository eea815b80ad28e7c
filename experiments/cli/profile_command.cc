// `compopt profile [CONFIG.toml]`: simulates one training step of a workload on a cluster
// for an optimizer (SimGrid, scaled proxy) and prints the step-time breakdown of 1-bit Adam's
// Table 1 (forward, backward allreduce, backward else, step, allreduce %). The scenario is
// CONFIG.toml (the sweep config `compopt sweep` reads, one value per [sweep] list), the flags
// over it and the --set keys last (profile_scenario.h). Every profile carries low..high
// band over the scenario's measured inputs (sim/step_spread.h). `--trace [FILE]` also writes
// a Chrome/Perfetto trace of the simulated step (sim/step_trace.h) to FILE, or to trace.json
// in the run directory when no FILE is given. `--export-platform FILE` writes the resolved
// cluster's SimGrid platform instead of simulating. The checks against published
// measurements are `compopt validate` (validate_command.cc). `--sensitivity` also moves each
// uncertain input over its range against the optimizer's baseline (sensitivity_option.h).

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "core/util/error.h"
#include "core/util/file_io.h"
#include "core/util/io_error.h"
#include "experiments/cli/commands.h"
#include "experiments/cli/profile_report.h"
#include "experiments/cli/profile_scenario.h"
#include "experiments/cli/sensitivity_option.h"
#include "experiments/run_directory/run_directory.h"
#include "experiments/scenario/cluster_table.h"
#include "experiments/scenario/forked_jobs.h"
#include "experiments/scenario/forked_simulation.h"
#include "experiments/scenario/host_memory.h"
#include "experiments/scenario/scenario_rows.h"
#include "experiments/scenario/speedup_baseline.h"
#include "experiments/scenario/tuned_baseline_columns.h"
#include "net_models/cluster_presets.h"
#include "net_models/cluster_xml.h"
#include "net_models/compute_model.h"
#include "net_models/gpu_spec.h"
#include "net_models/workload.h"
#include "sim/allreduce_algorithm.h"
#include "sim/backend/sim_backend.h"
#include "sim/framework_collectives.h"
#include "sim/implementation_profile.h"
#include "sim/scenario.h"
#include "sim/step_trace.h"
#include "sim/tuned_baseline.h"

namespace compopt::cli {
namespace {

struct Options {
  std::string config;            // CONFIG.toml; empty: none
  sim::Scenario scenario;        // the flags', then the resolved one (profile_scenario.h)
  std::string overlap = "auto";  // --overlap, parsed into scenario.overlap
  std::vector<std::string> sets;
  std::string out;
  bool overwrite = false;
  bool trace = false;          // --trace given
  bool tune_baseline = false;  // --tune-baseline given
  std::string trace_file;      // its value; empty: trace.json in the run directory
  std::string export_platform;
  bool sensitivity = false;  // --sensitivity
};

// The header's note on overlap: nothing for auto, the override otherwise.
std::string overlap_note(sim::OverlapMode mode) {
  if (mode == sim::OverlapMode::kAuto) return "";
  return ", overlap " + sim::overlap_mode_name(mode);
}

// Refuses a --trace FILE that is a directory, a .toml file (--trace took the CONFIG.toml
// meant as the positional argument: writing the trace would replace it) or whose folder is
// missing or not writable, before anything is simulated.
void check_trace_file(const std::string& file) {
  if (file.empty()) return;
  namespace fs = std::filesystem;
  if (fs::path(file).extension() == ".toml") {
    throw InvalidArgument(fmt::format(
        "--trace {}: expected a trace file name (.json), not a config; write CONFIG.toml "
        "before --trace, or --trace=FILE",
        file));
  }
  std::error_code ec;
  if (fs::is_directory(file, ec))
    throw InvalidArgument(fmt::format("--trace {}: is a directory, expected a file name", file));
  const fs::path parent =
      fs::path(file).parent_path().empty() ? fs::path(".") : fs::path(file).parent_path();
  if (!fs::is_directory(parent, ec)) {
    throw InvalidArgument(fmt::format(
        "--trace {}: {} is not a directory, expected an existing folder", file, parent.string()));
  }
  if (::access(parent.c_str(), W_OK) != 0) {
    throw InvalidArgument(
        fmt::format("--trace {}: folder {} is not writable", file, parent.string()));
  }
}

// Writes the trace where --trace asked; returns the path it went to.
std::string write_trace(const Options& o, const sim::StepConfig& config,
                        const std::vector<sim::StageTiming>& timings,
                        const std::vector<sim::StagePhases>& phases, const RunDirectory& dir) {
  const std::string text = sim::step_trace(config, timings, phases).dump();
  if (o.trace_file.empty()) {
    dir.write_file("trace.json", text);
    return (dir.path() / "trace.json").string();
  }
  write_file_atomic(o.trace_file, text, dir.env());
  return o.trace_file;
}

// The uncompressed baseline of `config` (speedup_baseline.h) as NCCL's default runs it and
// tuned (sim/tuned_baseline.h), simulated in this process.
ScenarioBaseline tuned_baseline(const sim::StepConfig& config,
                                const std::string& training_baseline) {
  sim::StepConfig baseline = config;
  baseline.optimizer = speedup_baseline(config.optimizer, training_baseline);
  return {baseline.optimizer, sim::tune_baseline(baseline)};
}

// --sensitivity's one analysis, checked before any work; none without the flag.
std::vector<SensitivityPlan> sensitivity_plans(const Options& o, const sim::StepConfig& config) {
  if (!o.sensitivity) return {};
  const std::string baseline =
      sensitivity_baseline(config.optimizer, o.scenario.training.baseline, "--sensitivity");
  const std::string label = fmt::format("{} on {} GPUs of {}", config.workload.name,
                                        config.cluster.gpus(), config.cluster.name);
  std::vector<SensitivityPlan> plans = {plan_sensitivity(config, baseline, label)};
  check_simulation_memory(plan_scenarios(plans), parallel_jobs(0), "--gpus",
                          MemoryBudget::of_this_machine());
  return plans;
}

void run_profile(const Options& o) {
  const sim::StepConfig config = sim::resolve_scenario(o.scenario);
  // This process, and the band's runs in children (simulate_spread_forked), `band_jobs` at once.
  const int band_jobs = parallel_jobs(0);
  check_simulation_memory({o.scenario}, 1 + band_jobs, "--gpus", MemoryBudget::of_this_machine());
  const std::vector<SensitivityPlan> plans = sensitivity_plans(o, config);
  check_trace_file(o.trace_file);
  // Simulated before the run directory exists: a platform file SimGrid refuses leaves nothing.
  std::vector<sim::StagePhases> phases;
  const std::vector<sim::StageTiming> timings =
      sim::simulate_step(config, o.trace ? &phases : nullptr);
  RunDirectory dir("profile", o.out, out_mode(o.overwrite));
  std::string trace_path;
  dir.run([&] {
    const net::ClusterSpec& k = config.cluster;
    fmt::print(
        "compopt profile: {} on {} ({} nodes x {} {}, {}, NIC {} Gbit/s between nodes, {:.6g} "
        "Gbit/s effective at efficiency {}), {}, batch {} x {} accumulation{}\n",
        config.workload.name, k.name, k.nodes, k.gpus_per_node, k.gpu.name,
        net::topology_name(k.topology), k.inter_node_gbps,
        k.inter_node_gbps * k.inter_node_efficiency, k.inter_node_efficiency, config.optimizer,
        config.batch_per_gpu, config.grad_accum, overlap_note(config.overlap));
    fmt::print(
        "{}\n{}\n", cluster_origin(k, o.scenario.cluster_spec.has_value()),
        net::compute_summary(config.workload, k.gpu, config.batch_per_gpu, config.grad_accum));
    print_implementation(config);
    print_breakdown_header();
    const sim::ScenarioTotals totals = sim::scenario_totals(
        config, o.scenario.training, timings, simulate_spread_forked(config, band_jobs),
        simulate_phases_forked(o.scenario, band_jobs));
    for (const sim::StageTiming& t : timings) print_breakdown_row(t);
    print_bounds(config, timings, totals);
    const std::optional<ScenarioBaseline> baseline =
        o.tune_baseline ? std::optional(tuned_baseline(config, o.scenario.training.baseline))
                        : std::nullopt;
    print_baseline(config, timings.back(), baseline);
    print_training(totals);
    print_memory(config, totals);
    std::string csv = profile_csv(config, timings, totals);
    if (baseline) csv = with_tuned_baseline_columns(csv, {{timings, std::nullopt}}, {*baseline});
    dir.write_file("profile.csv", csv);
    if (o.trace) trace_path = write_trace(o, config, timings, phases, dir);
    nlohmann::json run = {{"workload", config.workload.name},
                          {"cluster", o.scenario.cluster},
                          {"optimizer", config.optimizer},
                          {"gpus", config.cluster.gpus()},
                          {"inter_node_gbps", config.cluster.inter_node_gbps},
                          {"topology", std::string(net::topology_name(config.cluster.topology))},
                          {"gpu", config.cluster.gpu.name},
                          {"batch_per_gpu", config.batch_per_gpu},
                          {"grad_accum", config.grad_accum},
                          {"overlap", sim::overlap_mode_name(config.overlap)},
                          {"implementation", config.implementation},
                          {"buckets_used", buckets_used(timings)},
                          {"algorithm", algorithms(timings)},
                          {"compute_utilization", timings.front().compute_utilization},
                          {"compute_utilization_source",
                           net::utilization_source_kind(net::compute_times(
                               config.workload, k.gpu, config.batch_per_gpu, config.grad_accum))},
                          {"band", band_json(config, timings, totals)},
                          {"platform_file", o.scenario.platform_file},
                          {"config_file", o.config},
                          {"sets", o.sets},  // the --set keys as given: workload, cluster, training
                          {"backend", sim::kSimBackendName}};
    if (baseline) run["tuned_baseline"] = tuned_baseline_json(*baseline);
    if (!plans.empty()) run["sensitivity"] = write_sensitivity(plans, 0, dir);
    dir.write_run_json(run);
  });
  fmt::print("\nwrote {}/profile.csv{} and run.json\n", dir.path().string(),
             plans.empty() ? "" : ", sensitivity.csv");
  if (o.trace) fmt::print("wrote trace {} (open it in https://ui.perfetto.dev)\n", trace_path);
}

// --export-platform: the resolved cluster's platform XML, written instead of simulating.
void run_export(const Options& o) {
  const sim::StepConfig config = sim::resolve_scenario(o.scenario);
  const std::string xml = net::platform_xml(config.cluster);
  try {
    write_file_atomic(o.export_platform, xml);
  } catch (const IoError& e) {
    throw InvalidArgument(fmt::format("--export-platform '{}': {}", o.export_platform, e.what()));
  }
  fmt::print("wrote {}: cluster '{}', {} nodes x {} GPUs (simulate on it with --platform {})\n",
             o.export_platform, config.cluster.name, config.cluster.nodes,
             config.cluster.gpus_per_node, o.export_platform);
}

// The checks that were profile flags before they became `compopt validate`'s
// sub-subcommands, each with the command that runs it now (--fit and --cross-validate came
// with --calibration, so they are looked at first).
constexpr std::pair<const char*, const char*> kMovedFlags[] = {
    {"--fit", "validate fit"},
    {"--cross-validate", "validate cross-validate"},
    {"--public-checks", "validate public-checks"},
    {"--calibration", "validate calibration"},
};

// Registers the moved flags, hidden from --help, so that they can be refused by name.
void add_moved_flags(CLI::App& cmd) {
  for (const auto& [flag, command] : kMovedFlags) cmd.add_flag(flag)->group("");
}

void refuse_moved_flags(const CLI::App& cmd) {
  for (const auto& [flag, command] : kMovedFlags) {
    if (cmd.get_option(flag)->count() == 0) continue;
    throw InvalidArgument(
        fmt::format("{}: the checks against published measurements are their own command now: run "
                    "`compopt {}` (compopt validate --help lists them)",
                    flag, command));
  }
}

// The long names of the options given on the command line (e.g. "--gpus").
std::vector<std::string> given_flags(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::Option* option : cmd.get_options())
    if (option->count() > 0) names.push_back(option->get_name());
  return names;
}

// --overlap's value: an overlap mode; the message of another word says how a bare --overlap
// reads the word after it.
CLI::Validator overlap_mode_check() {
  return CLI::Validator(
      [](std::string& value) {
        try {
          sim::parse_overlap_mode(value);
          return std::string();
        } catch (const InvalidArgument& e) {
          return std::string(e.what()) +
                 " (a bare --overlap takes the word after it as its value: write --overlap=on "
                 "before a positional)";
        }
      },
      "");
}

// The flags that shape the scenario beyond its presets: size, network, batch, overlap.
void add_scenario_flags(CLI::App& cmd, Options& o) {
  cmd.add_option("--gpus", o.scenario.gpus, "GPUs (0 = the preset's)")->capture_default_str();
  cmd.add_option("--gpus-per-node,--ranks-per-node", o.scenario.gpus_per_node,
                 "GPUs per node (0 = the preset's; --ranks-per-node is an alias)");
  cmd.add_option("--inter-node-gbps", o.scenario.inter_node_gbps,
                 "NIC bandwidth (0 = the preset's)");
  cmd.add_option("--topology", o.scenario.topology,
                 "star, fat-tree, torus or dragonfly (default: the preset's)");
  cmd.add_option("--batch-per-gpu", o.scenario.batch_per_gpu,
                 "micro-batch per GPU (0 = the workload's)");
  cmd.add_option("--grad-accum", o.scenario.grad_accum, "gradient accumulation steps")
      ->capture_default_str();
  // --overlap off, --overlap=off and a bare --overlap (= on) alike. A bare --overlap takes
  // the word after it as its value (a positional too, refused by the check), so write
  // --overlap=on or put it after the positional.
  cmd.add_flag("--overlap{on}", o.overlap,
               "auto: each stage overlaps backward (bucketed) as --implementation issues it "
               "(docs/implementations.md); on (bare --overlap): every stage; off: "
               "none. A bare --overlap takes the word after it as its value: before a "
               "positional, write --overlap=on")
      ->expected(0, 1)
      ->type_name("[auto|on|off]")
      ->check(overlap_mode_check())
      ->capture_default_str();
  cmd.add_option("--buckets", o.scenario.buckets,
                 "buckets of an overlapped stage (0 = the implementation's bucket size)");
  cmd.add_option("--implementation", o.scenario.implementation,
                 "software the step runs on: " + sim::implementation_registry().expected() +
                     " (docs/implementations.md)")
      ->capture_default_str();
  cmd.add_flag("--tune-baseline", o.tune_baseline,
               "also run the uncompressed baseline tuned (each allreduce algorithm, then bucket "
               "counts; 2 to 6 more simulations) and print speedups against NCCL's default and "
               "the tuned baseline");
}

}  // namespace

void register_profile_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "profile", "Simulate one training step (SimGrid, scaled proxy) and print its time breakdown");
  cmd->add_option("config", o->config,
                  "CONFIG.toml: a sweep config of one scenario (one value per [sweep] list); the "
                  "flags and --set keys apply over it");
  cmd->add_option("--workload", o->scenario.workload,
                  "workload preset: " + net::workload_registry().expected())
      ->capture_default_str();
  cmd->add_option("--cluster", o->scenario.cluster,
                  "cluster preset: " + net::cluster_registry().expected())
      ->capture_default_str();
  cmd->add_option("--gpu", o->scenario.gpu,
                  "GPU of every node (default: the cluster's): " + net::gpu_registry().expected());
  cmd->add_option("--platform", o->scenario.platform_file,
                  "SimGrid platform XML replacing the preset's");
  cmd->add_option("--optimizer", o->scenario.optimizer,
                  "any registered optimizer or alias (docs/optimizers.md, e.g. adam, momentum-sgd, "
                  "onebit-adam, birder)")
      ->capture_default_str();
  add_scenario_flags(*cmd, *o);
  cmd->add_option("--set", o->sets,
                  "key=value of a sweep config for one scenario, over CONFIG.toml and the flags "
                  "(repeatable), e.g. --set workload.name=bert-large --set "
                  "cluster.gpus_per_node=8");
  add_moved_flags(*cmd);
  cmd->add_option("--out", o->out, "run directory (default runs/profile-<time>)")
      ->check(non_empty_out());
  CLI::Option* trace =
      cmd->add_option("--trace", o->trace_file,
                      "also write a Chrome/Perfetto trace of the simulated step to FILE "
                      "(without FILE: trace.json in the run directory)")
          ->expected(0, 1)
          ->type_name("[FILE]");
  cmd->add_option("--export-platform", o->export_platform,
                  "write the SimGrid platform XML of the resolved cluster to this file and exit "
                  "(star and fat-tree clusters)");
  cmd->footer("Workload presets:\n" + net::workload_registry().help_lines() + "Cluster presets:\n" +
              net::cluster_registry().help_lines() +
              "--set keys: those of a sweep config (docs/simulator.md), one value each.");
  add_sensitivity_flag(*cmd, o->sensitivity);
  add_overwrite_flag(*cmd, o->overwrite);
  cmd->callback([o, trace, cmd] {
    refuse_moved_flags(*cmd);
    o->trace = trace->count() > 0;
    o->scenario.overlap = sim::parse_overlap_mode(o->overlap);
    bool config_tunes = false;  // [sweep] tune_baseline = true in the file or a --set
    o->scenario =
        profile_scenario(o->config, o->scenario, given_flags(*cmd), o->sets, &config_tunes);
    o->tune_baseline = o->tune_baseline || config_tunes;
    if (!o->export_platform.empty() && o->sensitivity) {
      throw InvalidArgument(
          "--sensitivity with --export-platform: --export-platform writes the platform instead "
          "of simulating, so there is no speedup to analyse; expected one of the two");
    }
    if (!o->export_platform.empty()) return run_export(*o);
    run_profile(*o);
  });
}

}  // namespace compopt::cli
