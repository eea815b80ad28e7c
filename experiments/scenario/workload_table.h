#pragma once
// The [workload] table of a sweep or profile config: a preset, a preset with some fields
// changed, or a model described in full (docs/whatif.md, "Describe any model"):
//
//   name = "gpt-1.3b"                 a preset, or the name of a new workload
//   preset = "gpt2-xl"                base preset of a new workload (default: name, if a preset)
//   parameters, tensors, layers, default_batch_per_gpu                        integers
//   forward_gflops_per_sample, backward_gflops_per_sample (0 = 2 x forward)   numbers
//   compute_precision, gradient_precision    fp32 | tf32 | fp16 | bf16 | fp8 (gradient: 2 or 4
//   bytes) step_bytes_per_param, compress_bytes_per_element                          numbers
//   activation_bytes_per_sample     activations per sample (default: the architecture's)
//   attention = "unfused" | "flash", activation_checkpointing = true | false   (default: the
//   implementation profile's; net_models/attention_kind.h, sim/implementation_profile.h)
//   measured_forward_ms, measured_backward_ms (> 0), measured_batch_per_gpu (>= 1), and
//   measured_step_ms (> 0, optional): compute measured on your GPU, replacing the modelled
//   passes (net_models/compute_model.h: scaled linearly to other micro-batches)
//   [workload.transformer] layers, hidden, sequence, vocabulary, lm_head, heads
//   [[workload.cnn_layers]] kind = "conv" | "linear", in, out, kernel, output
//
// An architecture sets parameters, tensors, layers and forward FLOPs; keys given explicitly
// override it. Unknown keys, wrong types and out-of-range values throw InvalidArgument
// naming the key.

#include <toml++/toml.h>

#include <set>
#include <string>

#include "net_models/workload.h"

namespace compopt::cli {

// The keys a [workload] table accepts (for the config's key check).
const std::set<std::string>& workload_config_keys();

// The workload a [workload] table describes.
net::WorkloadSpec workload_from_config(const toml::table& table);

}  // namespace compopt::cli
