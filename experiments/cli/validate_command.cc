// `compopt validate`: the simulator against published measurements it ships with, one
// sub-subcommand per check; each prints its table and writes one CSV and run.json in its
// run directory (--out, default runs/validate-<time>; --overwrite). `compopt calibrate`
// (fitting the simulator to a user's own measurements) is a different command; these runs
// only check the shipped presets.
//
//   calibration     the 13 rows of 1-bit Adam's Table 1 (net_models/calibration_rows.h)
//                   simulated and compared with the published allreduce figures
//                   (docs/calibration.md): calibration.csv
//   fit             the network parameters fitted on those rows (sim/network_fit.h) against
//                   the presets' constants: network_fit.csv
//   cross-validate  each row predicted by the fit on the others (docs/validation.md):
//                   cross_validation.csv
//   public-checks   every public nccl-tests case (data/published/nccl_tests_public.csv)
//                   simulated on its compopt cluster (sim/public_checks.h) and compared with
//                   the published time and bus bandwidth, out of sample: public_checks.csv
//   model-error     the band's model-error term (sim/model_error.h) measured again on the
//                   leave-one-out rows and the public cases, against the shipped value, and
//                   each row's coverage under the term measured without it: model_error.csv
//   calibrate-workflow  `compopt calibrate`'s fit checked on the public threads: calibrated
//                   on part of each thread, the rest predicted, beside the uncalibrated
//                   prediction of the same rows; and Table 1 through the same fit against the
//                   presets (experiments/calibration/holdout.h): calibrate_workflow.csv

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/util/csv_schema.h"
#include "core/util/error.h"
#include "core/util/median.h"
#include "experiments/calibration/holdout.h"
#include "experiments/cli/commands.h"
#include "experiments/cli/validate_model_error.h"
#include "experiments/run_directory/run_directory.h"
#include "net_models/calibration_rows.h"
#include "net_models/cluster_presets.h"
#include "net_models/nccl_tests_rows.h"
#include "sim/backend/sim_backend.h"
#include "sim/band_coverage.h"
#include "sim/network_fit.h"
#include "sim/public_checks.h"
#include "sim/scenario.h"

