#pragma once
// ChargedStage: one stage of an optimizer (the optimizer registry's StageSpec) as a training
// step is charged for it: its communication scheme and compressor, where it is issued, the
// vector it sends in parameters' worth of elements and the share of its time and traffic a
// step pays (its period, an all-gather's half of a ring allreduce, PowerSGD's factors).
// step_simulator.h composes the step from these rows.

#include <string>
#include <string_view>
#include <vector>

#include "core/optim/optimizer_registry.h"
#include "net_models/cluster_spec.h"
#include "net_models/workload.h"
#include "sim/proxy_wire.h"

namespace compopt::sim {

struct ChargedStage {
  std::string name;
  CommScheme scheme = CommScheme::kRing;
  std::string compressor;  // empty for the ring
  StageOverlap overlap = StageOverlap::kAfterBackward;
  double step_bytes_ratio = 1.0;
  // The collective's vector in parameters' worth of elements, and the share of its time and
  // traffic a step is charged (1/period; an all-gather is half of a ring allreduce).
  double vector_scale = 1.0;
  double charge_scale = 1.0;
  int overlap_steps = 0;
  bool ring_only = false;   // an all-gather: NCCL runs it as a ring whatever the allreduce's choice
  std::string charge_note;  // appended to the algorithm charged, e.g. "all-gather, every 4 steps"
};

// The stages the optimizer registry declares for a name or alias, as charged on `gpus` GPUs.
std::vector<ChargedStage> charged_stages(std::string_view optimizer, const net::WorkloadSpec& w,
                                         int gpus);

// The stage's compression over the reference compress_s is measured on (compression_cost.h):
// flat, every GPU serves 1/n of the vector; hierarchical, each GPU encodes its 1/m shard and
// the nodes share the server step. The ring compresses nothing.
double compression_scale(const ChargedStage& stage, const net::ClusterSpec& cluster);

// ZeRO-3 / FSDP: the weights all-gathered before forward, a ring all-gather of the parameters
// (half a ring allreduce of them, as an all-gather stage is charged). The all-gather of
// backward and the reduce-scatter of the gradients make up the stage's own allreduce.
ChargedStage parameter_gather_stage();

}  // namespace compopt::sim
