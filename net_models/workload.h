#pragma once
// WorkloadSpec: what one training step of a model costs, independent of the GPU it runs on:
// parameter count and tensor layout, FLOPs per sample of the forward and backward passes,
// the precision of compute and of the gradient on the wire, and the effective memory traffic
// of the optimizer step and of compression (both memory-bound, so their time scales with the
// GPU's HBM bandwidth). compute_model.h turns it into seconds on a GpuSpec.
//
// A workload comes from a preset (this registry: the papers' models and GPT-2 / GPT-style
// sizes, each with its sources in docs/whatif.md), from an architecture (model_shapes.h) or
// from its totals; experiments/scenario/workload_table.h reads all three from a [workload] table.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/registry.h"
#include "net_models/attention_kind.h"
#include "net_models/model_shapes.h"
#include "net_models/precision.h"

namespace compopt::net {

struct WorkloadSpec {
  std::string name = "custom";
  uint64_t parameters = 0;
  int tensors = 1;  // gradient tensors (per-tensor work of the optimizers)
  int layers = 1;   // transformer blocks or CNN layers: each pays the GPU's layer overhead
  double forward_flops_per_sample = 0;
  double backward_flops_per_sample = 0;  // 0: twice the forward FLOPs
  Precision compute_precision = Precision::kFp32;
  Precision gradient_precision = Precision::kFp32;  // the uncompressed allreduce's wire format
  int default_batch_per_gpu = 1;
  // Effective HBM bytes moved per parameter by the optimizer step, and per element by
  // encode + decode of the compressed allreduce (measured on the papers' stacks).
  double step_bytes_per_param = 178;
  // Whether step_bytes_per_param is the workload's own figure (a [workload] key, a preset with
  // its own kernel count). false: the default Adam figure above, which the step simulator
  // replaces with the scenario's implementation profile's (sim/implementation_profile.h).
  bool step_bytes_stated = false;
  double compress_bytes_per_element = 148;
  // Activations a GPU keeps per sample of its micro-batch for the backward pass (bytes; 0: not
  // known). Architectures give it (model_shapes.h); [workload] activation_bytes_per_sample
  // overrides it. Used by the memory estimate (sim/gpu_memory.h), not by step times. It counts
  // unfused attention without recomputation; the two parts below (from the shape; 0 when only
  // the total is known, which then stays as it is) are what FlashAttention and full activation
  // checkpointing change (activation_bytes).
  double activation_bytes_per_sample = 0;
  double attention_score_bytes_per_sample = 0;  // the a*s^2 scores, softmax and dropout mask
  double layer_input_bytes_per_sample = 0;      // every transformer block's input, 2*s*h each
  // The attention kind and full activation checkpointing; unset: the implementation profile's
  // (sim/implementation_profile.h fills them in before a step is timed). Checkpointing also
  // recomputes the forward pass in backward: the modelled backward pays one more forward.
  std::optional<AttentionKind> attention;
  std::optional<bool> activation_checkpointing;
  std::string source;  // where the figures come from
  // Compute measured on the user's GPU (0: none; compute_model.h): forward and backward of one
  // micro-batch of measured_batch_per_gpu samples, and the optimizer step (0: the model's), in
  // seconds. Given, they replace the modelled passes.
  double measured_forward_s = 0, measured_backward_s = 0, measured_step_s = 0;
  int measured_batch_per_gpu = 0;

  double backward_flops() const;
  // Whether the passes are measured (forward, backward and their batch given).
  bool measured() const;
  // Bytes per gradient value on the wire of the uncompressed baseline (2 or 4).
  int wire_bytes() const;
  // The shape's three activation figures, stored in compute_precision.
  void set_activations(const ShapeTotals& totals);
  // Activation bytes per sample kept for backward: the total less the attention scores under
  // `flash`; under checkpointing (a shape with layer inputs known) every block's input plus the
  // activations of the one block being recomputed (layers equal blocks).
  double activation_bytes(AttentionKind kind, bool checkpointing) const;
  // Throws InvalidArgument naming the first bad field.
  void validate() const;
};

struct WorkloadEntry : RegistryEntry {
  WorkloadSpec spec;  // its `name` is the entry's canonical name
};

// The presets, in the order --help and the docs list them.
const Registry<WorkloadEntry>& workload_registry();
// The preset of a name or alias; throws InvalidArgument listing the known presets.
WorkloadSpec workload_preset(std::string_view name);
std::vector<std::string> workload_preset_names();

}  // namespace compopt::net
