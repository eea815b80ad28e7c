#include "sim/gpu_memory.h"

#include "core/optim/optimizer_registry.h"
#include "sim/implementation_profile.h"

namespace compopt::sim {
namespace {

constexpr double kFp32Bytes = 4;

// Error-feedback elements per rank of the first compressed stage, as a fraction of n.
double error_feedback_fraction(const OptimizerEntry& entry, const net::ClusterSpec& cluster) {
  const double world = cluster.gpus(), per_node = cluster.gpus_per_node;
  for (const StageSpec& stage : entry.stages) {
    if (stage.pattern == CommPattern::kCompressedFlat) return 1 + 1 / world;
    if (stage.pattern == CommPattern::kCompressedHierarchical) return 1 / per_node + 1 / world;
  }
  return 0;
}

}  // namespace

GpuMemory estimate_gpu_memory(const StepConfig& config) {
  const ImplementationProfile& profile = implementation_profile(config.implementation);
  const net::WorkloadSpec w =
      implemented_workload(config.workload, profile, config.optimizer).workload;
  const OptimizerEntry& entry = optimizer_registry().get(config.optimizer);
  const ShardedState& sharded = profile.sharded;
  const double n = static_cast<double>(w.parameters);
  const double world = config.cluster.gpus();
  auto share = [world](bool is_sharded) { return is_sharded ? 1.0 / world : 1.0; };
  const double compute_bytes = net::precision_bytes(w.compute_precision);
  const double master_bytes = compute_bytes < kFp32Bytes ? kFp32Bytes : 0;
  GpuMemory m;
  m.weights_bytes =
      n * (compute_bytes * share(sharded.parameters) + master_bytes * share(sharded.optimizer));
  m.gradients_bytes = n * w.wire_bytes() * share(sharded.gradients);
  const double state_vectors =
      (entry.state.vectors +
       entry.state.shard_vectors / static_cast<double>(config.cluster.gpus_per_node)) *
          share(sharded.optimizer) +
      error_feedback_fraction(entry, config.cluster);
  m.optimizer_bytes = n * kFp32Bytes * state_vectors;
  m.activations_bytes =
      w.activation_bytes(*w.attention, *w.activation_checkpointing) * config.batch_per_gpu;
  m.gpu_bytes = config.cluster.gpu.hbm_gb * 1e9;
  return m;
}

}  // namespace compopt::sim
