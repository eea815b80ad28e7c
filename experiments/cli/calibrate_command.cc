// `compopt calibrate INPUT... --cluster BASE`: fits a cluster's named link parameters to its
// own measurements (nccl-tests logs, comm-bench CSVs, Table-1 rows; experiments/calibration/)
// and writes the result as a [cluster] table (docs/calibrate.md). Prints each input, each
// fitted parameter with the rows it was fitted on and their median error (or why it kept its
// value), every row's residual before and after, and the latency-bandwidth fit of each log.
// Writes, in its run directory (--out, default runs/calibrate-<time>; --overwrite):
//   cluster.toml      the [cluster] table: `compopt profile cluster.toml`, sweep configs,
//                     `train --set run.backend=sim` and Python read it as it is
//   whatif.toml       a sweep config of that cluster: adam, onebit-adam and birder on the
//                     --workload (`compopt sweep whatif.toml`)
//   calibration.csv   the residual of every row; run.json
// With --step-time, --gpus and --batch (and --workload), one measured baseline step also fits
// the GPU's max_utilization (step_time_fit.h).

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include "core/util/csv_schema.h"
#include "core/util/error.h"
#include "core/util/median.h"
#include "experiments/calibration/alpha_beta.h"
#include "experiments/calibration/cluster_fit.h"
#include "experiments/calibration/cluster_toml.h"
#include "experiments/calibration/step_time_fit.h"
#include "experiments/cli/commands.h"
#include "experiments/run_directory/run_directory.h"
#include "experiments/scenario/cluster_table.h"
#include "net_models/cluster_presets.h"
#include "net_models/workload.h"

