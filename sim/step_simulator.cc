#include "sim/step_simulator.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <utility>

#include "core/optim/optimizer_registry.h"
#include "core/util/error.h"
#include "net_models/compute_model.h"
#include "sim/allreduce_algorithm.h"
#include "sim/charged_stage.h"
#include "sim/framework_collectives.h"
#include "sim/overlap_mode.h"
#include "sim/step_collectives.h"

namespace compopt::sim {

namespace {

// The bucket count of an overlapped stage: `buckets`, or the implementation's bucket size
// over the `modeled`-element vector.
int bucket_count(const StepConfig& config, double modeled) {
  if (config.buckets > 0) return config.buckets;
  return default_bucket_count(implementation_profile(config.implementation), modeled,
                              config.workload.wire_bytes());
}

// The overlap mode in force: StepConfig::overlap, or under auto the implementation's issue point.
OverlapMode effective_overlap(const StepConfig& config) {
  if (config.overlap != OverlapMode::kAuto) return config.overlap;
  return implementation_profile(config.implementation).issue;
}

// Where each stage's collectives sit in a step's requests: its whole vector's, and for a
// stage that overlaps backward one bucket's (-1 otherwise).
struct StepRequests {
  std::vector<CollectiveRequest> list;
  std::vector<int> whole, bucket;
};

StepRequests step_requests(const StepConfig& config, const std::vector<ChargedStage>& stages,
                           double modeled, bool spans) {
  StepRequests out;
  for (const ChargedStage& stage : stages) {
    const double elements = modeled * stage.vector_scale;
    out.whole.push_back(static_cast<int>(out.list.size()));
    out.list.push_back({&stage, elements, spans});
    const bool overlap = overlaps_backward(effective_overlap(config), stage.overlap);
    out.bucket.push_back(overlap ? static_cast<int>(out.list.size()) : -1);
    if (overlap) out.list.push_back({&stage, elements / bucket_count(config, elements), spans});
  }
  return out;
}

// The stage's communication not hidden behind backward when its vector goes out in identical
// buckets of backward time beta/B and comm time c: bucket k's allreduce starts when both its
// gradients and the previous allreduce are done, so max(c, B c - (B-1) beta/B) is exposed.
// beta is the backward of the last micro-batch only: with accumulation every implementation
// synchronises once, after the last micro-batch (DDP's no_sync before it).
// Without StepConfig::buckets, the implementation's buckets (DDP's 25 MB, DeepSpeed's 5e8
// elements) or one bucket (the bucket size raised to the whole vector: the allreduce after
// backward), whichever exposes less, as a tuned run would set it. `phases` holds the whole
// collective's spans on entry.
double bucketed_comm_s(int buckets, bool buckets_given, double whole_s, CommMeasure& bucket,
                       double backward_s, StagePhases& phases) {
  const double c = bucket.seconds;
  const double exposed = std::max(c, buckets * c - (buckets - 1) * backward_s / buckets);
  const bool one_bucket = !buckets_given && whole_s < exposed;
  phases.buckets = one_bucket ? 1 : buckets;
  phases.bucket_s = one_bucket ? whole_s : c;
  if (!one_bucket) phases.spans = std::move(bucket.spans);
  return one_bucket ? whole_s : exposed;
}

// A stage that communicates once every `period` steps, or a share of its collective, pays that
// share of its communication, compression and traffic on each step.
void charge_per_step(const ChargedStage& stage, StageTiming& t) {
  t.comm_s *= stage.charge_scale;
  t.compress_s *= stage.charge_scale;
  t.bytes_per_gpu *= stage.charge_scale;
  t.inter_node_bytes *= stage.charge_scale;
  if (!stage.charge_note.empty()) t.algorithm += " (" + stage.charge_note + ")";
}

// ZeRO-2 / 3 reduce the gradients after every micro-batch: each micro-batch's backward hides
// its own buckets as the last one does, so the step pays the exposed time and traffic
// `grad_accum` times. Only the gradient's own collective (a stage bucketed behind backward in
// the registry); a vector the optimizer step forms is sent once per step.
void charge_every_micro_batch(int grad_accum, StageTiming& t) {
  t.comm_s *= grad_accum;
  t.bytes_per_gpu *= grad_accum;
  t.inter_node_bytes *= grad_accum;
}

// Adds the forward all-gather of the weights to a row, exposed (not hidden behind forward),
// once per micro-batch.
void charge_parameter_gather(const CommMeasure& gather, const ChargedStage& stage, int grad_accum,
                             StageTiming& t) {
  const double share = stage.charge_scale * grad_accum;
  t.comm_s += gather.seconds * share;
  t.bytes_per_gpu += gather.bytes_per_gpu * share;
  t.inter_node_bytes += gather.inter_node_bytes * share;
  t.algorithm += " + forward parameter all-gather (" + gather.algorithm + "; exposed)";
}

}  // namespace

std::vector<std::string> step_optimizer_names() { return optimizer_registry().names(); }

void check_step_optimizer(std::string_view optimizer) { optimizer_registry().get(optimizer); }

namespace {

// The checks simulate_step makes before simulating; throws InvalidArgument.
void check_step_config(const StepConfig& config) {
  config.workload.validate();
  config.cluster.validate();
  choose_allreduce_algorithm(config.cluster.allreduce_algorithm, 0, config.cluster);
  implementation_profile(config.implementation);
  if (!config.compressed_collectives.empty()) framework_collectives(config.compressed_collectives);
  if (config.batch_per_gpu < 0) {
    throw InvalidArgument(fmt::format("batch_per_gpu = {}, expected >= 1", config.batch_per_gpu));
  }
  if (config.grad_accum < 1) {
    throw InvalidArgument(fmt::format("grad_accum = {}, expected >= 1", config.grad_accum));
  }
  if (config.buckets < 0)
    throw InvalidArgument(fmt::format("buckets = {}, expected >= 0", config.buckets));
}

// The row's communication: the whole collective, or for a stage overlapping backward its
// buckets behind the last micro-batch's backward; sets the buckets used.
void charge_comm(const StepConfig& config, const ChargedStage& stage, double elements,
                 CommMeasure& whole, CommMeasure* bucket, StageTiming& t,
                 StagePhases& stage_phases) {
  t.bytes_per_gpu = whole.bytes_per_gpu;
  t.inter_node_bytes = whole.inter_node_bytes;
  t.comm_s = whole.seconds;
  t.algorithm = whole.algorithm;
  t.buckets = 1;
  if (bucket != nullptr) {
    const double last_backward_s = t.backward_compute_s / config.grad_accum;
    t.comm_s = bucketed_comm_s(bucket_count(config, elements), config.buckets > 0, whole.seconds,
                               *bucket, last_backward_s, stage_phases);
    t.buckets = stage_phases.buckets;
    if (stage_phases.buckets > 1 || config.buckets > 0) t.algorithm = bucket->algorithm;
  } else if (stage.overlap == StageOverlap::kBehindInnerSteps &&
             config.overlap == OverlapMode::kAuto) {
    const double inner_s = t.forward_s + t.backward_compute_s + t.step_s;
    t.comm_s = std::max(0.0, t.comm_s - stage.overlap_steps * inner_s);
  }
}

}  // namespace

std::vector<StageTiming> simulate_step(const StepConfig& config, std::vector<StagePhases>* phases) {
  check_step_config(config);
  const ImplementationProfile& profile = implementation_profile(config.implementation);
  const int batch =
      config.batch_per_gpu > 0 ? config.batch_per_gpu : config.workload.default_batch_per_gpu;
  const ImplementedWorkload implemented =
      implemented_workload(config.workload, profile, config.optimizer);
  const net::WorkloadSpec& w = implemented.workload;
  const double modeled = static_cast<double>(w.parameters);
  const net::ComputeTimes compute =
      net::compute_times(w, config.cluster.gpu, batch, config.grad_accum);
  const double step_share = profile.sharded.optimizer ? 1.0 / config.cluster.gpus() : 1.0;
  const std::vector<ChargedStage> stages =
      charged_stages(config.optimizer, w, config.cluster.gpus());
  StepRequests requests = step_requests(config, stages, modeled, phases != nullptr);
  const ChargedStage gather_stage = parameter_gather_stage();
  if (profile.gathers_parameters) requests.list.push_back({&gather_stage, modeled, false});
  std::vector<CommMeasure> measured = simulate_collectives(config, requests.list);
  std::vector<StageTiming> rows;
  for (size_t i = 0; i < stages.size(); ++i) {
    const ChargedStage& stage = stages[i];
    StageTiming t;
    t.stage = stage.name;
    t.forward_s = compute.forward_s;
    t.backward_compute_s = compute.backward_s;
    t.compress_s = compute.compress_s * compression_scale(stage, config.cluster);
    t.step_s =
        compute.step_s * stage.step_bytes_ratio / implemented.step_reference_ratio * step_share;
    t.compute_utilization = compute.utilization;
    StagePhases stage_phases;
    CommMeasure& whole = measured[static_cast<size_t>(requests.whole[i])];
    stage_phases.spans = std::move(whole.spans);
    CommMeasure* bucket =
        requests.bucket[i] >= 0 ? &measured[static_cast<size_t>(requests.bucket[i])] : nullptr;
    charge_comm(config, stage, modeled * stage.vector_scale, whole, bucket, t, stage_phases);
    charge_per_step(stage, t);
    if (profile.reduces_every_micro_batch && stage.overlap == StageOverlap::kBehindBackward)
      charge_every_micro_batch(config.grad_accum, t);
    if (profile.gathers_parameters)
      charge_parameter_gather(measured.back(), gather_stage, config.grad_accum, t);
    t.step_time_s = t.forward_s + t.backward_compute_s + t.comm_s + t.compress_s + t.step_s;
    t.throughput_samples_s =
        static_cast<double>(config.cluster.gpus()) * batch * config.grad_accum / t.step_time_s;
    rows.push_back(t);
    if (phases != nullptr) phases->push_back(std::move(stage_phases));
  }
  return rows;
}

}  // namespace compopt::sim