namespace compopt::cli {
namespace {

constexpr double kGB = 1e9;
constexpr double kWithinPct = 20;  // the public checks' per-case target

const CsvSchema& calibration_schema() {
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
  return schema;
}

// The baseline step of a published row, as DeepSpeed ran it (allreduce after backward).
sim::StageTiming simulate_row(const net::ProfileRow& row) {
  sim::Scenario s;
  s.cluster = row.cluster;
  s.gpus = row.gpus;
  s.batch_per_gpu = row.batch_per_gpu;
  s.grad_accum = row.grad_accum;
  s.implementation = "deepspeed-2020";  // the engine the paper profiled (after backward)
  return sim::simulate_step(sim::resolve_scenario(s)).front();
}

// calibration: each row's simulated allreduce against the published one.
void run_calibration(RunDirectory& dir) {
  fmt::print("{:<18} {:>5} {:>5} {:>6} {:>5} | {:>9} {:>9} {:>7} | {:>6} {:>6} {:>6} | {}\n",
             "cluster", "nodes", "gpus", "batch", "accum", "AR ms", "paper ms", "err %", "AR %",
             "paper", "diff", "algorithm");
  CsvWriter csv(calibration_schema());
  double worst_ms = 0, worst_pct = 0;
  for (const net::ProfileRow& row : net::onebit_adam_profile_rows()) {
    const sim::StageTiming t = simulate_row(row);
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
  dir.write_run_json({{"calibration", "onebit_adam_profile"}, {"backend", sim::kSimBackendName}});
}

// fit: the network parameters fitted on all rows against the presets' constants.
void run_fit(RunDirectory& dir) {
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
    fmt::print("{:<18} {:<22} {:>10.4f} {:>10.4f} {:>+8.3f} {:>5}{}\n", p.cluster, p.name, p.value,
               preset, diff, p.rows, p.fallback.empty() ? "" : "  " + p.fallback);
    csv.add({p.cluster, p.name, p.value, preset, diff, p.rows, p.fallback});
  }
  fmt::print("\nthe presets hold these values in net_models/cluster_presets.cc\n");
  dir.write_file("network_fit.csv", csv.text());
  dir.write_run_json(
      {{"calibration", "onebit_adam_profile"}, {"fit", true}, {"backend", sim::kSimBackendName}});
}

const CsvSchema& cross_validation_schema() {
  static const CsvSchema schema("cross_validation.csv", {{"row"},
                                                         {"cluster"},
                                                         {"nodes"},
                                                         {"gpus"},
                                                         {"batch_per_gpu"},
                                                         {"grad_accum"},
                                                         {"predicted_allreduce_ms", "{:.3f}"},
                                                         {"published_allreduce_ms", "{:.2f}"},
                                                         {"error_pct", "{:.2f}"},
                                                         {"predicted_low_ms", "{:.3f}"},
                                                         {"predicted_high_ms", "{:.3f}"},
                                                         {"band_half_width_pct", "{:.2f}"},
                                                         {"inside_band"},
                                                         {"fallback"}});
  return schema;
}

// The band's coverage of `predictions`, printed, and as run.json's "band" object.
nlohmann::json report_band(const std::vector<sim::BandedPrediction>& predictions) {
  const sim::BandCoverage c = sim::band_coverage(predictions);
  fmt::print(
      "low..high band over the network inputs alone (root-sum-square, docs/whatif.md \"The "
      "band\"): {} of {} measured values inside ({:.0f}%), half-width median {:.1f}%, widest "
      "{:.1f}%; with the model-error term: compopt validate model-error\n",
      c.inside, c.rows, 100 * c.fraction(), c.median_half_width_pct, c.widest_half_width_pct);
  return c;
}

double worst_abs(const std::vector<double>& errors) {
  double worst = 0;
  for (double e : errors) worst = std::max(worst, std::abs(e));
  return worst;
}

// cross-validate: each row predicted by the fit on all the other rows.
void run_cross_validation(RunDirectory& dir) {
  CsvWriter csv(cross_validation_schema());
  fmt::print("leave-one-out: each row's allreduce predicted by the network fit on the others\n");
  fmt::print("{:>3} {:<18} {:>5} {:>5} {:>5} {:>5} | {:>9} {:>9} {:>7}\n", "row", "cluster",
             "nodes", "gpus", "batch", "accum", "AR ms", "paper ms", "err %");
  std::vector<double> errors;
  std::vector<sim::BandedPrediction> bands;
  for (const sim::HeldOutRow& h : sim::cross_validate(net::onebit_adam_profile_rows())) {
    const net::ProfileRow& r = h.published;
    const std::string fallback = fmt::format("{}", fmt::join(h.fallbacks, "; "));
    fmt::print("{:>3} {:<18} {:>5} {:>5} {:>5} {:>5} | {:>9.2f} {:>9.2f} {:>+7.1f}{}\n", h.row,
               r.cluster, r.nodes, r.gpus, r.batch_per_gpu, r.grad_accum, h.predicted_ms,
               r.allreduce_ms, h.error_pct, fallback.empty() ? "" : "  fallback: " + fallback);
    const sim::BandedPrediction band{r.allreduce_ms, h.predicted_ms, h.low_ms, h.high_ms};
    csv.add({h.row, r.cluster, r.nodes, r.gpus, r.batch_per_gpu, r.grad_accum, h.predicted_ms,
             r.allreduce_ms, h.error_pct, h.low_ms, h.high_ms, band.half_width_pct(),
             band.inside() ? "yes" : "no", fallback});
    errors.push_back(h.error_pct);
    bands.push_back(band);
  }
  fmt::print("\nmedian |error| {:.1f}%, worst {:.1f}% (targets: median 10%, worst 25%)\n",
             median_abs(errors), worst_abs(errors));
  const nlohmann::json band = report_band(bands);
  dir.write_file("cross_validation.csv", csv.text());
  dir.write_run_json({{"calibration", "onebit_adam_profile"},
                      {"cross_validate", true},
                      {"band", band},
                      {"backend", sim::kSimBackendName}});
}

const CsvSchema& public_checks_schema() {
  static const CsvSchema schema("public_checks.csv", {{"case"},
                                                      {"cluster"},
                                                      {"bytes", "{:.0f}"},
                                                      {"algorithm"},
                                                      {"predicted_us", "{:.1f}"},
                                                      {"predicted_busbw_GBps", "{:.2f}"},
                                                      {"published_us", "{:.1f}"},
                                                      {"published_busbw_GBps", "{:.2f}"},
                                                      {"time_from_busbw"},
                                                      {"error_pct", "{:.1f}"},
                                                      {"nccl_version"},
                                                      {"url"},
                                                      {"notes"},
                                                      {"predicted_low_us", "{:.1f}"},
                                                      {"predicted_high_us", "{:.1f}"},
                                                      {"band_half_width_pct", "{:.2f}"},
                                                      {"inside_band"}});
  return schema;
}

// What a public case's cluster takes that neither the thread nor the data file states. CSV
// cells are not quoted (core/util/csv_schema.h), so the data file's commas become semicolons.
std::string public_check_notes(const net::NcclTestsRow& row) {
  std::string text = fmt::format(
      "{}; compopt: NICs at efficiency 1 (no calibration row describes this cluster) and "
      "GPU links at NCCL's per-link figure; node-to-node latency of the presets' {} links",
      row.inferred, row.transport);
  std::replace(text.begin(), text.end(), ',', ';');
  return text;
}

// public-checks: every public nccl-tests case predicted by the baseline allreduce.
void run_public_checks(RunDirectory& dir) {
  fmt::print(
      "public nccl-tests allreduce results, predicted by the step simulator's baseline "
      "allreduce (nothing fitted to them)\n");
  fmt::print("{:<18} {:>11} {:<6} | {:>11} {:>8} | {:>11} {:>8} | {:>7}\n", "case", "bytes", "algo",
             "pred us", "GB/s", "paper us", "GB/s", "err %");
  CsvWriter csv(public_checks_schema());
  std::vector<double> errors;
  std::vector<sim::BandedPrediction> bands;
  for (const net::NcclTestsRow& row : net::nccl_tests_public_rows()) {
    const sim::PublicCheck c = sim::predict_public_check(row);
    fmt::print("{:<18} {:>11.0f} {:<6} | {:>11.1f} {:>8.2f} | {:>11.1f}{} {:>8.2f} | {:>+7.1f}\n",
               row.case_name, row.bytes, c.algorithm, 1e6 * c.predicted_s,
               c.predicted_busbw_bytes_s / kGB, 1e6 * c.published_s, row.time_us ? " " : "*",
               c.published_busbw_bytes_s / kGB, c.error_pct);
    const sim::BandedPrediction band{c.published_s, c.predicted_s, c.predicted_low_s,
                                     c.predicted_high_s};
    csv.add({row.case_name, c.cluster, row.bytes, c.algorithm, 1e6 * c.predicted_s,
             c.predicted_busbw_bytes_s / kGB, 1e6 * c.published_s, c.published_busbw_bytes_s / kGB,
             row.time_us ? "no" : "yes", c.error_pct, row.nccl_version, row.url,
             public_check_notes(row), 1e6 * c.predicted_low_s, 1e6 * c.predicted_high_s,
             band.half_width_pct(), band.inside() ? "yes" : "no"});
    errors.push_back(c.error_pct);
    bands.push_back(band);
  }
  const auto within = std::count_if(errors.begin(), errors.end(),
                                    [](double e) { return std::abs(e) <= kWithinPct; });
  fmt::print("\n* time implied by the published busbw (the thread prints no time)\n");
  fmt::print(
      "median |error| {:.1f}%, {} of {} cases within {:.0f}% (targets: median 10%, 80% "
      "within 20%)\n",
      median_abs(errors), within, errors.size(), kWithinPct);
  const nlohmann::json band = report_band(bands);
  dir.write_file("public_checks.csv", csv.text());
  dir.write_run_json(
      {{"public_checks", "nccl_tests_public"}, {"band", band}, {"backend", sim::kSimBackendName}});
}

const CsvSchema& calibrate_workflow_schema() {
  static const CsvSchema schema("calibrate_workflow.csv", {{"url"},
                                                           {"case"},
                                                           {"part"},
                                                           {"published_us", "{:.1f}"},
                                                           {"uncalibrated_us", "{:.1f}"},
                                                           {"uncalibrated_error_pct", "{:.1f}"},
                                                           {"calibrated_us", "{:.1f}"},
                                                           {"calibrated_error_pct", "{:.1f}"}});
  return schema;
}

size_t within(const std::vector<double>& errors) {
  return static_cast<size_t>(std::count_if(errors.begin(), errors.end(),
                                           [](double e) { return std::abs(e) <= kWithinPct; }));
}

// Table 1 through `compopt calibrate`'s fit, beside the presets' values.
void print_preset_recalibration() {
  fmt::print(
      "\n1-bit Adam's Table 1 through the same fit (compopt calibrate "
      "data/published/onebit_adam_profile.csv --cluster PRESET):\n");
  fmt::print("{:<18} {:<22} {:>10} {:>10} {:>5}  {}\n", "cluster", "parameter", "fitted", "preset",
             "rows", "status");
  for (const auto& p : calibration::recalibrate_presets(net::onebit_adam_profile_rows()))
    fmt::print("{:<18} {:<22} {:>10.4g} {:>10.4g} {:>5}  {}\n", p.cluster, p.parameter, p.fitted,
               p.preset, p.rows, p.status);
}

// calibrate-workflow: each public thread calibrated on part of its rows, the rest predicted.
void run_calibrate_workflow(RunDirectory& dir) {
  CsvWriter csv(calibrate_workflow_schema());
  std::vector<double> before, after;
  fmt::print("{:<18} {:<9} | {:>11} | {:>11} {:>7} | {:>11} {:>7}\n", "case", "part", "paper us",
             "uncal. us", "err %", "calib. us", "err %");
  for (const auto& t : calibration::holdout_threads(net::nccl_tests_public_rows())) {
    fmt::print("{}: {}; fitted {}\n", t.url, t.split, t.fitted);
    for (const auto& r : t.rows) {
      const char* part = r.calibrates ? "calibrate" : "held back";
      fmt::print("{:<18} {:<9} | {:>11.1f} | {:>11.1f} {:>+7.1f} | {:>11.1f} {:>+7.1f}\n",
                 r.case_name, part, 1e6 * r.published_s, 1e6 * r.uncalibrated_s,
                 r.uncalibrated_error_pct, 1e6 * r.calibrated_s, r.calibrated_error_pct);
      csv.add({t.url, r.case_name, part, 1e6 * r.published_s, 1e6 * r.uncalibrated_s,
               r.uncalibrated_error_pct, 1e6 * r.calibrated_s, r.calibrated_error_pct});
      if (r.calibrates) continue;
      before.push_back(r.uncalibrated_error_pct);
      after.push_back(r.calibrated_error_pct);
    }
  }
  fmt::print(
      "\nheld-back rows: {}; median |error| uncalibrated {:.1f}% ({} within {:.0f}%), "
      "calibrated {:.1f}% ({} within {:.0f}%) (target: calibrated median 10%)\n",
      after.size(), median_abs(before), within(before), kWithinPct, median_abs(after),
      within(after), kWithinPct);
  print_preset_recalibration();
  dir.write_file("calibrate_workflow.csv", csv.text());
  dir.write_run_json(
      {{"calibrate_workflow", "nccl_tests_public"}, {"backend", sim::kSimBackendName}});
}

// One check of `compopt validate`: its sub-subcommand, help, CSV and run.
struct Check {
  const char* name;
  const char* help;
  const char* csv;
  void (*run)(RunDirectory& dir);
};

constexpr Check kChecks[] = {
    {"calibration", "simulate the 13 rows of 1-bit Adam's Table 1 and compare", "calibration.csv",
     run_calibration},
    {"fit", "fit the network parameters on the 13 rows and compare with the presets",
     "network_fit.csv", run_fit},
    {"cross-validate", "predict each of the 13 rows from the network fit on the other 12",
     "cross_validation.csv", run_cross_validation},
    {"public-checks",
     "predict the public nccl-tests results of data/published/nccl_tests_public.csv, out of "
     "sample",
     "public_checks.csv", run_public_checks},
    {"model-error",
     "measure the band's model-error term on the leave-one-out rows and the public cases, and "
     "each row's coverage under the term measured without it",
     "model_error.csv", run_model_error},
    {"calibrate-workflow",
     "calibrate on part of each public nccl-tests thread, predict the rest; Table 1 through "
     "the same fit",
     "calibrate_workflow.csv", run_calibrate_workflow},
};

struct CheckOptions {
  std::string out;
  bool overwrite = false;
};

void register_check(CLI::App& validate, const Check& check) {
  auto o = std::make_shared<CheckOptions>();
  CLI::App* cmd =
      validate.add_subcommand(check.name, fmt::format("{} ({})", check.help, check.csv));
  cmd->add_option("--out", o->out, "run directory (default runs/validate-<time>)")
      ->check(non_empty_out());
  add_overwrite_flag(*cmd, o->overwrite);
  cmd->callback([o, &check] {
    RunDirectory dir("validate", o->out, out_mode(o->overwrite));
    dir.run([&] { check.run(dir); });
    fmt::print("wrote {}/{} and run.json\n", dir.path().string(), check.csv);
  });
}

}  // namespace

void register_validate_command(CLI::App& app) {
  CLI::App* validate = app.add_subcommand(
      "validate",
      "Compare the simulator with the published measurements it ships with (calibration rows, "
      "network fit, cross-validation, public nccl-tests results)");
  for (const Check& check : kChecks) register_check(*validate, check);
  // A word that names no check lands here, so that it can be refused by name.
  auto word = std::make_shared<std::string>();
  validate->add_option("check", *word)->group("");
  validate->callback([validate, word] {
    if (!validate->get_subcommands().empty()) return;
    std::vector<std::string> names;
    for (const Check& check : kChecks) names.emplace_back(check.name);
    throw InvalidArgument(
        fmt::format("validate{}: {}, expected one of {} (compopt validate --help)",
                    word->empty() ? "" : " " + *word,
                    word->empty() ? "no check given" : "unknown check", fmt::join(names, ", ")));
  });
}

}  // namespace compopt::cli