namespace compopt::cli {
namespace {

using calibration::ClusterFit;
using calibration::Measurement;
using calibration::MeasurementFile;

struct Options {
  std::vector<std::string> inputs;
  std::string cluster;
  std::string workload = "bert-large-seq128";
  double step_time_s = 0;
  int gpus = 0, batch = 0;
  std::string out;
  bool overwrite = false;
};

// --cluster: a preset name or a TOML file with a [cluster] table.
net::ClusterSpec base_cluster(const std::string& name) {
  if (net::cluster_registry().contains(name)) return net::cluster_preset(name);
  if (std::filesystem::path(name).extension() == ".toml") return cluster_from_file(name);
  throw InvalidArgument(fmt::format(
      "--cluster '{}': expected a cluster preset (compopt list clusters) or a .toml file with "
      "a [cluster] table",
      name));
}

// One value every input that shows it agrees on (NCCL version, NCCL_ALGO); "" when none shows.
std::string agreed(const std::vector<MeasurementFile>& files, std::string MeasurementFile::*field,
                   const char* what) {
  std::map<std::string, std::string> seen;  // value -> first file
  for (const MeasurementFile& f : files)
    if (!(f.*field).empty()) seen.emplace(f.*field, f.source);
  if (seen.size() > 1) {
    const auto a = seen.begin(), b = std::next(a);
    throw InvalidArgument(
        fmt::format("the inputs ran different {}s ({} in {}, {} in {}): calibrate one at a time",
                    what, a->first, a->second, b->first, b->second));
  }
  return seen.empty() ? "" : seen.begin()->first;
}

void print_inputs(const std::vector<MeasurementFile>& files) {
  fmt::print("{:<44} {:<15} {:<15} {:>6} {:>5} {:<8} {}\n", "input", "kind", "collective", "shape",
             "rows", "NCCL", "NCCL_ALGO");
  for (const MeasurementFile& f : files) {
    const Measurement& r = f.rows.front();
    fmt::print("{:<44} {:<15} {:<15} {:>6} {:>5} {:<8} {}\n", f.source, f.kind, f.collective,
               fmt::format("{}x{}", r.nodes, r.gpus_per_node), f.rows.size(),
               f.nccl_version.empty() ? "-" : f.nccl_version,
               f.algorithm.empty() ? "-" : f.algorithm);
    for (const std::string& note : f.notes) fmt::print("  note: {}\n", note);
  }
}

void print_values(const ClusterFit& fit) {
  fmt::print("\n{:<24} {:>12} {:>12} {:>5} {:>9}  {}\n", "parameter", "fitted", "base", "rows",
             "median %", "status");
  for (const calibration::FittedValue& v : fit.values)
    fmt::print("{:<24} {:>12.5g} {:>12.5g} {:>5} {:>9.2f}  {}\n", v.name, v.value, v.base, v.rows,
               v.median_error_pct, v.status);
  fmt::print("{:<24} {:>12}\n", "allreduce_algorithm", fit.cluster.allreduce_algorithm);
  fmt::print("{:<24} {:>12}\n", "nccl_version",
             fit.cluster.nccl_version.empty() ? "current" : fit.cluster.nccl_version);
  for (const std::string& note : fit.notes) fmt::print("  note: {}\n", note);
}

const CsvSchema& residual_schema() {
  static const CsvSchema schema("calibration.csv", {{"source"},
                                                    {"collective"},
                                                    {"nodes"},
                                                    {"gpus_per_node"},
                                                    {"bytes", "{:.0f}"},
                                                    {"measured_us", "{:.2f}"},
                                                    {"regime"},
                                                    {"uncalibrated_us", "{:.2f}"},
                                                    {"uncalibrated_error_pct", "{:.2f}"},
                                                    {"calibrated_us", "{:.2f}"},
                                                    {"calibrated_error_pct", "{:.2f}"}});
  return schema;
}

// The residual table; returns the CSV text.
std::string print_residuals(const ClusterFit& fit) {
  fmt::print("\n{:<44} {:>6} {:>12} {:>11} {:<9} | {:>11} {:>7} | {:>11} {:>7}\n", "row", "shape",
             "bytes", "meas. us", "regime", "base us", "err %", "fitted us", "err %");
  CsvWriter csv(residual_schema());
  std::vector<double> before, after;
  for (const calibration::Residual& r : fit.residuals) {
    const Measurement& m = *r.row;
    const bool timed = static_cast<bool>(m.predict);
    fmt::print("{:<44} {:>6} {:>12.0f} {:>11.2f} {:<9} | {:>11} {:>7} | {:>11} {:>7}\n", m.source,
               fmt::format("{}x{}", m.nodes, m.gpus_per_node), m.bytes, 1e6 * m.seconds, r.regime,
               timed ? fmt::format("{:.2f}", 1e6 * r.uncalibrated_s) : "-",
               timed ? fmt::format("{:+.1f}", r.uncalibrated_error_pct) : "-",
               timed ? fmt::format("{:.2f}", 1e6 * r.calibrated_s) : "-",
               timed ? fmt::format("{:+.1f}", r.calibrated_error_pct) : "-");
    if (!timed) continue;
    before.push_back(r.uncalibrated_error_pct);
    after.push_back(r.calibrated_error_pct);
    csv.add({m.source, m.collective, m.nodes, m.gpus_per_node, m.bytes, 1e6 * m.seconds, r.regime,
             1e6 * r.uncalibrated_s, r.uncalibrated_error_pct, 1e6 * r.calibrated_s,
             r.calibrated_error_pct});
  }
  fmt::print("\nmedian |error| over {} allreduce rows: base cluster {:.1f}%, fitted {:.1f}%\n",
             after.size(), median_abs(before), median_abs(after));
  return csv.text();
}

// The latency-bandwidth fit of every log with two sizes or more.
void print_alpha_beta(const std::vector<MeasurementFile>& files) {
  fmt::print("\nlatency-bandwidth fit per input (t = alpha + bytes x beta; any collective)\n");
  fmt::print("{:<44} {:<15} {:>6} {:>11} {:>12} {:>9}\n", "input", "collective", "shape",
             "alpha us", "busbw GB/s", "median %");
  for (const MeasurementFile& f : files) {
    std::vector<const Measurement*> rows;
    std::set<double> sizes;
    for (const Measurement& m : f.rows) rows.push_back(&m), sizes.insert(m.bytes);
    if (sizes.size() < 2 || f.rows.front().bytes <= 0) continue;
    const calibration::AlphaBeta ab = calibration::fit_alpha_beta(rows);
    const Measurement& r = f.rows.front();
    fmt::print("{:<44} {:<15} {:>6} {:>11.2f} {:>12} {:>9.2f}\n", f.source, f.collective,
               fmt::format("{}x{}", r.nodes, r.gpus_per_node), 1e6 * ab.alpha_s,
               ab.busbw_gbps > 0 ? fmt::format("{:.2f}", ab.busbw_gbps) : "none seen",
               ab.median_error_pct);
  }
}

// The comment lines on top of the written files: what made them.
std::string provenance(const Options& o, const std::vector<MeasurementFile>& files) {
  std::string text =
      fmt::format("# Written by `compopt calibrate` from {} input(s) on base cluster '{}':\n",
                  files.size(), o.cluster);
  for (const MeasurementFile& f : files)
    text += fmt::format("#   {} ({}, {} rows)\n", f.source, f.kind, f.rows.size());
  return text + "# Fitted values and residuals: calibration.csv beside this file.\n";
}

std::string whatif_toml(const Options& o, const net::ClusterSpec& c, const std::string& header) {
  return header + fmt::format("\n[workload]\nname = \"{}\"\n\n", o.workload) +
         calibration::cluster_toml(c, "") +
         fmt::format(
             "\n[sweep]\noptimizers = [\"adam\", \"onebit-adam\", \"birder\"]\ngpus = [{}]\n",
             c.gpus());
}

// Every input read and checked before any fitting (bad input: exit 2 before work).
std::vector<MeasurementFile> read_inputs(const Options& o, const net::ClusterSpec& base) {
  std::vector<MeasurementFile> files;
  for (const std::string& input : o.inputs)
    files.push_back(calibration::read_measurements(input, base));
  if ((o.step_time_s > 0) != (o.gpus > 0) || (o.gpus > 0) != (o.batch > 0))
    throw InvalidArgument(
        "--step-time, --gpus and --batch: give all three (one measured baseline step) or none");
  try {
    net::workload_preset(o.workload);  // refuses an unknown name before any work
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(fmt::format("--workload: {}", e.what()));
  }
  if (o.step_time_s > 0) {
    if (o.batch < 1) throw InvalidArgument(fmt::format("--batch {}: expected >= 1", o.batch));
    net::with_gpus(base, o.gpus);  // refuses GPUs that do not fill whole nodes
  }
  return files;
}

void run(const Options& o) {
  net::ClusterSpec base = base_cluster(o.cluster);
  const std::vector<MeasurementFile> files = read_inputs(o, base);
  const std::string version = agreed(files, &MeasurementFile::nccl_version, "NCCL version");
  const std::string algorithm = agreed(files, &MeasurementFile::algorithm, "NCCL_ALGO");
  std::vector<Measurement> rows;
  for (const MeasurementFile& f : files) rows.insert(rows.end(), f.rows.begin(), f.rows.end());
  calibration::check_fittable(rows);
  RunDirectory dir("calibrate", o.out, out_mode(o.overwrite));
  dir.run([&] {
    print_inputs(files);
    ClusterFit fit = calibration::fit_cluster(base, rows, version, algorithm);
    fit.cluster.name = base.name + "-calibrated";
    for (const Measurement& m : rows) fit.cluster.nodes = std::max(fit.cluster.nodes, m.nodes);
    print_values(fit);
    if (o.step_time_s > 0) {
      const auto s =
          calibration::fit_step_time(fit.cluster, {o.workload, o.gpus, o.batch, o.step_time_s});
      fmt::print(
          "{:<24} {:>12.5g} {:>12.5g} {:>5} {:>9.2f}  {} (step {:.1f} ms measured, {:.1f} "
          "ms before)\n",
          "gpu.max_utilization", s.max_utilization, s.base, 1,
          100.0 * std::abs(s.predicted_after_s / o.step_time_s - 1), s.status, 1e3 * o.step_time_s,
          1e3 * s.predicted_before_s);
    }
    dir.write_file("calibration.csv", print_residuals(fit));
    print_alpha_beta(files);
    const std::string header = provenance(o, files);
    dir.write_file("cluster.toml", calibration::cluster_toml(fit.cluster, header));
    dir.write_file("whatif.toml", whatif_toml(o, fit.cluster, header));
    dir.write_run_json({{"inputs", o.inputs}, {"cluster", o.cluster}, {"workload", o.workload}});
  });
  fmt::print("\nwrote {0}/cluster.toml, {0}/whatif.toml, {0}/calibration.csv and run.json\n",
             dir.path().string());
}

}  // namespace

void register_calibrate_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate",
      "Fit a cluster's link parameters to its nccl-tests logs / comm-bench CSVs and write it "
      "as a [cluster] table (docs/calibrate.md)");
  cmd->add_option("inputs", o->inputs,
                  "nccl-tests logs, comm-bench CSVs or Table-1 CSVs; PATH@NODESxGPUS names the "
                  "shape of a file that does not print it")
      ->required();
  cmd->add_option("--cluster", o->cluster,
                  "the cluster the logs ran on, before calibration: a preset or a .toml file "
                  "with a [cluster] table (GPU, fabric, NICs, transport)")
      ->required();
  cmd->add_option("--workload", o->workload,
                  "workload preset of --step-time and of the written whatif.toml")
      ->capture_default_str();
  cmd->add_option("--step-time", o->step_time_s,
                  "one measured step of the uncompressed baseline, seconds (fits the GPU's "
                  "max_utilization; with --gpus and --batch)");
  cmd->add_option("--gpus", o->gpus, "GPUs of the --step-time run");
  cmd->add_option("--batch", o->batch, "batch per GPU of the --step-time run");
  cmd->add_option("--out", o->out, "run directory (default runs/calibrate-<time>)")
      ->check(non_empty_out());
  add_overwrite_flag(*cmd, o->overwrite);
  cmd->callback([o] { run(*o); });
}

}  // namespace compopt::cli
