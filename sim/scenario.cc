#include "sim/scenario.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "core/optim/optimizer_registry.h"
#include "core/util/csv_schema.h"
#include "core/util/error.h"
#include "net_models/bandwidth_spread.h"
#include "net_models/cluster_presets.h"
#include "net_models/compute_model.h"
#include "sim/model_error.h"

namespace compopt::sim {
namespace {

constexpr double kBytesPerGb = 1e9;  // GB as the GPU's hbm_gb counts them
constexpr const char* kGb = "{:.3f}";

// Resolves each phase of s.training (a phase that does not resolve throws naming it); with
// total_samples the phases must share one global batch, which turns samples into steps.
void check_phase_scenarios(const Scenario& s) {
  const std::vector<Scenario> phases = phase_scenarios(s);
  int64_t first_batch = 0;
  for (size_t i = 0; i < phases.size(); ++i) {
    const std::string& name = s.training.phases[i].workload.name;
    StepConfig config;
    try {
      config = resolve_scenario(phases[i]);
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(fmt::format("training.phases[{}] ({}): {}", i + 1, name, e.what()));
    }
    const int64_t batch = global_batch(config);
    if (i == 0) first_batch = batch;
    if (s.training.total_samples > 0 && batch != first_batch) {
      throw InvalidArgument(fmt::format(
          "training.total_samples = {} with training.phases of different global batches "
          "(phase 1 {}: {} samples per step, phase {} {}: {}): expected training.total_steps, "
          "which the phases share",
          s.training.total_samples, s.training.phases[0].workload.name, first_batch, i + 1, name,
          batch));
    }
  }
}

}  // namespace

std::vector<Scenario> phase_scenarios(const Scenario& scenario) {
  std::vector<Scenario> out;
  out.reserve(scenario.training.phases.size());
  for (const TrainingPhase& phase : scenario.training.phases) {
    Scenario s = scenario;
    s.workload = phase.workload.name;
    s.workload_spec = phase.workload;
    if (phase.batch_per_gpu > 0) s.batch_per_gpu = phase.batch_per_gpu;
    if (phase.grad_accum > 0) s.grad_accum = phase.grad_accum;
    s.training = {};
    out.push_back(std::move(s));
  }
  return out;
}

StepConfig resolve_scenario(const Scenario& s) {
  StepConfig config;
  config.workload = s.workload_spec ? *s.workload_spec : net::workload_preset(s.workload);
  config.workload.validate();
  net::ClusterSpec cluster = s.cluster_spec ? *s.cluster_spec : net::cluster_preset(s.cluster);
  if (!s.gpu.empty()) cluster.gpu = net::gpu_preset(s.gpu);
  if (!s.topology.empty()) cluster.topology = net::parse_topology(s.topology);
  if (s.inter_node_gbps != 0) cluster.inter_node_gbps = s.inter_node_gbps;
  if (s.gpus_per_node < 0)
    throw InvalidArgument(fmt::format("gpus_per_node = {}, expected >= 1", s.gpus_per_node));
  if (s.gpus_per_node != 0) cluster.gpus_per_node = s.gpus_per_node;
  if (s.nics_per_node < 0)
    throw InvalidArgument(fmt::format("nics_per_node = {}, expected >= 1", s.nics_per_node));
  if (s.nics_per_node != 0) cluster.nics_per_node = s.nics_per_node;
  if (s.gpus < 0 || s.gpus > kMaxScenarioGpus)
    throw InvalidArgument(
        fmt::format("gpus = {}, expected 1..{} (0 = the preset's)", s.gpus, kMaxScenarioGpus));
  if (s.gpus != 0) cluster = net::with_gpus(cluster, s.gpus);
  if (!s.platform_file.empty()) cluster.platform_file = s.platform_file;
  cluster.validate();
  // A workload computing in a precision the GPU lacks (bf16 on a V100) fails here, before any
  // simulation, naming the GPU and the precision.
  // tf32 on a GPU without a tf32 unit computes fp32 (net_models/compute_model.h).
  cluster.gpu.peak_flops(net::precision_on(cluster.gpu, config.workload.compute_precision));
  check_step_optimizer(s.optimizer);
  if (s.batch_per_gpu < 0 || s.batch_per_gpu > kMaxScenarioBatch)
    throw InvalidArgument(fmt::format("batch_per_gpu = {}, expected 1..{} (0 = the workload's)",
                                      s.batch_per_gpu, kMaxScenarioBatch));
  if (s.grad_accum < 1 || s.grad_accum > kMaxScenarioGradAccum)
    throw InvalidArgument(
        fmt::format("grad_accum = {}, expected 1..{}", s.grad_accum, kMaxScenarioGradAccum));
  if (s.buckets < 0 || s.buckets > kMaxScenarioBuckets)
    throw InvalidArgument(fmt::format("buckets = {}, expected 0..{} (0 = the implementation's)",
                                      s.buckets, kMaxScenarioBuckets));
  config.cluster = cluster;
  config.optimizer = optimizer_registry().canonical(s.optimizer);  // sgdm -> momentum-sgd
  config.batch_per_gpu =
      s.batch_per_gpu > 0 ? s.batch_per_gpu : config.workload.default_batch_per_gpu;
  config.grad_accum = s.grad_accum;
  config.implementation = implementation_profile(s.implementation).name;  // deepspeed -> ...-2020
  config.overlap = s.overlap;
  config.buckets = s.buckets;
  config.compressed_collectives = s.compressed_collectives;
  check_training(s.training, config.optimizer);
  check_phase_scenarios(s);
  return config;
}

const CsvSchema& scenario_csv_schema() {
  static const CsvSchema schema("scenario CSV", {{"workload"},
                                                 {"cluster"},
                                                 {"topology"},
                                                 {"optimizer"},
                                                 {"stage"},
                                                 {"nodes"},
                                                 {"gpus_per_node"},
                                                 {"gpus"},
                                                 {"inter_node_gbit_s"},
                                                 {"inter_node_efficiency"},
                                                 {"inter_node_effective_gbit_s", "{:.6g}"},
                                                 {"inter_node_spread_low", "{:.4g}"},
                                                 {"inter_node_spread_high", "{:.4g}"},
                                                 {"intra_node_spread_low", "{:.4g}"},
                                                 {"intra_node_spread_high", "{:.4g}"},
                                                 {"batch_per_gpu"},
                                                 {"grad_accum"},
                                                 {"overlap"},
                                                 {"implementation"},
                                                 {"forward_s", "{:.6e}"},
                                                 {"backward_compute_s", "{:.6e}"},
                                                 {"comm_s", "{:.6e}"},
                                                 {"compress_s", "{:.6e}"},
                                                 {"step_s", "{:.6e}"},
                                                 {"step_time_s", "{:.6e}"},
                                                 {"throughput_samples_s", "{:.3f}"},
                                                 {"step_time_low_s", "{:.6e}"},
                                                 {"step_time_high_s", "{:.6e}"},
                                                 {"throughput_low_samples_s", "{:.3f}"},
                                                 {"throughput_high_samples_s", "{:.3f}"},
                                                 {"band_model_error", "{:.4f}"},
                                                 {"allreduce_pct", "{:.2f}"},
                                                 {"bytes_per_gpu", "{:.0f}"},
                                                 {"inter_node_bytes", "{:.0f}"},
                                                 {"gpu"},
                                                 {"compute_precision"},
                                                 {"compute_utilization", "{:.4f}"},
                                                 {"total_steps"},
                                                 {"warmup_steps"},
                                                 {"time_to_train_h", "{:.6g}"},
                                                 {"time_to_train_low_h", "{:.6g}"},
                                                 {"time_to_train_high_h", "{:.6g}"},
                                                 {"steps_to_target"},
                                                 {"time_to_target_h", "{:.6g}"},
                                                 {"time_to_target_low_h", "{:.6g}"},
                                                 {"time_to_target_high_h", "{:.6g}"},
                                                 {"training_phases"},
                                                 {"memory_weights_gb", kGb},
                                                 {"memory_gradients_gb", kGb},
                                                 {"memory_optimizer_gb", kGb},
                                                 {"memory_activations_gb", kGb},
                                                 {"memory_total_gb", kGb},
                                                 {"gpu_memory_gb", kGb},
                                                 {"fits_in_memory"},
                                                 {"memory_phase"},
                                                 {"nics_per_node"},
                                                 {"rail_optimized"},
                                                 {"algorithm"},
                                                 {"buckets_used"},
                                                 {"compute_source"},
                                                 {"compute_utilization_source"}});
  return schema;
}

std::string scenario_csv_header() { return scenario_csv_schema().header(); }

const std::vector<std::string>& scenario_key_columns() {
  static const std::vector<std::string> columns = {
      "workload",          "cluster",       "topology",         "nodes",
      "gpus_per_node",     "nics_per_node", "rail_optimized",   "gpus",
      "inter_node_gbit_s", "batch_per_gpu", "grad_accum",       "overlap",
      "implementation",    "gpu",           "compute_precision"};
  return columns;
}

namespace {

// The scenario's cluster and batch columns, up to the implementation.
std::vector<CsvCell> scenario_cells(const StepConfig& c, const StageTiming& t,
                                    const ScenarioTotals& totals) {
  const net::ClusterSpec& k = c.cluster;
  return {c.workload.name,
          k.name,
          net::topology_name(k.topology),
          c.optimizer,
          t.stage,
          k.nodes,
          k.gpus_per_node,
          k.gpus(),
          k.inter_node_gbps,
          k.inter_node_efficiency,
          k.inter_node_gbps * k.inter_node_efficiency,
          totals.spreads.inter_node.low,
          totals.spreads.inter_node.high,
          totals.spreads.intra_node.low,
          totals.spreads.intra_node.high,
          c.batch_per_gpu,
          c.grad_accum,
          overlap_mode_name(c.overlap),
          c.implementation};
}

}  // namespace

std::string scenario_csv_row(const StepConfig& c, const StageTiming& t,
                             const ScenarioTotals& totals) {
  const net::ClusterSpec& k = c.cluster;
  const TrainingTime& run = totals.training;
  const GpuMemory& m = totals.memory;
  const StageBounds& b = totals.bounds.at(t.stage);
  std::vector<CsvCell> cells = scenario_cells(c, t, totals);
  const std::vector<CsvCell> rest = {
      t.forward_s,
      t.backward_compute_s,
      t.comm_s,
      t.compress_s,
      t.step_s,
      t.step_time_s,
      t.throughput_samples_s,
      b.step_time_low_s,
      b.step_time_high_s,
      b.throughput_low_samples_s,
      b.throughput_high_samples_s,
      model_error().fraction,
      t.allreduce_pct(),
      t.bytes_per_gpu,
      t.inter_node_bytes,
      k.gpu.name,
      net::precision_name(net::precision_on(k.gpu, c.workload.compute_precision)),
      t.compute_utilization,
      run.total_steps,
      run.warmup_steps,
      run.time_to_train_h,
      totals.training_low.time_to_train_h,
      totals.training_high.time_to_train_h,
      run.steps_to_target,
      run.time_to_target_h,
      totals.training_low.time_to_target_h,
      totals.training_high.time_to_target_h,
      run.phases,
      m.weights_bytes / kBytesPerGb,
      m.gradients_bytes / kBytesPerGb,
      m.optimizer_bytes / kBytesPerGb,
      m.activations_bytes / kBytesPerGb,
      m.total_bytes() / kBytesPerGb,
      m.gpu_bytes / kBytesPerGb,
      m.fits(),
      totals.memory_phase,
      k.nics_per_node,
      k.rail_optimized,
      t.algorithm,
      t.buckets,
      std::string(c.workload.measured() ? "measured" : "model"),
      net::utilization_source_kind(
          net::compute_times(c.workload, k.gpu, c.batch_per_gpu, c.grad_accum))};
  cells.insert(cells.end(), rest.begin(), rest.end());
  return scenario_csv_schema().row(cells);
}

namespace {

// The whole-run figures of each input's low and high run.
using TrainingRuns = std::vector<std::pair<TrainingTime, TrainingTime>>;

// Sets `field` of `low` and `high` to the band of the expected run's figure over `runs`,
// widened by the model-error term (model_error.h); an absent figure stays absent.
void bound_hours(std::optional<double> TrainingTime::*field, const TrainingTime& expected,
                 const TrainingRuns& runs, TrainingTime& low, TrainingTime& high) {
  if (!(expected.*field)) return;
  std::vector<std::pair<double, double>> ends;
  for (const auto& [a, b] : runs)
    ends.emplace_back((a.*field).value_or(*(expected.*field)),
                      (b.*field).value_or(*(expected.*field)));
  const Band band = predicted_time_band(*(expected.*field), ends);
  low.*field = band.low;
  high.*field = band.high;
}

// The phases of the run at their expected step times: `phases`, or the scenario's own step.
std::vector<PhaseTimings> expected_phases(const StepConfig& config,
                                          const std::vector<StageTiming>& timings,
                                          const std::vector<SimulatedPhase>& phases) {
  if (phases.empty()) return {{config, timings}};
  std::vector<PhaseTimings> out;
  out.reserve(phases.size());
  for (const SimulatedPhase& p : phases) out.push_back({p.config, p.timings});
  return out;
}

// The whole run with `input` at its low (or high) end in every phase whose spread moves it.
TrainingTime run_at_end(const TrainingSpec& training, std::vector<PhaseTimings> run,
                        const std::vector<const StepSpread*>& spreads, const std::string& input,
                        bool high) {
  for (size_t i = 0; i < run.size(); ++i) {
    for (const InputRuns& r : spreads[i]->inputs)
      if (r.input == input) run[i].timings = high ? r.high : r.low;
  }
  return time_to_train(training, run);
}

// The whole-run figures of each input's low and high run, over every phase.
TrainingRuns training_runs(const TrainingSpec& training, const std::vector<PhaseTimings>& run,
                           const StepSpread& spread, const std::vector<SimulatedPhase>& phases) {
  std::vector<const StepSpread*> spreads;  // one per phase of `run`
  if (phases.empty()) spreads.push_back(&spread);
  for (const SimulatedPhase& p : phases) spreads.push_back(&p.spread);
  std::vector<std::string> inputs;  // every input some phase moves, in order of first appearance
  for (const StepSpread* s : spreads) {
    for (const InputRuns& r : s->inputs)
      if (std::find(inputs.begin(), inputs.end(), r.input) == inputs.end())
        inputs.push_back(r.input);
  }
  TrainingRuns runs;
  for (const std::string& input : inputs)
    runs.emplace_back(run_at_end(training, run, spreads, input, false),
                      run_at_end(training, run, spreads, input, true));
  return runs;
}

// The phase needing the most memory per GPU, and its label; the scenario's own without phases.
std::pair<GpuMemory, std::string> peak_memory(const StepConfig& config,
                                              const std::vector<SimulatedPhase>& phases) {
  if (phases.empty()) return {estimate_gpu_memory(config), ""};
  std::pair<GpuMemory, std::string> peak;
  for (const SimulatedPhase& p : phases) {
    const GpuMemory m = estimate_gpu_memory(p.config);
    if (peak.second.empty() || m.total_bytes() > peak.first.total_bytes()) {
      peak = {m, fmt::format("{} at batch {}x{}", p.config.workload.name, p.config.batch_per_gpu,
                             p.config.grad_accum)};
    }
  }
  return peak;
}

}  // namespace

ScenarioTotals scenario_totals(const StepConfig& config, const TrainingSpec& training,
                               const std::vector<StageTiming>& timings, const StepSpread& spread,
                               const std::vector<SimulatedPhase>& phases) {
  if (phases.size() != training.phases.size()) {
    throw std::logic_error(fmt::format("scenario_totals: {} simulated phases for {} phases",
                                       phases.size(), training.phases.size()));
  }
  ScenarioTotals totals;
  const std::vector<PhaseTimings> run = expected_phases(config, timings, phases);
  totals.training = time_to_train(training, run);
  std::tie(totals.memory, totals.memory_phase) = peak_memory(config, phases);
  for (size_t i = 0; i < timings.size(); ++i)
    totals.bounds[timings[i].stage] = stage_bounds(timings, spread, i);
  const TrainingRuns runs = training_runs(training, run, spread, phases);
  totals.training_low = totals.training_high = totals.training;
  for (auto field : {&TrainingTime::time_to_train_h, &TrainingTime::time_to_target_h})
    bound_hours(field, totals.training, runs, totals.training_low, totals.training_high);
  totals.spreads = net::link_spreads(config.cluster);
  return totals;
}

ScenarioTotals scenario_totals(const StepConfig& config, const TrainingSpec& training,
                               const std::vector<StageTiming>& timings) {
  return scenario_totals(config, training, timings, simulate_step_spread(config));
}

}  // namespace compopt::sim
