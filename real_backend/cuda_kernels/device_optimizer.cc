#include "real_backend/cuda_kernels/device_optimizer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>

#include "core/compress/compressor.h"
#include "core/optim/optimizer_factory.h"
#include "core/optim/optimizer_registry.h"
#include "core/util/error.h"
#include "real_backend/cuda_kernels/device_exchange.h"

namespace compopt::cuda {
namespace {

struct RuleEntry {
  const char* name;
  DeviceRule rule;
};

// Registry names with a device update and the rule each runs.
constexpr std::array<RuleEntry, 7> kRules = {{{"sgd", DeviceRule::kSgd},
                                              {"momentum-sgd", DeviceRule::kMomentumSgd},
                                              {"adam", DeviceRule::kAdam},
                                              {"bertadam", DeviceRule::kAdam},
                                              {"lamb", DeviceRule::kLamb},
                                              {"onebit-adam", DeviceRule::kOnebitAdam},
                                              {"onebit-adam-32bit", DeviceRule::kOnebitAdam}}};

DeviceRule rule_for(const std::string& name) {
  for (const RuleEntry& e : kRules) {
    if (name == e.name) return e.rule;
  }
  throw InvalidArgument(fmt::format("device optimizer: '{}' has no GPU update, expected one of {}",
                                    name, fmt::join(device_optimizer_names(), ", ")));
}

bool declares(const OptimizerEntry& entry, const std::string& key) {
  return std::any_of(entry.keys.begin(), entry.keys.end(),
                     [&](const OptionKey& k) { return k.name == key; });
}

void read_adam(DeviceOptimizerConfig& c, KeyReader& r, const OptimizerEntry& entry) {
  c.adam.beta1 = static_cast<float>(r.number("beta1"));
  c.adam.beta2 = static_cast<float>(r.number("beta2"));
  c.adam.bias_correction = declares(entry, "bias_correction") && r.flag("bias_correction");
}

void read_onebit(DeviceOptimizerConfig& c, KeyReader& r) {
  const std::string freeze = r.text("freeze_step");
  if (freeze == "auto") {
    c.threshold = r.number("threshold");
  } else {
    c.freeze_step = r.integer("freeze_step");
  }
  if (c.name == "onebit-adam-32bit") return;
  const std::string spec = r.text("compressor");
  c.codec = codec_for(*make_compressor(spec));
  if (!c.codec) {
    throw InvalidArgument(fmt::format(
        "device optimizer {}: compressor '{}' has no CUDA kernels, expected sign or binary", c.name,
        spec));
  }
}

void read_rule_keys(DeviceOptimizerConfig& c, KeyReader& r, const OptimizerEntry& entry) {
  switch (c.rule) {
    case DeviceRule::kSgd:
      return;
    case DeviceRule::kMomentumSgd:
      c.momentum.beta = static_cast<float>(r.number("beta"));
      c.momentum.form = r.text("form") == "pytorch" ? MomentumForm::kPyTorch : MomentumForm::kPaper;
      c.momentum.nesterov = r.flag("nesterov");
      return;
    case DeviceRule::kAdam:
      read_adam(c, r, entry);
      return;
    case DeviceRule::kLamb:
      read_adam(c, r, entry);
      c.c_min = r.number("c_min");
      c.c_max = r.number("c_max");
      return;
    case DeviceRule::kOnebitAdam:
      read_adam(c, r, entry);
      read_onebit(c, r);
      return;
  }
}

DeviceBuffer zeroed(GpuContext& gpu, size_t bytes) {
  DeviceBuffer buffer(bytes);
  gpu.zero(buffer.data(), bytes);
  return buffer;
}

}  // namespace

std::vector<std::string> device_optimizer_names() {
  std::vector<std::string> names;
  names.reserve(std::size(kRules));
  for (const RuleEntry& e : kRules) names.emplace_back(e.name);
  return names;
}

DeviceOptimizerConfig device_optimizer_config(std::string_view name, const HyperParamMap& params,
                                              const ParamLayout& layout) {
  const auto cpu = make_optimizer(name, params, layout);
  DeviceOptimizerConfig c;
  c.name = cpu->name();
  c.common = cpu->options();
  c.rule = rule_for(c.name);
  const OptimizerEntry* entry = optimizer_registry().find(c.name);
  HyperParams hp(c.name, params);
  KeyReader reader(hp, entry->keys);
  read_rule_keys(c, reader, *entry);
  return c;
}

DeviceOptimizer::DeviceOptimizer(GpuContext& gpu, std::string_view name,
                                 const HyperParamMap& params, const ParamLayout& layout)
    : gpu_(gpu), layout_(layout), config_(device_optimizer_config(name, params, layout)) {
  const size_t bytes = layout_.total() * sizeof(float);
  const DeviceRule rule = config_.rule;
  work_ = DeviceBuffer(bytes);
  if (rule != DeviceRule::kSgd) m_ = zeroed(gpu_, bytes);
  if (rule != DeviceRule::kSgd && rule != DeviceRule::kMomentumSgd) v_ = zeroed(gpu_, bytes);
  if (rule == DeviceRule::kLamb) {
    segments_.emplace(gpu_, layout_);
    coefficients_ = zeroed(gpu_, layout_.num_tensors() * sizeof(double));
    steps_ = DeviceBuffer(layout_.num_tensors() * sizeof(float));
  }
  if (rule == DeviceRule::kOnebitAdam && !config_.freeze_step) {
    detector_.emplace(config_.adam.beta2, config_.threshold,
                      config_.common.schedule->warmup_steps());
    whole_.emplace(gpu_, ParamLayout::single(layout_.total()));
    l1_ = DeviceBuffer(sizeof(double));
  }
  gpu_.synchronize();
}

void DeviceOptimizer::step(float* params, const float* grads, Communicator& comm) {
  last_lr_ = config_.common.schedule->lr(t_);
  ++t_;
  try {
    run_rule(params, grads, comm, static_cast<float>(last_lr_));
  } catch (...) {
    --t_;
    throw;
  }
}

void DeviceOptimizer::average_gradient(const float* grads, Communicator& comm) {
  auto* g = work_.as<float>();
  gpu_.copy(g, grads, layout_.total() * sizeof(float));
  device_allreduce(gpu_, comm, g, layout_.total(), ReduceOp::kMean, config_.common.wire);
}

void DeviceOptimizer::run_rule(float* params, const float* grads, Communicator& comm, float lr) {
  const size_t d = layout_.total();
  auto* g = work_.as<float>();
  auto* m = m_.as<float>();
  auto* v = v_.as<float>();
  const auto wd = static_cast<float>(config_.common.weight_decay);
  const auto eps = static_cast<float>(config_.common.eps);
  switch (config_.rule) {
    case DeviceRule::kSgd:
      average_gradient(grads, comm);
      sgd_update(gpu_, params, g, d, lr, wd);
      return;
    case DeviceRule::kMomentumSgd:
      average_gradient(grads, comm);
      momentum_sgd_update(gpu_, config_.momentum, m, params, g, d, lr, wd);
      return;
    case DeviceRule::kAdam:
      average_gradient(grads, comm);
      adam_update(gpu_, adam_factors(config_.adam, t_, eps), m, v, params, g, d, lr, wd);
      return;
    case DeviceRule::kLamb:
      average_gradient(grads, comm);
      lamb_direction(gpu_, adam_factors(config_.adam, t_, eps), m, v, params, g, g, d, wd);
      lamb_apply(gpu_, segments_->table(), params, g, lr, config_.c_min, config_.c_max,
                 coefficients_.as<double>(), steps_.as<float>());
      return;
    case DeviceRule::kOnebitAdam:
      if (frozen_) {
        step_onebit_compressed(params, grads, comm, lr);
      } else {
        step_onebit_warmup(params, grads, comm, lr);
      }
      return;
  }
}

void DeviceOptimizer::step_onebit_warmup(float* params, const float* grads, Communicator& comm,
                                         float lr) {
  average_gradient(grads, comm);
  const AdamOptions no_bias{config_.adam.beta1, config_.adam.beta2, false};
  adam_update(gpu_, adam_factors(no_bias, t_, static_cast<float>(config_.common.eps)),
              m_.as<float>(), v_.as<float>(), params, work_.as<float>(), layout_.total(), lr,
              static_cast<float>(config_.common.weight_decay));
  const bool fire = detector_ ? detector_->observe(t_, variance_l1()) : t_ >= *config_.freeze_step;
  if (fire) {
    frozen_ = true;
    frozen_at_ = t_;
  }
}

void DeviceOptimizer::step_onebit_compressed(float* params, const float* grads, Communicator& comm,
                                             float lr) {
  const size_t d = layout_.total();
  auto* m = m_.as<float>();
  momentum_ema(gpu_, config_.adam.beta1, m, grads, d);
  if (config_.codec) {
    if (!ef_) ef_.emplace(gpu_, d, comm.size());
    RandomKey key;
    key.seed = config_.common.seed;
    key.step = static_cast<uint64_t>(t_);
    compressed_allreduce_mean(gpu_, comm, m, d, *config_.codec, ef_->view(), key);
  } else {
    device_allreduce(gpu_, comm, m, d, ReduceOp::kMean, config_.common.wire);
  }
  frozen_adam_update(gpu_, static_cast<float>(config_.common.eps), m, v_.as<float>(), params, d, lr,
                     static_cast<float>(config_.common.weight_decay));
}

double DeviceOptimizer::variance_l1() {
  segment_l1(gpu_, whole_->table(), v_.as<float>(), l1_.as<double>());
  double out = 0;
  gpu_.copy(&out, l1_.data(), sizeof out);
  gpu_.synchronize();
  return out;
}

Stage DeviceOptimizer::stage() const {
  if (config_.rule != DeviceRule::kOnebitAdam) return Stage::kFullPrecision;
  return frozen_ ? Stage::kCompression : Stage::kWarmup;
}

std::optional<int64_t> DeviceOptimizer::freeze_step() const {
  return frozen_ ? std::optional<int64_t>(frozen_at_) : std::nullopt;
}

std::vector<double> DeviceOptimizer::layer_coefficients() const {
  std::vector<double> out(coefficients_.size() / sizeof(double));
  gpu_.copy(out.data(), coefficients_.data(), coefficients_.size());
  gpu_.synchronize();
  return out;
}

std::vector<float> DeviceOptimizer::first_moment() const { return download(m_); }
std::vector<float> DeviceOptimizer::second_moment() const { return download(v_); }

std::vector<float> DeviceOptimizer::download(const DeviceBuffer& buffer) const {
  std::vector<float> out(buffer.size() / sizeof(float));
  gpu_.copy(out.data(), buffer.data(), buffer.size());
  gpu_.synchronize();
  return out;
}

}  // namespace compopt::cuda
