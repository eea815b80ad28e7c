// `compopt profile`: simulates one training step of a workload on a cluster for
// an optimizer (SimGrid, scaled proxy) and prints the step-time breakdown of
// 1-bit Adam's Table 1 (forward, backward allreduce, backward else, step,
// allreduce %). `--calibration` runs the 13 published rows instead and prints
// predicted against published figures (docs/calibration.md); with `--fit` it fits the network
// parameters on them (sim/network_fit.h), with `--cross-validate` it predicts each row from the
// fit on the others (docs/validation.md). `--public-checks` predicts the public nccl-tests
// results instead (experiments/cli/public_checks.h), out of sample. Every profile carries low..high
// bounds at the
// cluster's bandwidth spread (sim/step_spread.h). `--trace [FILE]` also
// writes a Chrome/Perfetto trace of the simulated step (sim/step_trace.h) to FILE, or
// to trace.json in the run directory when no FILE is given.

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "core/util/csv_schema.h"
#include "core/util/error.h"
#include "core/util/file_io.h"
#include "core/util/io_error.h"
#include "core/util/median.h"
#include "experiments/cli/commands.h"
#include "experiments/cli/public_checks.h"
#include "experiments/run_directory/run_directory.h"
#include "experiments/scenario/host_memory.h"
#include "experiments/scenario/scenario_rows.h"
#include "experiments/scenario/sweep_config.h"
#include "net_models/calibration_rows.h"
#include "net_models/cluster_presets.h"
#include "net_models/cluster_xml.h"
#include "net_models/gpu_spec.h"
#include "net_models/workload.h"
#include "sim/network_fit.h"
#include "sim/scenario.h"
#include "sim/step_trace.h"

