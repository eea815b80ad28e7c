#pragma once
// A scenario of `compopt profile` / `compopt sweep`: named presets plus
// overrides, resolved into a StepConfig, and its CSV row format (one row per
// scenario and optimizer stage).

#include <optional>
#include <string>

#include "sim/step_simulator.h"

namespace compopt::sim {

// Larger clusters take hours to simulate on one machine; resolve_scenario refuses them.
inline constexpr int kMaxScenarioGpus = 16384;
// A larger micro-batch or accumulation exceeds any GPU's memory or any published setup; each
// bucket is one more simulated collective per step.
inline constexpr int kMaxScenarioBatch = 1 << 20;
inline constexpr int kMaxScenarioGradAccum = 1 << 20;
inline constexpr int kMaxScenarioBuckets = 4096;

struct Scenario {
  std::string workload = "bert-large-seq128";  // preset, unless workload_spec is set
  std::string cluster = "ethernet-v100-4";     // preset, unless cluster_spec is set
  std::optional<net::WorkloadSpec> workload_spec = std::nullopt;  // a workload in full
  std::optional<net::ClusterSpec> cluster_spec = std::nullopt;    // a cluster in full
  std::string gpu = {};                                           // empty: the cluster's GPU
  std::string platform_file = {};  // replaces the preset's generated platform
  std::string optimizer = "adam";
  int gpus = 0;                // 0: the preset's nodes x gpus_per_node
  int gpus_per_node = 0;       // 0: the preset's (applied before `gpus`)
  double inter_node_gbps = 0;  // 0: the preset's
  std::string topology = {};   // empty: the preset's
  int batch_per_gpu = 0;       // 0: the workload's default
  int grad_accum = 1;
  bool overlap = false;
  int buckets = 0;
};

// Throws InvalidArgument naming the bad value (unknown preset or optimizer,
// GPU count not divisible into nodes, non-positive bandwidth, ...).
StepConfig resolve_scenario(const Scenario& scenario);

// Columns: inter_node_gbit_s is the NIC's nominal rate; the simulated links run at
// inter_node_effective_gbit_s = nominal x inter_node_efficiency (the preset's fit).
std::string scenario_csv_header();
std::string scenario_csv_row(const StepConfig& config, const StageTiming& timing);

}  // namespace compopt::sim
