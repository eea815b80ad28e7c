#pragma once
// A scenario of `compopt profile` / `compopt sweep`: named presets plus
// overrides, resolved into a StepConfig, and its CSV row format (one row per
// scenario and optimizer stage; the whole-run columns, time_to_train.h and
// gpu_memory.h, repeat the scenario's figures on each of its stage rows).

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "net_models/bandwidth_spread.h"
#include "sim/gpu_memory.h"
#include "sim/step_simulator.h"
#include "sim/step_spread.h"
#include "sim/time_to_train.h"

namespace compopt::sim {

// The cluster's limit (net_models/cluster_spec.h); resolve_scenario refuses more.
inline constexpr int kMaxScenarioGpus = net::kMaxClusterGpus;
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
  int nics_per_node = 0;       // 0: the cluster's
  double inter_node_gbps = 0;  // 0: the preset's
  std::string topology = {};   // empty: the preset's
  int batch_per_gpu = 0;       // 0: the workload's default
  int grad_accum = 1;
  std::string implementation = kDefaultImplementation;  // implementation_profile.h
  OverlapMode overlap = OverlapMode::kAuto;
  int buckets = 0;
  std::string compressed_collectives = {};  // empty: the implementation's (framework_collectives.h)
  TrainingSpec training = {};               // [training]: whole-run figures, none by default
};

// One phase of a scenario's [training] run (training_phases.h) simulated: its resolved config
// (phase_scenarios), its step and the step's spread.
struct SimulatedPhase {
  StepConfig config;
  std::vector<StageTiming> timings;
  StepSpread spread;
};

// The whole-run figures of a scenario, the same on each of its stage rows, and the low / high
// band of each stage (step_spread.h: root-sum-square over the uncertain inputs).
struct ScenarioTotals {
  TrainingTime training;
  GpuMemory memory;          // with phases: the phase needing the most memory per GPU
  std::string memory_phase;  // that phase's workload and batch; empty without phases
  std::map<std::string, StageBounds> bounds;  // by stage name
  // The band of the time to train and to target (fewer hours first).
  TrainingTime training_low, training_high;
  net::LinkSpreads spreads;  // the bandwidth factors and their source
};

// Throws InvalidArgument naming the bad value (unknown preset or optimizer,
// GPU count not divisible into nodes, non-positive bandwidth, a [training] spec
// check_training refuses, a phase that does not resolve, phases of different global batches
// with total_samples, ...).
StepConfig resolve_scenario(const Scenario& scenario);

// The scenario of each phase of scenario.training (none without phases): the scenario with the
// phase's workload, and its batch_per_gpu / grad_accum where it gives them, and no [training].
std::vector<Scenario> phase_scenarios(const Scenario& scenario);

// Columns: inter_node_gbit_s is the NIC's nominal rate; the simulated links run at
// inter_node_effective_gbit_s = nominal x inter_node_efficiency (the preset's fit). The
// *_low / *_high columns are the band of the expected figure over the uncertain inputs
// (step_spread.h; *_spread_low/high are the bandwidth inputs' factors).
std::string scenario_csv_header();
// The CSV columns that tell scenarios apart besides the optimizer (groups of the end-to-end
// speedup and of the sweep's table).
const std::vector<std::string>& scenario_key_columns();
std::string scenario_csv_row(const StepConfig& config, const StageTiming& timing,
                             const ScenarioTotals& totals);
// `timings` are simulate_step(config)'s rows and `spread` simulate_step_spread(config)
// (step_spread.h), `phases` those of each phase_scenarios(...)[i] when `training` has phases:
// the totals computed from them, without simulating. The band of the time to train moves each
// uncertain input in every phase at once.
ScenarioTotals scenario_totals(const StepConfig& config, const TrainingSpec& training,
                               const std::vector<StageTiming>& timings, const StepSpread& spread,
                               const std::vector<SimulatedPhase>& phases = {});
// The same, running the simulations of the spread in this process (training without phases).
ScenarioTotals scenario_totals(const StepConfig& config, const TrainingSpec& training,
                               const std::vector<StageTiming>& timings);

}  // namespace compopt::sim
