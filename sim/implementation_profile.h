#pragma once
// ImplementationProfile: the software a scenario's training step runs on (PyTorch DDP,
// DeepSpeed's 2020 engine, ZeRO stages 1-3 / FSDP), as a registry. A profile says where each
// stage's collective is issued (bucketed behind backward or after it), how gradient
// accumulation interacts with it, the default bucket size, what the optimizer step's kernel
// moves per parameter, which model states are sharded over the data-parallel ranks, whether
// parameters are all-gathered in forward and backward, and the activation-memory assumptions.
// Every entry names its sources; docs/implementations.md has the table. The step simulator
// (step_simulator.h) and the memory estimate (gpu_memory.h) read it; StepConfig::overlap and
// StepConfig::buckets, when set, override its issue point and bucket size.

#include <string>
#include <string_view>
#include <vector>

#include "core/util/registry.h"
#include "net_models/attention_kind.h"
#include "net_models/workload.h"
#include "sim/overlap_mode.h"

namespace compopt::sim {

using net::AttentionKind;

// One optimizer step's kernels as a profile runs them: HBM bytes per parameter, counted from the
// software's code or measured, and how.
struct StepKernel {
  double bytes_per_param = 0;
  std::string text;
};

// Which model states a GPU keeps only 1/world of (the ZeRO stages).
struct ShardedState {
  bool parameters = false;  // the 16-bit (compute precision) weights: ZeRO-3 / FSDP
  bool gradients = false;   // ZeRO-2 and 3
  bool optimizer = false;   // fp32 master weights and optimizer state: ZeRO-1, 2 and 3
};

struct ImplementationProfile : RegistryEntry {
  // The issue point under `auto`: kAuto = each stage as the optimizer registry declares it
  // (the gradient's allreduce bucketed behind backward); kOff = every stage after backward.
  OverlapMode issue = OverlapMode::kAuto;
  std::string issue_text;         // where the collective is issued, in words
  std::string accumulation_text;  // how gradient accumulation interacts with it
  // Default bucket: bytes (DDP's bucket_cap_mb) or, when > 0, elements (DeepSpeed's sizes).
  double bucket_bytes = 0;
  double bucket_elements = 0;
  // How the framework issues the compressed allreduce's collectives: a name in
  // framework_collectives_registry() (framework_collectives.h).
  std::string compressed_collectives;
  // The optimizer step's kernels per optimizer family (step_kernel below picks one): Adam's
  // (every optimizer without a kernel of its own, scaled by its stage's step_bytes_ratio), LAMB's,
  // momentum SGD's (torch.optim.SGD) and BertAdam's (pytorch-pretrained-bert).
  StepKernel adam_step, lamb_step, momentum_sgd_step, bertadam_step;
  AttentionKind attention = AttentionKind::kUnfused;
  bool activation_checkpointing = false;
  int zero_stage = 0;
  ShardedState sharded;
  bool gathers_parameters = false;  // ZeRO-3 / FSDP: all-gather of the weights in forward
  // ZeRO-2 / 3: the gradients are reduce-scattered into their partitions after every
  // micro-batch's backward, not once at the accumulation boundary.
  bool reduces_every_micro_batch = false;
  std::vector<std::string> sources;  // URL or reference, and what it says
};

inline constexpr const char* kDefaultImplementation = "ddp";

const Registry<ImplementationProfile>& implementation_registry();
// The profile of a name or alias; throws InvalidArgument ("unknown implementation 'x',
// expected one of ddp, ...") otherwise.
const ImplementationProfile& implementation_profile(std::string_view name);
std::vector<std::string> implementation_names();
using net::attention_kind_name;

// The step kernel a profile runs for `optimizer` (a registered name or alias), and the
// step_bytes_ratio of the optimizer registry's stage it stands for: a stage is charged
// bytes_per_param x its step_bytes_ratio / reference_ratio. Optimizers without a kernel of
// their own take Adam's with reference 1.
struct ChargedStepKernel {
  StepKernel kernel;
  double reference_ratio = 1;
  std::string family;  // "adam", "lamb", "momentum-sgd" or "bertadam"
};
ChargedStepKernel step_kernel(const ImplementationProfile& profile, std::string_view optimizer);

// The workload as `profile` runs `optimizer`: its step traffic the profile's kernel unless the
// workload states its own (then reference 1: a stated figure is Adam's, as docs/whatif.md says),
// and its attention kind and checkpointing the profile's where the workload leaves them unset.
struct ImplementedWorkload {
  net::WorkloadSpec workload;
  double step_reference_ratio = 1;
};
ImplementedWorkload implemented_workload(const net::WorkloadSpec& workload,
                                         const ImplementationProfile& profile,
                                         std::string_view optimizer);

// The profile's default bucket count for a vector of `elements` values of `wire_bytes` each.
int default_bucket_count(const ImplementationProfile& profile, double elements, int wire_bytes);

}  // namespace compopt::sim
