// Scalability study: throughput against GPU count (8 ... 256) on the papers'
// clusters — Adam vs 1-bit Adam and LAMB vs 1-bit LAMB for BERT-Large on the
// 4-GPU-per-node V100 Ethernet cluster ([1BA] Fig. 4, [1BL] Fig. 4), and
// SGDM/BertAdam vs 1-bit Adam vs Birder for ResNet-50 and BERT-Base on the
// 8-GPU-per-node A100 cluster with 10 Gbit/s Ethernet ([BIR] Fig. 3, Tables 1-2).
// Birder's single-node throughputs are the only published points on these
// curves; the baseline ones calibrated the A100 compute, the compressed ones
// are predictions.

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/util/csv_schema.h"
#include "experiments/reproduce/markdown_table.h"
#include "experiments/reproduce/simulated_scenarios.h"
#include "experiments/reproduce/study.h"
#include "net_models/calibration_rows.h"

namespace compopt::cli::reproduce {
namespace {

struct Comparison {
  std::string name, workload, cluster;
  std::vector<std::string> optimizers;
  int batch_per_gpu;
  // The paper's software: 1-bit Adam / LAMB on DeepSpeed's engine (MPI / NCCL backend), Birder on
  // PyTorch 1.11 with its collectives after backward (compression_pairs.cc).
  std::string implementation;
};

const std::vector<Comparison>& comparisons() {
  static const std::vector<Comparison> list = {
      {"adam_onebit_adam",
       "bert-large-seq128",
       "ethernet-v100-4",
       {"adam", "onebit-adam"},
       16,
       "deepspeed-2020"},
      {"lamb_onebit_lamb",
       "bert-large-seq128",
       "ethernet-v100-4",
       {"lamb", "onebit-lamb"},
       16,
       "deepspeed-2021"},
      {"birder_resnet50",
       "resnet50-imagenet",
       "ethernet-a100-8",
       {"momentum-sgd", "onebit-adam", "birder"},
       32,
       "pytorch-2022"},
      {"birder_bert_base",
       "bert-base-squad",
       "ethernet-a100-8",
       {"bertadam", "onebit-adam", "birder"},
       3,
       "pytorch-2022"},
  };
  return list;
}

std::optional<double> published_throughput(const std::string& workload,
                                           const std::string& optimizer, int gpus, int batch) {
  for (const net::ThroughputRow& row : net::birder_single_node_rows())
    if (row.workload == workload && same_step_optimizer(row.optimizer, optimizer) &&
        row.gpus == gpus && row.batch_per_gpu == batch)
      return row.throughput_samples_s;
  return std::nullopt;
}

// The baselines whose published single-node throughputs calibrated the A100 compute.
const std::vector<std::string> kCalibrationBaselines = {"momentum-sgd", "bertadam"};

bool fits_baseline_compute(const std::string& optimizer) {
  return std::any_of(kCalibrationBaselines.begin(), kCalibrationBaselines.end(),
                     [&](const std::string& b) { return same_step_optimizer(b, optimizer); });
}

// One simulated configuration: an optimizer of a comparison at a GPU count and batch.
struct Point {
  const Comparison* comparison;
  std::string optimizer;
  int gpus, batch;
};

// Every comparison's optimizers at 8 ... 256 GPUs, then ResNet-50 at batch 128
// on one node (Birder's single-node table has that second batch size).
std::vector<Point> scalability_points() {
  const std::vector<int> gpu_counts = {8, 16, 32, 64, 128, 256};
  std::vector<Point> points;
  for (const Comparison& c : comparisons())
    for (const std::string& optimizer : c.optimizers)
      for (int gpus : gpu_counts) points.push_back({&c, optimizer, gpus, c.batch_per_gpu});
  for (const std::string& optimizer : comparisons()[2].optimizers)
    points.push_back({&comparisons()[2], optimizer, 8, 128});
  return points;
}

sim::Scenario scenario_of(const Point& p) {
  sim::Scenario s;
  s.workload = p.comparison->workload;
  s.cluster = p.comparison->cluster;
  s.optimizer = p.optimizer;
  s.implementation = p.comparison->implementation;
  s.gpus = p.gpus;
  s.batch_per_gpu = p.batch;
  return s;
}

// The comparison's name, with "_b<batch>" for a batch other than its own.
std::string point_name(const Point& p) {
  return p.batch == p.comparison->batch_per_gpu
             ? p.comparison->name
             : fmt::format("{}_b{}", p.comparison->name, p.batch);
}

const CsvSchema& scalability_schema() {
  static const CsvSchema schema("scalability.csv", {{"comparison"},
                                                    {"workload"},
                                                    {"cluster"},
                                                    {"optimizer"},
                                                    {"stage"},
                                                    {"gpus"},
                                                    {"nodes"},
                                                    {"gpus_per_node"},
                                                    {"inter_node_gbit_s"},
                                                    {"inter_node_efficiency"},
                                                    {"inter_node_effective_gbit_s", "{:.6g}"},
                                                    {"batch_per_gpu"},
                                                    {"throughput_samples_s", "{:.2f}"},
                                                    {"throughput_low_samples_s", "{:.2f}"},
                                                    {"throughput_high_samples_s", "{:.2f}"},
                                                    {"step_ms", "{:.3f}"},
                                                    {"allreduce_ms", "{:.3f}"},
                                                    {"published_throughput_samples_s", "{:.0f}"}});
  return schema;
}

// One CSV row per stage of point `p` (simulated as `scenario`), with the stage's throughput
// low..high band over the uncertain inputs.
void add_csv_rows(CsvWriter& csv, const Point& p, const sim::Scenario& scenario,
                  const SpreadTimings& timings, std::optional<double> paper) {
  const sim::StepConfig config = sim::resolve_scenario(scenario);
  const net::ClusterSpec& cluster = config.cluster;
  const std::string name = point_name(p);
  for (size_t i = 0; i < timings.expected.size(); ++i) {
    const sim::StageTiming& t = timings.expected[i];
    const FigureBand throughput =
        figure_band(timings, [&](const StageTimings& run) { return run[i].throughput_samples_s; });
    csv.add({name, p.comparison->workload, p.comparison->cluster, p.optimizer, t.stage, p.gpus,
             cluster.nodes, cluster.gpus_per_node, cluster.inter_node_gbps,
             cluster.inter_node_efficiency, cluster.inter_node_gbps * cluster.inter_node_efficiency,
             p.batch, t.throughput_samples_s, throughput.low, throughput.high, 1e3 * t.step_time_s,
             1e3 * t.comm_s, paper});
  }
}

void add_published_row(MarkdownTable& published, const Point& p, double ours, double paper) {
  published.add({p.comparison->workload, p.optimizer, std::to_string(p.gpus),
                 std::to_string(p.batch), fixed(ours), fixed(paper, 0), relative_error(ours, paper),
                 fits_baseline_compute(p.optimizer) ? "calibration (in-sample)"
                                                    : "prediction (out-of-sample)"});
}

// Steady-stage throughput by (point name, optimizer, GPUs).
using ThroughputMap = std::map<std::tuple<std::string, std::string, int>, double>;

// Each compressed optimizer against its comparison's baseline at 8 and 256 GPUs.
MarkdownTable speedup_table(const ThroughputMap& throughput) {
  MarkdownTable speedups(
      {"comparison", "GPUs", "baseline samples/s", "compressed optimizer", "samples/s", "speedup"});
  for (const Comparison& c : comparisons())
    for (size_t o = 1; o < c.optimizers.size(); ++o)
      for (int gpus : {8, 256}) {
        const double base = throughput.at({c.name, c.optimizers[0], gpus});
        const double ours = throughput.at({c.name, c.optimizers[o], gpus});
        speedups.add({c.name, std::to_string(gpus), fixed(base), c.optimizers[o], fixed(ours),
                      fmt::format("{:.2f}x", ours / base)});
      }
  return speedups;
}

}  // namespace

std::string run_scalability_study(const StudyContext& context) {
  const std::vector<Point> points = scalability_points();
  std::vector<sim::Scenario> scenarios;
  scenarios.reserve(points.size());
  for (const Point& p : points) scenarios.push_back(scenario_of(p));
  const std::vector<SpreadTimings> timings =
      simulate_scenarios_with_spread(scenarios, context.jobs);
  CsvWriter csv(scalability_schema());
  MarkdownTable published({"workload", "optimizer", "GPUs", "batch/GPU", "samples/s (ours)",
                           "samples/s (published)", "error", "role of the published value"});
  ThroughputMap throughput;
  for (size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    const auto paper = published_throughput(p.comparison->workload, p.optimizer, p.gpus, p.batch);
    add_csv_rows(csv, p, scenarios[i], timings[i], paper);
    const double ours = steady_stage(timings[i].expected).throughput_samples_s;
    if (paper) add_published_row(published, p, ours, *paper);
    throughput[{point_name(p), p.optimizer, p.gpus}] = ours;
  }
  context.write_file("scalability.csv", csv.text());
  return fmt::format(
      "Throughput (samples/s, compression stage for the compressed optimizers) against GPU count "
      "on the papers' clusters: BERT-Large on ethernet-v100-4 (4 V100 per node, 4.1 Gbit/s "
      "effective), ResNet-50 (batch 32/GPU) and BERT-Base SQuAD (batch 3/GPU) on ethernet-a100-8 "
      "(8 A100 per node, 10 Gbit/s).\n\nPublished points (Birder Tables 1-2, one node of 8 "
      "GPUs):\n\n{}\nSpeedup of the compressed optimizers over the baseline:\n\n{}",
      published.str(), speedup_table(throughput).str());
}

}  // namespace compopt::cli::reproduce
