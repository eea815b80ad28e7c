#include "net_models/workload.h"

#include <fmt/format.h>

#include <cmath>

#include "core/util/error.h"

namespace compopt::net {

double WorkloadProfile::forward_s(int batch_per_gpu, int grad_accum) const {
  return grad_accum * (forward_fixed_s + forward_per_sample_s * batch_per_gpu);
}

double WorkloadProfile::backward_s(int batch_per_gpu, int grad_accum) const {
  return grad_accum * (backward_fixed_s + backward_per_sample_s * batch_per_gpu);
}

void WorkloadProfile::validate() const {
  if (parameters < 1)
    throw InvalidArgument(fmt::format("workload '{}': parameters = 0, expected >= 1", name));
  if (tensors < 1)
    throw InvalidArgument(fmt::format("workload '{}': tensors = {}, expected >= 1", name, tensors));
  if (wire_bytes != 2 && wire_bytes != 4) {
    throw InvalidArgument(fmt::format(
        "workload '{}': wire_bytes = {}, expected 2 (fp16) or 4 (fp32)", name, wire_bytes));
  }
  for (const auto& [value, field] : {std::pair{forward_fixed_s, "forward_fixed_s"},
                                     {forward_per_sample_s, "forward_per_sample_s"},
                                     {backward_fixed_s, "backward_fixed_s"},
                                     {backward_per_sample_s, "backward_per_sample_s"},
                                     {step_s, "step_s"},
                                     {compress_per_element_s, "compress_per_element_s"}}) {
    if (!(value >= 0) || !std::isfinite(value)) {
      throw InvalidArgument(
          fmt::format("workload '{}': {} = {}, expected a finite value >= 0", name, field, value));
    }
  }
}

namespace {

// Milliseconds and nanoseconds, as the derivations in docs/simulator.md write them.
constexpr double kMs = 1e-3;
constexpr double kNs = 1e-9;

WorkloadEntry entry(std::vector<std::string> aliases, std::string help, WorkloadProfile profile) {
  WorkloadEntry e;
  e.name = profile.name;
  e.aliases = std::move(aliases);
  e.help = std::move(help);
  e.profile = std::move(profile);
  return e;
}

// Least-squares fit of the 13 rows of onebit_adam_profile.csv (per micro-batch).
WorkloadEntry bert_large_seq128() {
  return entry({"bert-large"}, "BERT-Large pre-training, sequence 128, fp16 gradients, on V100",
               {.name = "bert-large-seq128",
                .gpu = "V100",
                .parameters = 340'000'000,
                .tensors = 398,
                .wire_bytes = 2,
                .forward_fixed_s = 30.77 * kMs,
                .forward_per_sample_s = 0.2395 * kMs,
                .backward_fixed_s = 26.34 * kMs,
                .backward_per_sample_s = 2.098 * kMs,
                .step_s = 67.27 * kMs,
                .compress_per_element_s = 0.165 * kNs,
                .default_batch_per_gpu = 16});
}

// birder_single_node.csv bertadam row minus the simulated NVLink allreduce.
WorkloadEntry bert_base_squad() {
  return entry({"bert-base"}, "BERT-Base fine-tuning on SQuAD, fp32 gradients, on A100",
               {.name = "bert-base-squad",
                .gpu = "A100",
                .parameters = 110'000'000,
                .tensors = 199,
                .wire_bytes = 4,
                .forward_fixed_s = 0,
                .forward_per_sample_s = 4.37 * kMs,
                .backward_fixed_s = 0,
                .backward_per_sample_s = 8.73 * kMs,
                .step_s = 9.7 * kMs,
                .compress_per_element_s = 0.0727 * kNs,
                .default_batch_per_gpu = 3});
}

// birder_single_node.csv sgdm rows (batch 32 and 128) minus the simulated allreduce.
WorkloadEntry resnet50_imagenet() {
  return entry({"resnet50"}, "ResNet-50 on ImageNet, fp32 gradients, on A100",
               {.name = "resnet50-imagenet",
                .gpu = "A100",
                .parameters = 25'600'000,
                .tensors = 161,
                .wire_bytes = 4,
                .forward_fixed_s = 8.4 * kMs,
                .forward_per_sample_s = 0.4337 * kMs,
                .backward_fixed_s = 16.8 * kMs,
                .backward_per_sample_s = 0.8673 * kMs,
                .step_s = 0.4 * kMs,
                .compress_per_element_s = 0.586 * kNs,
                .default_batch_per_gpu = 32});
}

// resnet50-imagenet scaled to ResNet-152 on V100 (FLOPs, tensors, tensor-core peak).
WorkloadEntry resnet152_imagenet() {
  return entry({"resnet152"}, "ResNet-152 on ImageNet, fp32 gradients, on V100 (scaled ResNet-50)",
               {.name = "resnet152-imagenet",
                .gpu = "V100",
                .parameters = 60'200'000,
                .tensors = 467,
                .wire_bytes = 4,
                .forward_fixed_s = 24.4 * kMs,
                .forward_per_sample_s = 3.22 * kMs,
                .backward_fixed_s = 48.7 * kMs,
                .backward_per_sample_s = 6.45 * kMs,
                .step_s = 2.1 * kMs,
                .compress_per_element_s = 1.33 * kNs,
                .default_batch_per_gpu = 32});
}

Registry<WorkloadEntry> make_registry() {
  Registry<WorkloadEntry> r("workload preset");
  r.add(bert_large_seq128());
  r.add(bert_base_squad());
  r.add(resnet50_imagenet());
  r.add(resnet152_imagenet());
  return r;
}

}  // namespace

const Registry<WorkloadEntry>& workload_registry() {
  static const Registry<WorkloadEntry> registry = make_registry();
  return registry;
}

WorkloadProfile workload_preset(std::string_view name) {
  return workload_registry().get(name).profile;
}

std::vector<std::string> workload_preset_names() { return workload_registry().names(); }

}  // namespace compopt::net
