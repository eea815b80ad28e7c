#pragma once
// WorkloadProfile: what one training step of a model costs on one GPU, for the
// step simulator: parameter count and tensor layout, gradient wire precision,
// forward / backward compute per micro-batch as fixed + per-sample time,
// optimizer-step time, and compression + decompression cost per element.
// Presets are derived only from experiments/published/ and public hardware
// specs; the derivation is in docs/simulator.md ("Workload presets"). The presets form one
// registry (name, aliases, one-line help, the profile itself as the defaults a scenario
// starts from).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/registry.h"

namespace compopt::net {

struct WorkloadProfile {
  std::string name;
  std::string gpu;
  uint64_t parameters = 0;
  int tensors = 1;
  int wire_bytes = 4;  // bytes per gradient element of the uncompressed baseline (2 = fp16)
  double forward_fixed_s = 0, forward_per_sample_s = 0;
  double backward_fixed_s = 0, backward_per_sample_s = 0;
  double step_s = 0;                  // optimizer step, once per step
  double compress_per_element_s = 0;  // encode + decode, per parameter per step
  int default_batch_per_gpu = 1;

  // Compute of one step of `grad_accum` micro-batches of `batch_per_gpu` samples.
  double forward_s(int batch_per_gpu, int grad_accum) const;
  double backward_s(int batch_per_gpu, int grad_accum) const;
  double compress_s() const { return compress_per_element_s * static_cast<double>(parameters); }
  // Throws InvalidArgument naming the first bad field.
  void validate() const;
};

struct WorkloadEntry : RegistryEntry {
  WorkloadProfile profile;  // its `name` is the entry's canonical name
};

// The presets, in the order --help and docs/simulator.md list them.
const Registry<WorkloadEntry>& workload_registry();

// The preset of a name or alias. Throws InvalidArgument naming the unknown preset and
// listing the known ones.
WorkloadProfile workload_preset(std::string_view name);
// Canonical names.
std::vector<std::string> workload_preset_names();

}  // namespace compopt::net
