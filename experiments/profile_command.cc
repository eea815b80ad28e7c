// `compopt profile`: simulates one training step of a workload on a cluster for
// an optimizer (SimGrid, scaled proxy) and prints the step-time breakdown of
// 1-bit Adam's Table 1 (forward, backward allreduce, backward else, step,
// allreduce %). `--calibration` runs the 13 published rows instead and prints
// predicted against published figures (docs/calibration.md).

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <sstream>

#include "core/util/csv_schema.h"
#include "core/util/error.h"
#include "core/util/file_io.h"
#include "core/util/io_error.h"
#include "experiments/commands.h"
#include "experiments/memory_estimates.h"
#include "experiments/run_directory.h"
#include "experiments/sweep_config.h"
#include "net_models/calibration_rows.h"
#include "net_models/cluster_presets.h"
#include "net_models/cluster_xml.h"
#include "net_models/workload.h"
#include "sim/scenario.h"

namespace compopt::cli {
namespace {

struct Options {
  sim::Scenario scenario;
  std::vector<std::string> sets;
  bool calibration = false;
  std::string out;
  bool overwrite = false;
  std::string export_platform;
};

void print_breakdown(const sim::StepConfig& c, const sim::StageTiming& t) {
  fmt::print(
      "{:<14} {:>10.2f} {:>12.2f} {:>12.2f} {:>10.2f} {:>10.2f} {:>12.2f} {:>7.1f}% {:>12.1f}\n",
      t.stage, 1e3 * t.forward_s, 1e3 * t.comm_s, 1e3 * t.backward_compute_s, 1e3 * t.compress_s,
      1e3 * t.step_s, 1e3 * t.step_time_s, t.allreduce_pct(), t.throughput_samples_s);
  (void)c;
}

void run_profile(const Options& o) {
  const sim::StepConfig config = sim::resolve_scenario(o.scenario);
  check_simulation_memory(config.cluster.gpus(), 1, "--gpus", MemoryBudget::of_this_machine());
  // Simulated before the run directory exists: a platform file SimGrid refuses leaves nothing.
  const std::vector<sim::StageTiming> timings = sim::simulate_step(config);
  RunDirectory dir("profile", o.out, out_mode(o.overwrite));
  dir.run([&] {
    const net::ClusterSpec& k = config.cluster;
    fmt::print(
        "compopt profile: {} on {} ({} nodes x {} GPUs, {}, NIC {} Gbit/s between nodes, {:.6g} "
        "Gbit/s effective at efficiency {}), {}, batch {} x {} accumulation{}\n\n",
        config.workload.name, k.name, k.nodes, k.gpus_per_node, net::topology_name(k.topology),
        k.inter_node_gbps, k.inter_node_gbps * k.inter_node_efficiency, k.inter_node_efficiency,
        config.optimizer, config.batch_per_gpu, config.grad_accum,
        config.overlap ? ", overlapped buckets" : "");
    fmt::print("{:<14} {:>10} {:>12} {:>12} {:>10} {:>10} {:>12} {:>8} {:>12}\n", "stage", "fwd ms",
               "allreduce ms", "bwd else ms", "compr ms", "step ms", "total ms", "AR %",
               "samples/s");
    std::string csv = sim::scenario_csv_header();
    for (const sim::StageTiming& t : timings) {
      print_breakdown(config, t);
      csv += sim::scenario_csv_row(config, t);
    }
    dir.write_file("profile.csv", csv);
    dir.write_run_json({{"workload", config.workload.name},
                        {"cluster", o.scenario.cluster},
                        {"optimizer", config.optimizer},
                        {"gpus", config.cluster.gpus()},
                        {"inter_node_gbps", config.cluster.inter_node_gbps},
                        {"topology", std::string(net::topology_name(config.cluster.topology))},
                        {"batch_per_gpu", config.batch_per_gpu},
                        {"grad_accum", config.grad_accum},
                        {"overlap", config.overlap},
                        {"platform_file", o.scenario.platform_file},
                        {"backend", "sim"}});
  });
  fmt::print("\nwrote {}/profile.csv and run.json\n", dir.path().string());
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
    fmt::print("{:<18} {:>5} {:>5} {:>6} {:>5} | {:>9} {:>9} {:>7} | {:>6} {:>6} {:>6}\n",
               "cluster", "nodes", "gpus", "batch", "accum", "AR ms", "paper ms", "err %", "AR %",
               "paper", "diff");
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
                                                      {"allreduce_pct_points", "{:.2f}"}});
    CsvWriter csv(schema);
    double worst_ms = 0, worst_pct = 0;
    for (const net::ProfileRow& row : net::onebit_adam_profile_rows()) {
      sim::Scenario s;
      s.cluster = row.cluster;
      s.gpus = row.gpus;
      s.batch_per_gpu = row.batch_per_gpu;
      s.grad_accum = row.grad_accum;
      const sim::StageTiming t = sim::simulate_step(sim::resolve_scenario(s)).front();
      const double ms = 1e3 * t.comm_s, err = 100.0 * (ms - row.allreduce_ms) / row.allreduce_ms;
      const double points = t.allreduce_pct() - row.allreduce_pct;
      worst_ms = std::max(worst_ms, std::abs(err));
      worst_pct = std::max(worst_pct, std::abs(points));
      fmt::print(
          "{:<18} {:>5} {:>5} {:>6} {:>5} | {:>9.2f} {:>9.2f} {:>+7.1f} | {:>6.1f} {:>6.0f} "
          "{:>+6.1f}\n",
          row.cluster, row.nodes, row.gpus, row.batch_per_gpu, row.grad_accum, ms, row.allreduce_ms,
          err, t.allreduce_pct(), row.allreduce_pct, points);
      csv.add({row.cluster, row.nodes, row.gpus, row.batch_per_gpu, row.grad_accum, ms,
               row.allreduce_ms, err, t.allreduce_pct(), row.allreduce_pct, points});
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
  cmd->add_option("--platform", o->scenario.platform_file,
                  "SimGrid platform XML replacing the preset's");
  cmd->add_option("--optimizer", o->scenario.optimizer,
                  "any registered optimizer or alias (docs/optimizers.md, e.g. adam, momentum-sgd, "
                  "onebit-adam, birder)")
      ->capture_default_str();
  cmd->add_option("--gpus", o->scenario.gpus, "GPUs (0 = the preset's)")->capture_default_str();
  cmd->add_option("--gpus-per-node,--ranks-per-node", o->scenario.gpus_per_node,
                  "GPUs per node (0 = the preset's; --ranks-per-node is an alias)");
  cmd->add_option("--inter-node-gbps", o->scenario.inter_node_gbps,
                  "NIC bandwidth (0 = the preset's)");
  cmd->add_option("--topology", o->scenario.topology,
                  "star, fat-tree, torus or dragonfly (default: the preset's)");
  cmd->add_option("--batch-per-gpu", o->scenario.batch_per_gpu,
                  "micro-batch per GPU (0 = the workload's)");
  cmd->add_option("--grad-accum", o->scenario.grad_accum, "gradient accumulation steps")
      ->capture_default_str();
  cmd->add_flag("--overlap", o->scenario.overlap,
                "overlap the allreduce with backward in buckets (DDP-style)");
  cmd->add_option("--buckets", o->scenario.buckets, "buckets with --overlap (0 = 25 MB buckets)");
  cmd->add_option("--set", o->sets,
                  "key=value of a sweep config for one scenario, after the flags (repeatable), "
                  "e.g. --set workload.name=bert-large --set cluster.gpus_per_node=8");
  cmd->add_flag("--calibration", o->calibration,
                "run the 13 rows of 1-bit Adam's Table 1 and compare");
  cmd->add_option("--out", o->out, "run directory (default runs/profile-<time>)");
  cmd->add_option("--export-platform", o->export_platform,
                  "write the SimGrid platform XML of the resolved cluster to this file and exit "
                  "(star and fat-tree clusters)");
  cmd->footer("Workload presets:\n" + net::workload_registry().help_lines() + "Cluster presets:\n" +
              net::cluster_registry().help_lines() +
              "--set keys: those of a sweep config (docs/simulator.md), one value each.");
  add_overwrite_flag(*cmd, o->overwrite);
  cmd->callback([o] {
    o->scenario = apply_scenario_sets(o->scenario, o->sets);
    if (!o->export_platform.empty()) return run_export(*o);
    o->calibration ? run_calibration(*o) : run_profile(*o);
  });
}

}  // namespace compopt::cli
