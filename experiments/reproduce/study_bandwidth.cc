// Bandwidth sweep ([1BA] §7.2, [1BL] §6): compression-stage speedup of each
// compressed optimizer over its baseline on 256 GPUs as the inter-node
// bandwidth goes from 50 Mbit/s to 1000 Gbit/s (the break-even study's search range), everything
// else as the paper's cluster. No paper gives these curves as numbers, so the report lists ours;
// the end-to-end speedup is 1/(w + (1-w)/s) (docs/algorithms.md) with the warmup fraction w = 0.15
// the convergence runs use.

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "core/util/csv_schema.h"
#include "experiments/reproduce/compression_pairs.h"
#include "experiments/reproduce/markdown_table.h"
#include "experiments/reproduce/simulated_scenarios.h"
#include "experiments/reproduce/study.h"
#include "net_models/cluster_presets.h"

namespace compopt::cli::reproduce {
namespace {

constexpr int kGpus = 256;
constexpr double kWarmupFraction = 0.15;

double end_to_end(double stage_speedup) {
  return 1.0 / (kWarmupFraction + (1.0 - kWarmupFraction) / stage_speedup);
}

// The compression-stage speedup low..high: both optimizers run on the same cluster, so the
// baseline and the compressed step are taken at the same end of each input's range.
FigureBand speedup_band(const SpreadTimings& baseline, const SpreadTimings& compressed) {
  return paired_band(baseline, compressed, [](const StageTimings& base, const StageTimings& comp) {
    return steady_stage(base).step_time_s / steady_stage(comp).step_time_s;
  });
}

}  // namespace

std::string run_bandwidth_study(const StudyContext& context) {
  const std::vector<double> gbps = {0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000};
  const std::vector<double> table_gbps = {0.1, 1, 10, 100, 1000};
  const auto& pairs = compression_pairs();
  std::vector<sim::Scenario> scenarios;  // per pair and bandwidth: baseline, compressed
  for (const CompressionPair& p : pairs)
    for (double b : gbps) {
      scenarios.push_back(pair_scenario(p, p.baseline, kGpus, b));
      scenarios.push_back(pair_scenario(p, p.optimizer, kGpus, b));
    }
  const std::vector<SpreadTimings> timings =
      simulate_scenarios_with_spread(scenarios, context.jobs);

  // The swept value is the effective rate; the preset's NIC runs at effective / efficiency.
  static const CsvSchema schema("bandwidth.csv", {{"workload"},
                                                  {"gpus"},
                                                  {"baseline"},
                                                  {"optimizer"},
                                                  {"inter_node_gbit_s", "{:.6g}"},
                                                  {"inter_node_efficiency"},
                                                  {"inter_node_effective_gbit_s", "{:g}"},
                                                  {"baseline_step_ms", "{:.3f}"},
                                                  {"compressed_step_ms", "{:.3f}"},
                                                  {"speedup", "{:.4f}"},
                                                  {"speedup_low", "{:.4f}"},
                                                  {"speedup_high", "{:.4f}"}});
  CsvWriter csv(schema);
  std::vector<std::string> header = {"workload", "pair"};
  for (double b : table_gbps) header.push_back(fmt::format("{:g} Gbit/s", b));
  MarkdownTable table(header);
  size_t i = 0;
  for (const CompressionPair& p : pairs) {
    std::vector<std::string> row = {p.workload, p.optimizer + " / " + p.baseline};
    for (double b : gbps) {
      const FigureBand speedup = speedup_band(timings[i], timings[i + 1]);
      const double base = steady_stage(timings[i++].expected).step_time_s;
      const double comp = steady_stage(timings[i++].expected).step_time_s;
      const double efficiency = net::cluster_preset(p.cluster).inter_node_efficiency;
      csv.add({p.workload, kGpus, p.baseline, p.optimizer, b / efficiency, efficiency, b,
               1e3 * base, 1e3 * comp, base / comp, speedup.low, speedup.high});
      if (std::find(table_gbps.begin(), table_gbps.end(), b) != table_gbps.end())
        row.push_back(fmt::format("{:.2f}x ({:.2f}x)", base / comp, end_to_end(base / comp)));
    }
    table.add(row);
  }
  context.write_file("bandwidth.csv", csv.text());
  return fmt::format(
      "Compression-stage speedup (baseline step time / compressed step time) on {} GPUs as the "
      "effective inter-node bandwidth (what collectives achieve, the preset's NIC rate x its "
      "calibrated efficiency) varies, each pair on its paper's cluster; in brackets the end-to-end "
      "speedup 1/(w + (1-w)/s) for a warmup fraction w = {} (docs/algorithms.md). Full curves "
      "(0.05-1000 Gbit/s) in bandwidth.csv and the figure.\n\n{}",
      kGpus, kWarmupFraction, table.str());
}

}  // namespace compopt::cli::reproduce
