#include "experiments/cli/public_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/util/csv_schema.h"
#include "core/util/median.h"
#include "experiments/run_directory/run_directory.h"
#include "net_models/nccl_tests_rows.h"
#include "sim/public_checks.h"

namespace compopt::cli {
namespace {

constexpr double kGB = 1e9;
constexpr double kWithinPct = 20;  // the per-case target

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
                                                      {"notes"}});
  return schema;
}

// What the case's cluster takes that neither the thread nor the data file states. CSV cells
// are not quoted (core/util/csv_schema.h), so the data file's commas become semicolons.
std::string notes(const net::NcclTestsRow& row) {
  std::string text = fmt::format(
      "{}; compopt: NICs at efficiency 1 (no calibration row describes this cluster) and "
      "GPU links at NCCL's per-link figure; node-to-node latency of the presets' {} links",
      row.inferred, row.transport);
  std::replace(text.begin(), text.end(), ',', ';');
  return text;
}

}  // namespace

void run_public_checks(const std::string& out, bool overwrite) {
  RunDirectory dir("profile", out, out_mode(overwrite));
  dir.run([&] {
    fmt::print(
        "public nccl-tests allreduce results, predicted by the step simulator's baseline "
        "allreduce (nothing fitted to them)\n");
    fmt::print("{:<18} {:>11} {:<6} | {:>11} {:>8} | {:>11} {:>8} | {:>7}\n", "case", "bytes",
               "algo", "pred us", "GB/s", "paper us", "GB/s", "err %");
    CsvWriter csv(public_checks_schema());
    std::vector<double> errors;
    for (const net::NcclTestsRow& row : net::nccl_tests_public_rows()) {
      const sim::PublicCheck c = sim::predict_public_check(row);
      fmt::print("{:<18} {:>11.0f} {:<6} | {:>11.1f} {:>8.2f} | {:>11.1f}{} {:>8.2f} | {:>+7.1f}\n",
                 row.case_name, row.bytes, c.algorithm, 1e6 * c.predicted_s,
                 c.predicted_busbw_bytes_s / kGB, 1e6 * c.published_s, row.time_us ? " " : "*",
                 c.published_busbw_bytes_s / kGB, c.error_pct);
      csv.add({row.case_name, c.cluster, row.bytes, c.algorithm, 1e6 * c.predicted_s,
               c.predicted_busbw_bytes_s / kGB, 1e6 * c.published_s,
               c.published_busbw_bytes_s / kGB, row.time_us ? "no" : "yes", c.error_pct,
               row.nccl_version, row.url, notes(row)});
      errors.push_back(c.error_pct);
    }
    const auto within = std::count_if(errors.begin(), errors.end(),
                                      [](double e) { return std::abs(e) <= kWithinPct; });
    fmt::print("\n* time implied by the published busbw (the thread prints no time)\n");
    fmt::print(
        "median |error| {:.1f}%, {} of {} cases within {:.0f}% (targets: median 10%, 80% "
        "within 20%)\n",
        median_abs(errors), within, errors.size(), kWithinPct);
    dir.write_file("public_checks.csv", csv.text());
    dir.write_run_json({{"public_checks", "nccl_tests_public"}, {"backend", "sim"}});
  });
  fmt::print("wrote {}/public_checks.csv and run.json\n", dir.path().string());
}

}  // namespace compopt::cli