namespace compopt::cli {
namespace {

struct Options {
  sim::Scenario scenario;
  std::string overlap = "auto";  // --overlap, parsed into scenario.overlap
  std::vector<std::string> sets;
  bool calibration = false;
  bool fit = false;             // --fit: with --calibration, the network fit
  bool cross_validate = false;  // --cross-validate: with --calibration, leave-one-out
  bool public_checks = false;   // --public-checks: the public nccl-tests cases
  std::string out;
  bool overwrite = false;
  bool trace = false;      // --trace given
  std::string trace_file;  // its value; empty: trace.json in the run directory
  std::string export_platform;
};

// The header's note on overlap: nothing for auto, the override otherwise.
std::string overlap_note(sim::OverlapMode mode) {
  if (mode == sim::OverlapMode::kAuto) return "";
  return ", overlap " + sim::overlap_mode_name(mode);
}

// Refuses a --trace FILE that is a directory or whose folder is missing or not
// writable, before anything is simulated.
void check_trace_file(const std::string& file) {
  if (file.empty()) return;
  namespace fs = std::filesystem;
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

void print_breakdown(const sim::StepConfig& c, const sim::StageTiming& t) {
  fmt::print(
      "{:<14} {:>10.2f} {:>12.2f} {:>12.2f} {:>10.2f} {:>10.2f} {:>12.2f} {:>7.1f}% {:>12.1f}  "
      "{}\n",
      t.stage, 1e3 * t.forward_s, 1e3 * t.comm_s, 1e3 * t.backward_compute_s, 1e3 * t.compress_s,
      1e3 * t.step_s, 1e3 * t.step_time_s, t.allreduce_pct(), t.throughput_samples_s, t.algorithm);
  (void)c;
}

// The low..high bounds of each stage and where the spread comes from.
void print_bounds(const std::vector<sim::StageTiming>& timings, const sim::ScenarioTotals& totals) {
  fmt::print("\nlow..high at the bandwidth spread ({})\n", totals.spreads.source);
  for (const sim::StageTiming& t : timings) {
    const sim::StageBounds& b = totals.bounds.at(t.stage);
    fmt::print("{:<14} total ms {:.2f}..{:.2f}, samples/s {:.1f}..{:.1f}\n", t.stage,
               1e3 * b.step_time_low_s, 1e3 * b.step_time_high_s, b.throughput_low_samples_s,
               b.throughput_high_samples_s);
  }
}

// The [training] figures, when the config gives them, with their low..high bounds.
void print_training(const sim::ScenarioTotals& totals) {
  const sim::TrainingTime& t = totals.training;
  if (t.total_steps) {
    fmt::print("\ntime to train: {} steps ({} in the warmup stage): {:.4g} h ({:.4g}..{:.4g})\n",
               *t.total_steps, *t.warmup_steps, *t.time_to_train_h,
               *totals.training_low.time_to_train_h, *totals.training_high.time_to_train_h);
  }
  if (t.steps_to_target == sim::kNotReached) {
    fmt::print("time to target: the metrics run never reached the target\n");
  } else if (t.time_to_target_h) {
    fmt::print("time to target: {} steps: {:.4g} h ({:.4g}..{:.4g})\n", t.steps_to_target,
               *t.time_to_target_h, *totals.training_low.time_to_target_h,
               *totals.training_high.time_to_target_h);
  }
}

void print_memory(const sim::StepConfig& c, const sim::MemoryEstimate& m) {
  constexpr double kGb = 1e9;
  fmt::print(
      "\nmemory per GPU: weights {:.3f} GB, gradients {:.3f} GB, optimizer {:.3f} GB, "
      "activations {:.3f} GB (batch {}): {:.3f} GB of the {}'s {:.3f} GB\n",
      m.weights_bytes / kGb, m.gradients_bytes / kGb, m.optimizer_bytes / kGb,
      m.activations_bytes / kGb, c.batch_per_gpu, m.total_bytes() / kGb, c.cluster.gpu.name,
      m.gpu_bytes / kGb);
  if (!m.fits()) {
    fmt::print("warning: does not fit: {:.3f} GB needed per GPU > {:.3f} GB on the {}\n",
               m.total_bytes() / kGb, m.gpu_bytes / kGb, c.cluster.gpu.name);
  }
}

void run_profile(const Options& o) {
  const sim::StepConfig config = sim::resolve_scenario(o.scenario);
  check_simulation_memory(config.cluster.gpus(), 1, "--gpus", MemoryBudget::of_this_machine());
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
    fmt::print("compute: {} in {} on {} at {:.1f}% of its peak ({:.0f} TFLOP/s)\n\n",
               fmt::format("{:.1f} GFLOP/sample", (config.workload.forward_flops_per_sample +
                                                   config.workload.backward_flops()) /
                                                      1e9),
               net::precision_name(config.workload.compute_precision), k.gpu.name,
               100 * timings.front().compute_utilization,
               timings.front().compute_utilization *
                   k.gpu.peak_flops(config.workload.compute_precision) / 1e12);
    fmt::print("{:<14} {:>10} {:>12} {:>12} {:>10} {:>10} {:>12} {:>8} {:>12}  {}\n", "stage",
               "fwd ms", "allreduce ms", "bwd else ms", "compr ms", "step ms", "total ms", "AR %",
               "samples/s", "algorithm");
    const sim::ScenarioTotals totals = sim::scenario_totals(config, o.scenario.training, timings);
    for (const sim::StageTiming& t : timings) print_breakdown(config, t);
    print_bounds(timings, totals);
    print_training(totals);
    print_memory(config, totals.memory);
    dir.write_file("profile.csv", profile_csv(config, timings, totals));
    if (o.trace) trace_path = write_trace(o, config, timings, phases, dir);
    dir.write_run_json({{"workload", config.workload.name},
                        {"cluster", o.scenario.cluster},
                        {"optimizer", config.optimizer},
                        {"gpus", config.cluster.gpus()},
                        {"inter_node_gbps", config.cluster.inter_node_gbps},
                        {"topology", std::string(net::topology_name(config.cluster.topology))},
                        {"gpu", config.cluster.gpu.name},
                        {"batch_per_gpu", config.batch_per_gpu},
                        {"grad_accum", config.grad_accum},
                        {"overlap", sim::overlap_mode_name(config.overlap)},
                        {"platform_file", o.scenario.platform_file},
                        {"sets", o.sets},  // the --set keys as given: workload, cluster, training
                        {"backend", "sim"}});
  });
  fmt::print("\nwrote {}/profile.csv and run.json\n", dir.path().string());
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

void run_calibration(const Options& o) {
  RunDirectory dir("profile", o.out, out_mode(o.overwrite));
  dir.run([&] {
    fmt::print("{:<18} {:>5} {:>5} {:>6} {:>5} | {:>9} {:>9} {:>7} | {:>6} {:>6} {:>6} | {}\n",
               "cluster", "nodes", "gpus", "batch", "accum", "AR ms", "paper ms", "err %", "AR %",
               "paper", "diff", "algorithm");
    static const CsvSchema schema("calibration.csv", {{"cluster"},
                                                      {"nodes"},
                                                      {"gpus"},
                                                      {"batch_per_gpu"},
                                                      {"grad_accum"},
                                                      {"allreduce_ms", "{:.3f}"},
                                                      {"published_allreduce_ms", "{:.2f}"},
                                                      {"allreduce_error_pct", "{:.2f}"},
                                                      {"allreduce_pct", "{:.2f}"},
                                                      {"published_allreduce_pct", "{:.0f}"},
                                                      {"allreduce_pct_points", "{:.2f}"},
                                                      {"algorithm"}});
    CsvWriter csv(schema);
    double worst_ms = 0, worst_pct = 0;
    for (const net::ProfileRow& row : net::onebit_adam_profile_rows()) {
      sim::Scenario s;
      s.cluster = row.cluster;
      s.gpus = row.gpus;
      s.batch_per_gpu = row.batch_per_gpu;
      s.grad_accum = row.grad_accum;
      s.overlap = sim::OverlapMode::kOff;  // DeepSpeed's engine allreduces after backward
      const sim::StageTiming t = sim::simulate_step(sim::resolve_scenario(s)).front();
      const double ms = 1e3 * t.comm_s, err = 100.0 * (ms - row.allreduce_ms) / row.allreduce_ms;
      const double points = t.allreduce_pct() - row.allreduce_pct;
      worst_ms = std::max(worst_ms, std::abs(err));
      worst_pct = std::max(worst_pct, std::abs(points));
      fmt::print(
          "{:<18} {:>5} {:>5} {:>6} {:>5} | {:>9.2f} {:>9.2f} {:>+7.1f} | {:>6.1f} {:>6.0f} "
          "{:>+6.1f} | {}\n",
          row.cluster, row.nodes, row.gpus, row.batch_per_gpu, row.grad_accum, ms, row.allreduce_ms,
          err, t.allreduce_pct(), row.allreduce_pct, points, t.algorithm);
      csv.add({row.cluster, row.nodes, row.gpus, row.batch_per_gpu, row.grad_accum, ms,
               row.allreduce_ms, err, t.allreduce_pct(), row.allreduce_pct, points, t.algorithm});
    }
    fmt::print(
        "\nworst |error|: {:.1f}% of allreduce ms (target 25%), {:.1f} points of allreduce % "
        "(target "
        "8)\n",
        worst_ms, worst_pct);
    dir.write_file("calibration.csv", csv.text());
    dir.write_run_json({{"calibration", "onebit_adam_profile"}, {"backend", "sim"}});
  });
  fmt::print("wrote {}/calibration.csv and run.json\n", dir.path().string());
}

// --calibration --fit: the network parameters fitted on all rows against the presets' constants.
void run_fit(const Options& o) {
  RunDirectory dir("profile", o.out, out_mode(o.overwrite));
  dir.run([&] {
    const sim::NetworkFit fit = sim::fit_network(net::onebit_adam_profile_rows());
    static const CsvSchema schema("network_fit.csv", {{"cluster"},
                                                      {"parameter"},
                                                      {"fitted", "{:.6g}"},
                                                      {"preset", "{:.6g}"},
                                                      {"difference_pct", "{:.3f}"},
                                                      {"rows"},
                                                      {"fallback"}});
    CsvWriter csv(schema);
    fmt::print("{:<18} {:<22} {:>10} {:>10} {:>8} {:>5}\n", "cluster", "parameter", "fitted",
               "preset", "diff %", "rows");
    for (const sim::FittedParameter& p : fit.parameters) {
      const double preset = sim::preset_parameter(net::cluster_preset(p.cluster), p.name);
      const double diff = preset != 0 ? 100.0 * (p.value - preset) / preset : 0;
      fmt::print("{:<18} {:<22} {:>10.4f} {:>10.4f} {:>+8.3f} {:>5}{}\n", p.cluster, p.name,
                 p.value, preset, diff, p.rows, p.fallback.empty() ? "" : "  " + p.fallback);
      csv.add({p.cluster, p.name, p.value, preset, diff, p.rows, p.fallback});
    }
    fmt::print("\nthe presets hold these values in net_models/cluster_presets.cc\n");
    dir.write_file("network_fit.csv", csv.text());
    dir.write_run_json({{"calibration", "onebit_adam_profile"}, {"fit", true}, {"backend", "sim"}});
  });
  fmt::print("wrote {}/network_fit.csv and run.json\n", dir.path().string());
}

// The median and the largest of |errors|.
std::pair<double, double> median_and_worst(const std::vector<double>& errors) {
  double worst = 0;
  for (double e : errors) worst = std::max(worst, std::abs(e));
  return {median_abs(errors), worst};
}

// --calibration --cross-validate: each row predicted by the fit on all the other rows.
void run_cross_validation(const Options& o) {
  RunDirectory dir("profile", o.out, out_mode(o.overwrite));
  dir.run([&] {
    static const CsvSchema schema("cross_validation.csv", {{"row"},
                                                           {"cluster"},
                                                           {"nodes"},
                                                           {"gpus"},
                                                           {"batch_per_gpu"},
                                                           {"grad_accum"},
                                                           {"predicted_allreduce_ms", "{:.3f}"},
                                                           {"published_allreduce_ms", "{:.2f}"},
                                                           {"error_pct", "{:.2f}"},
                                                           {"fallback"}});
    CsvWriter csv(schema);
    fmt::print("leave-one-out: each row's allreduce predicted by the network fit on the others\n");
    fmt::print("{:>3} {:<18} {:>5} {:>5} {:>5} {:>5} | {:>9} {:>9} {:>7}\n", "row", "cluster",
               "nodes", "gpus", "batch", "accum", "AR ms", "paper ms", "err %");
    std::vector<double> errors;
    for (const sim::HeldOutRow& h : sim::cross_validate(net::onebit_adam_profile_rows())) {
      const net::ProfileRow& r = h.published;
      const std::string fallback = fmt::format("{}", fmt::join(h.fallbacks, "; "));
      fmt::print("{:>3} {:<18} {:>5} {:>5} {:>5} {:>5} | {:>9.2f} {:>9.2f} {:>+7.1f}{}\n", h.row,
                 r.cluster, r.nodes, r.gpus, r.batch_per_gpu, r.grad_accum, h.predicted_ms,
                 r.allreduce_ms, h.error_pct, fallback.empty() ? "" : "  fallback: " + fallback);
      csv.add({h.row, r.cluster, r.nodes, r.gpus, r.batch_per_gpu, r.grad_accum, h.predicted_ms,
               r.allreduce_ms, h.error_pct, fallback});
      errors.push_back(h.error_pct);
    }
    const auto [median, worst] = median_and_worst(errors);
    fmt::print("\nmedian |error| {:.1f}%, worst {:.1f}% (targets: median 10%, worst 25%)\n", median,
               worst);
    dir.write_file("cross_validation.csv", csv.text());
    dir.write_run_json(
        {{"calibration", "onebit_adam_profile"}, {"cross_validate", true}, {"backend", "sim"}});
  });
  fmt::print("wrote {}/cross_validation.csv and run.json\n", dir.path().string());
}

// --calibration and its variants.
void run_calibration_mode(const Options& o) {
  if (o.fit && o.cross_validate)
    throw InvalidArgument("--fit and --cross-validate are two runs, expected one of them");
  if (o.fit) return run_fit(o);
  if (o.cross_validate) return run_cross_validation(o);
  run_calibration(o);
}

// Flags that exclude or need each other, refused before any work.
void check_mode_flags(const Options& o) {
  if (o.trace && o.calibration)
    throw InvalidArgument("--trace traces one scenario's step, expected no --calibration");
  if ((o.fit || o.cross_validate) && !o.calibration)
    throw InvalidArgument(
        "--fit and --cross-validate work on the calibration rows, expected --calibration with "
        "them");
}

// The flags --public-checks refuses: the cases are predicted as published, on their own
// clusters, and the run is not a calibration.
constexpr std::array<const char*, 19> kNotWithPublicChecks = {"--workload",
                                                              "--cluster",
                                                              "--gpu",
                                                              "--platform",
                                                              "--optimizer",
                                                              "--gpus",
                                                              "--gpus-per-node",
                                                              "--inter-node-gbps",
                                                              "--topology",
                                                              "--batch-per-gpu",
                                                              "--grad-accum",
                                                              "--overlap",
                                                              "--buckets",
                                                              "--set",
                                                              "--calibration",
                                                              "--fit",
                                                              "--cross-validate",
                                                              "--trace",
                                                              "--export-platform"};

void check_public_checks_flags(const CLI::App& cmd) {
  for (const char* name : kNotWithPublicChecks) {
    if (cmd.get_option(name)->count() > 0) {
      throw InvalidArgument(fmt::format(
          "{} with --public-checks: the public cases run on their own clusters as published, "
          "expected only --out and --overwrite with --public-checks",
          name));
    }
  }
}

// --calibration and the two runs it can do instead of the comparison.
void add_calibration_flags(CLI::App& cmd, Options& o) {
  cmd.add_flag("--calibration", o.calibration,
               "run the 13 rows of 1-bit Adam's Table 1 and compare");
  cmd.add_flag("--fit", o.fit,
               "with --calibration: fit the network parameters on the rows (network_fit.csv)");
  cmd.add_flag("--cross-validate", o.cross_validate,
               "with --calibration: leave-one-out cross-validation of the network fit "
               "(cross_validation.csv)");
  cmd.add_flag("--public-checks", o.public_checks,
               "predict the public nccl-tests results of data/published/"
               "nccl_tests_public.csv, out of sample (public_checks.csv)");
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
               "auto: each stage overlaps backward (DDP-style buckets) as its optimizer's "
               "implementation does (docs/optimizers.md); on (bare --overlap): every stage; off: "
               "none. A bare --overlap takes the word after it as its value: before a "
               "positional, write --overlap=on")
      ->expected(0, 1)
      ->type_name("[auto|on|off]")
      ->check(overlap_mode_check())
      ->capture_default_str();
  cmd.add_option("--buckets", o.scenario.buckets,
                 "buckets of an overlapped stage (0 = 25 MB buckets)");
}

}  // namespace

void register_profile_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "profile", "Simulate one training step (SimGrid, scaled proxy) and print its time breakdown");
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
                  "key=value of a sweep config for one scenario, after the flags (repeatable), "
                  "e.g. --set workload.name=bert-large --set cluster.gpus_per_node=8");
  add_calibration_flags(*cmd, *o);
  cmd->add_option("--out", o->out, "run directory (default runs/profile-<time>)");
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
  add_overwrite_flag(*cmd, o->overwrite);
  cmd->callback([o, trace, cmd] {
    if (o->public_checks) {
      check_public_checks_flags(*cmd);
      return run_public_checks(o->out, o->overwrite);
    }
    o->trace = trace->count() > 0;
    check_mode_flags(*o);
    o->scenario.overlap = sim::parse_overlap_mode(o->overlap);
    o->scenario = apply_scenario_sets(o->scenario, o->sets);
    if (!o->export_platform.empty()) return run_export(*o);
    o->calibration ? run_calibration_mode(*o) : run_profile(*o);
  });
}

}  // namespace compopt::cli
