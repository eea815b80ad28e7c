#pragma once
// Memory per GPU of a scenario under data parallelism (every GPU holds a whole replica), as
// docs/simulator.md ("Time to train, time to accuracy, memory") derives it:
//   weights      parameters x compute bytes, plus a 4-byte master copy when compute is
//                narrower than fp32 (mixed precision);
//   gradients    parameters x the gradient precision's bytes;
//   optimizer    the registry's fp32 state vectors (optimizer_registry.h, StateFootprint)
//                plus the error feedback of a compressed stage: flat scheme, worker buffer n
//                and server buffer n/world; hierarchical, worker n/g and server n/world
//                (n parameters, g GPUs per node), padding aside;
//   activations  the workload's activation bytes per sample x the micro-batch (accumulation
//                runs the micro-batches one after another), under the scenario's attention kind
//                and activation checkpointing (WorkloadSpec::activation_bytes: FlashAttention
//                drops the a*s^2 terms; full checkpointing keeps each block's input, 2*s*h,
//                plus the one block being recomputed).
// The implementation profile (implementation_profile.h) shards over the world's ranks what its
// ZeRO stage shards (ZeRO paper: stage 1 the fp32 master copy and the optimizer state, stage 2
// also the gradients, stage 3 also the compute-precision weights); error feedback stays whole.
// The attention kind and checkpointing are the workload's where it sets them, else the
// profile's (implemented_workload in implementation_profile.h).
// Bytes are plain bytes; the CSV reports GB of 1e9 bytes like the GPU's hbm_gb.

#include "sim/step_simulator.h"

namespace compopt::sim {

struct GpuMemory {
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;
  double activations_bytes = 0;
  double gpu_bytes = 0;  // the GPU's memory capacity

  double total_bytes() const {
    return weights_bytes + gradients_bytes + optimizer_bytes + activations_bytes;
  }
  bool fits() const { return total_bytes() <= gpu_bytes; }
};

// config.optimizer is a registered name (resolve_scenario canonicalises it).
GpuMemory estimate_gpu_memory(const StepConfig& config);

}  // namespace compopt::sim
