#include "net_models/workload.h"

#include <fmt/format.h>

#include <cmath>

#include "core/util/error.h"
#include "net_models/model_shapes.h"

namespace compopt::net {

double WorkloadSpec::backward_flops() const {
  return backward_flops_per_sample > 0 ? backward_flops_per_sample : 2 * forward_flops_per_sample;
}

int WorkloadSpec::wire_bytes() const { return precision_bytes(gradient_precision); }

bool WorkloadSpec::measured() const { return measured_batch_per_gpu > 0; }

void WorkloadSpec::set_activations(const ShapeTotals& totals) {
  const double scale =
      activation_bytes_at(ShapeTotals{.activation_bytes_per_sample = 1}, compute_precision);
  activation_bytes_per_sample = totals.activation_bytes_per_sample * scale;
  attention_score_bytes_per_sample = totals.attention_score_bytes_per_sample * scale;
  layer_input_bytes_per_sample = totals.layer_input_bytes_per_sample * scale;
}

double WorkloadSpec::activation_bytes(AttentionKind kind, bool checkpointing) const {
  const double kept = activation_bytes_per_sample -
                      (kind == AttentionKind::kFlash ? attention_score_bytes_per_sample : 0.0);
  if (!checkpointing || !(layer_input_bytes_per_sample > 0)) return kept;
  return layer_input_bytes_per_sample + kept / layers;
}

namespace {

// The measured times: none, or forward, backward and their batch all given; every time finite
// and >= 0 (the step may be 0: the model's).
void validate_measured(const WorkloadSpec& w) {
  for (const auto& [value, field] : {std::pair{w.measured_forward_s, "measured_forward_ms"},
                                     {w.measured_backward_s, "measured_backward_ms"},
                                     {w.measured_step_s, "measured_step_ms"}}) {
    if (!(value >= 0) || !std::isfinite(value) || value > 1e6) {
      throw InvalidArgument(fmt::format("workload '{}': {} = {}, expected a finite time > 0",
                                        w.name, field, value * 1e3));
    }
  }
  const bool any = w.measured_forward_s > 0 || w.measured_backward_s > 0 || w.measured_step_s > 0 ||
                   w.measured_batch_per_gpu != 0;
  if (any &&
      !(w.measured_forward_s > 0 && w.measured_backward_s > 0 && w.measured_batch_per_gpu >= 1)) {
    throw InvalidArgument(fmt::format(
        "workload '{}': measured compute needs measured_forward_ms > 0, measured_backward_ms > 0 "
        "and measured_batch_per_gpu >= 1 together (got {} ms, {} ms, batch {})",
        w.name, w.measured_forward_s * 1e3, w.measured_backward_s * 1e3, w.measured_batch_per_gpu));
  }
}

}  // namespace

void WorkloadSpec::validate() const {
  if (parameters < 1 || parameters > 100'000'000'000'000ULL) {
    throw InvalidArgument(
        fmt::format("workload '{}': parameters = {}, expected 1..1e14", name, parameters));
  }
  if (tensors < 1) {
    throw InvalidArgument(fmt::format("workload '{}': tensors = {}, expected >= 1", name, tensors));
  }
  if (layers < 1) {
    throw InvalidArgument(fmt::format("workload '{}': layers = {}, expected >= 1", name, layers));
  }
  if (wire_bytes() != 2 && wire_bytes() != 4) {
    throw InvalidArgument(
        fmt::format("workload '{}': gradient_precision = {}, expected fp32, fp16 or bf16", name,
                    precision_name(gradient_precision)));
  }
  if (default_batch_per_gpu < 1) {
    throw InvalidArgument(fmt::format("workload '{}': default_batch_per_gpu = {}, expected >= 1",
                                      name, default_batch_per_gpu));
  }
  for (const auto& [value, field] :
       {std::pair{forward_flops_per_sample, "forward_flops_per_sample"},
        {backward_flops_per_sample, "backward_flops_per_sample"},
        {step_bytes_per_param, "step_bytes_per_param"},
        {compress_bytes_per_element, "compress_bytes_per_element"},
        {activation_bytes_per_sample, "activation_bytes_per_sample"},
        {attention_score_bytes_per_sample, "attention_score_bytes_per_sample"},
        {layer_input_bytes_per_sample, "layer_input_bytes_per_sample"}}) {
    if (!(value >= 0) || !std::isfinite(value) || value > 1e21) {
      throw InvalidArgument(fmt::format(
          "workload '{}': {} = {}, expected a finite value in 0..1e21", name, field, value));
    }
  }
  if (!(forward_flops_per_sample > 0)) {
    throw InvalidArgument(fmt::format(
        "workload '{}': forward_flops_per_sample = 0, expected > 0 (give the FLOPs or an "
        "architecture: [workload.transformer] or [[workload.layers]])",
        name));
  }
  if (attention_score_bytes_per_sample + layer_input_bytes_per_sample >
      activation_bytes_per_sample) {
    throw InvalidArgument(fmt::format(
        "workload '{}': attention scores {} B + layer inputs {} B exceed the activations {} B "
        "per sample, expected parts of them",
        name, attention_score_bytes_per_sample, layer_input_bytes_per_sample,
        activation_bytes_per_sample));
  }
  validate_measured(*this);
}

namespace {

// Effective traffic measured on the papers' stacks (docs/simulator.md, "Workload presets"):
// 1-bit Adam's mean optimizer step of BERT-Large, 67.27 ms on V100 (900 GB/s) for 340 M
// parameters; Birder's compression time, 8 ms for BERT-Base (110 M) and 15 ms for ResNet-50
// (25.6 M) on A100-80GB (2039 GB/s).
constexpr double kAdamStepBytes = 67.27e-3 * 900e9 / 340e6;
constexpr double kTransformerCompressBytes = 8e-3 * 2039e9 / 110e6;
constexpr double kResnetCompressBytes = 15e-3 * 2039e9 / 25.6e6;
// torch.optim.SGD with momentum and weight decay, one kernel per operation (the ResNet runs of
// both papers used it): d_p = g + wd p (read 8, write 4), buf *= momentum (4 + 4),
// buf += d_p (8 + 4), p -= lr buf (8 + 4); the ddp profile's momentum-SGD kernel
// (sim/implementation_profile.cc) counts the same.
constexpr double kMomentumSgdStepBytes = 12 + 8 + 12 + 12;

WorkloadEntry entry(std::vector<std::string> aliases, std::string help, WorkloadSpec spec) {
  WorkloadEntry e;
  e.name = spec.name;
  e.aliases = std::move(aliases);
  e.help = std::move(help);
  e.spec = std::move(spec);
  return e;
}

// A transformer preset: FLOPs and layers from the shape, totals from the shape unless the
// papers publish them (parameters, tensors > 0 here).
WorkloadSpec transformer(std::string name, const TransformerShape& shape, uint64_t parameters,
                         int tensors, Precision compute, Precision gradient, int batch,
                         std::string source) {
  const ShapeTotals totals = transformer_totals(shape);
  WorkloadSpec w;
  w.name = std::move(name);
  w.parameters = parameters > 0 ? parameters : totals.parameters;
  w.tensors = tensors > 0 ? tensors : totals.tensors;
  w.layers = totals.layers;
  w.forward_flops_per_sample = totals.forward_flops_per_sample;
  w.compute_precision = compute;
  w.set_activations(totals);
  w.gradient_precision = gradient;
  w.default_batch_per_gpu = batch;
  w.step_bytes_per_param = kAdamStepBytes;
  w.compress_bytes_per_element = kTransformerCompressBytes;
  w.source = std::move(source);
  return w;
}

// ResNets: totals as He et al. (2016) publish them (multiply-adds x 2 FLOPs); tf32, PyTorch's
// default for cuDNN convolutions (torch.backends.cudnn.allow_tf32), which computes fp32 on a
// GPU without a tf32 unit such as the V100 (compute_model.h).
WorkloadSpec resnet(std::string name, uint64_t parameters, int tensors, int layers,
                    double forward_flops, Precision compute, std::string source) {
  WorkloadSpec w;
  w.name = std::move(name);
  w.parameters = parameters;
  w.tensors = tensors;
  w.layers = layers;
  w.forward_flops_per_sample = forward_flops;
  w.compute_precision = compute;
  w.gradient_precision = Precision::kFp32;
  w.default_batch_per_gpu = 32;
  w.step_bytes_per_param = kMomentumSgdStepBytes;
  w.step_bytes_stated = true;
  w.compress_bytes_per_element = kResnetCompressBytes;
  w.source = std::move(source);
  return w;
}

constexpr int kBertVocabulary = 30522, kGpt2Vocabulary = 50257;
constexpr auto kFp16 = Precision::kFp16, kFp32 = Precision::kFp32, kTf32 = Precision::kTf32,
               kBf16 = Precision::kBf16;

void add_papers_models(Registry<WorkloadEntry>& r) {
  const std::string bert = "Devlin et al. 2019 (L=24 H=1024); 1-bit Adam sec. 4 (fp16)";
  r.add(entry({"bert-large"}, "BERT-Large pre-training, sequence 128, fp16 (1-bit Adam)",
              transformer("bert-large-seq128", {24, 1024, 128, kBertVocabulary, false}, 340'000'000,
                          398, kFp16, kFp16, 16, bert)));
  r.add(entry({}, "BERT-Large pre-training, sequence 512, fp16 (1-bit Adam, 1-bit LAMB)",
              transformer("bert-large-seq512", {24, 1024, 512, kBertVocabulary, false}, 340'000'000,
                          398, kFp16, kFp16, 4, bert)));
  r.add(entry({"bert-base"}, "BERT-Base fine-tuning on SQuAD, sequence 384, fp32 (Birder)",
              transformer("bert-base-squad", {12, 768, 384, kBertVocabulary, false}, 110'000'000,
                          199, kTf32, kFp32, 3, "Devlin et al. 2019 (L=12 H=768); Birder sec. 5")));
  r.add(entry({"resnet50"}, "ResNet-50 on ImageNet, fp32 gradients (Birder)",
              resnet("resnet50-imagenet", 25'600'000, 161, 54, 2 * 3.8e9, kTf32,
                     "He et al. 2016, Table 1 (3.8e9 multiply-adds); Birder sec. 5")));
  r.add(entry({"resnet152"}, "ResNet-152 on ImageNet, fp32 gradients (1-bit Adam)",
              resnet("resnet152-imagenet", 60'200'000, 467, 156, 2 * 11.3e9, kTf32,
                     "He et al. 2016, Table 1 (11.3e9 multiply-adds); 1-bit Adam sec. 4")));
}

// GPT-2 (Radford et al. 2019) and the 1.3 B GPT-3 XL shape (Brown et al. 2020, Table 2.1),
// trained in bf16 with bf16 gradients; totals from the shape.
void add_gpt_models(Registry<WorkloadEntry>& r) {
  const std::string gpt2 = "Radford et al. 2019 (GPT-2 sizes), context 1024";
  r.add(entry({"gpt2"}, "GPT-2 small, 124 M parameters, context 1024, bf16",
              transformer("gpt2-small", {12, 768, 1024, kGpt2Vocabulary, true}, 0, 0, kBf16, kBf16,
                          8, gpt2)));
  r.add(entry({}, "GPT-2 medium, 355 M parameters, context 1024, bf16",
              transformer("gpt2-medium", {24, 1024, 1024, kGpt2Vocabulary, true}, 0, 0, kBf16,
                          kBf16, 8, gpt2)));
  r.add(entry({}, "GPT-2 large, 774 M parameters, context 1024, bf16",
              transformer("gpt2-large", {36, 1280, 1024, kGpt2Vocabulary, true}, 0, 0, kBf16, kBf16,
                          4, gpt2)));
  r.add(entry({}, "GPT-2 XL, 1.5 B parameters, context 1024, bf16",
              transformer("gpt2-xl", {48, 1600, 1024, kGpt2Vocabulary, true}, 0, 0, kBf16, kBf16, 4,
                          gpt2)));
  r.add(entry(
      {}, "GPT-style 1.3 B (GPT-3 XL shape), context 2048, bf16",
      transformer("gpt-1.3b", {24, 2048, 2048, kGpt2Vocabulary, true, 24}, 0, 0, kBf16, kBf16, 4,
                  "Brown et al. 2020, Table 2.1 (GPT-3 XL: 24 layers, d_model 2048, 24 heads)")));
}

Registry<WorkloadEntry> make_registry() {
  Registry<WorkloadEntry> r("workload preset");
  add_papers_models(r);
  add_gpt_models(r);
  return r;
}

}  // namespace

const Registry<WorkloadEntry>& workload_registry() {
  static const Registry<WorkloadEntry> registry = make_registry();
  return registry;
}

WorkloadSpec workload_preset(std::string_view name) { return workload_registry().get(name).spec; }

std::vector<std::string> workload_preset_names() { return workload_registry().names(); }

}  // namespace compopt::net
