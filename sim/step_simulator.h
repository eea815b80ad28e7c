#pragma once
// The step simulator: one training step of a workload on a cluster for an
// optimizer, by running the real collective code of core/ on a proxy tensor
// under run_sim, with the wire charged for the model size (proxy_wire.h) and
// compute charged from the workload's FLOPs on the cluster's GPU (net_models/compute_model.h). Each
// stage the optimizer registry declares for the optimizer (core/optim/optimizer_registry.h; any
// registered name or alias) gets a row (a StageTiming, stage_timing.h), e.g.
//   adam, momentum-sgd, lamb, bertadam: "full_precision"  ring allreduce of the
//                                       gradient (fp16 or fp32 as the workload says)
//   onebit-adam, onebit-lamb:   "warmup"      as adam, then
//                               "compression" compressed allreduce with `sign`
//   birder:                     "compression" compressed allreduce with `binary`
//   birder-hierarchical:        "compression" hierarchical compressed, `binary`
// Without overlap a step is forward + backward + allreduce + compression +
// optimizer step. The uncompressed allreduce is the cluster's allreduce_algorithm
// (allreduce_algorithm.h: ring or tree, "auto" picks the one NCCL's tuning model predicts
// fastest). The one-channel ring and the compressed allreduces are timed from their
// distinct message rounds only where that is exact (round_timing.h), on a two-node
// mirror of the cluster where the nodes are interchangeable (collapsed_rounds.h); several
// ring channels and the tree as flows posted by one actor (flow_rounds.h). A stage that
// overlaps backward (StepConfig::overlap with the stage's StageOverlap, overlap_mode.h)
// sends its vector in `buckets`
// equal buckets as the backward pass produces them (DDP-style); see docs/simulator.md.
// The implementation profile (StepConfig::implementation) decides, where StepConfig leaves it
// open, the issue point and bucket size; under gradient accumulation only the last
// micro-batch's backward can hide an overlapped stage (every implementation synchronises once,
// after the last micro-batch). It also sets the optimizer step's bytes per parameter (unless the
// workload states its own), shards the step over the ranks when the optimizer state is sharded
// and, for ZeRO-3 / FSDP, charges the forward all-gather of the weights (half a ring allreduce
// of the parameters, exposed) on every row; docs/implementations.md.

#include <string>
#include <string_view>
#include <vector>

#include "net_models/cluster_spec.h"
#include "net_models/workload.h"
#include "sim/implementation_profile.h"
#include "sim/overlap_mode.h"
#include "sim/stage_timing.h"
#include "sim/step_phases.h"

namespace compopt::sim {

struct StepConfig {
  net::WorkloadSpec workload;
  net::ClusterSpec cluster;  // every GPU is a rank
  std::string optimizer = "adam";
  int batch_per_gpu = 0;  // 0: workload.default_batch_per_gpu
  int grad_accum = 1;
  // The software the step runs on (implementation_profile.h): issue point, accumulation,
  // bucket size, step kernel, sharding. A name or alias of the registry.
  std::string implementation = kDefaultImplementation;
  OverlapMode overlap = OverlapMode::kAuto;  // auto: the implementation's issue point
  int buckets = 0;  // overlapped stages only; 0: the implementation's bucket size
  // How the compressed allreduce's collectives are issued, a name of
  // framework_collectives_registry(); empty: the implementation profile's.
  std::string compressed_collectives;
  size_t proxy_min = 16384;
  // false: the ring and the compressed allreduces are timed by symmetry
  // where timed_by_rounds (round_timing.h) allows it, else run in full. true: every rank runs
  // the real collective on its proxy (the slow reference the tests compare to).
  bool full_collectives = false;
};

// Canonical names of the registered optimizers, and a check that throws InvalidArgument
// ("unknown optimizer '...', expected one of ...") for other names.
std::vector<std::string> step_optimizer_names();
void check_step_optimizer(std::string_view optimizer);

// Throws InvalidArgument for bad input (cluster, workload, optimizer, batch). With
// `phases`, also records every rank's collective phases, one StagePhases per row;
// the timings are the same with or without.
std::vector<StageTiming> simulate_step(const StepConfig& config,
                                       std::vector<StagePhases>* phases = nullptr);

}  // namespace compopt::sim
