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
#include "sim/overlap_mode.h"

namespace compopt::sim {

enum class AttentionKind { kUnfused, kFlash };

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
  std::string compressed_allreduce_text;  // the collectives a compressed allreduce is built from
  // HBM bytes per parameter of an Adam step (the stage's step_bytes_ratio scales it for other
  // optimizers) and how that figure is derived.
  double adam_step_bytes_per_param = 0;
  std::string step_kernel_text;
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
const char* attention_kind_name(AttentionKind kind);

// The profile's default bucket count for a vector of `elements` values of `wire_bytes` each.
int default_bucket_count(const ImplementationProfile& profile, double elements, int wire_bytes);

}  // namespace compopt::sim
