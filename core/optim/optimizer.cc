#include "core/optim/optimizer.h"

#include <algorithm>

#include "core/util/error.h"

namespace compopt {

const char* stage_name(Stage stage) {
  switch (stage) {
    case Stage::kFullPrecision:
      return "full_precision";
    case Stage::kWarmup:
      return "warmup";
    case Stage::kCompression:
      return "compression";
    case Stage::kLocal:
      return "local";
  }
  return "unknown";
}

Optimizer::Optimizer(std::string name, ParamLayout layout, CommonOptions common)
    : name_(std::move(name)), layout_(std::move(layout)), common_(std::move(common)) {
  if (!common_.schedule) throw InvalidArgument(name_ + ": CommonOptions.schedule is required");
  if (layout_.total() == 0) throw InvalidArgument(name_ + ": ParamLayout has no parameters");
  if (!(common_.weight_decay >= 0)) {
    throw InvalidArgument(name_ + ": weight_decay = " + std::to_string(common_.weight_decay) +
                          ", expected >= 0");
  }
  if (!(common_.eps > 0)) {
    throw InvalidArgument(name_ + ": eps = " + std::to_string(common_.eps) + ", expected > 0");
  }
}

void Optimizer::step(std::span<float> params, std::span<const float> grads, Communicator& comm) {
  if (params.size() != d() || grads.size() != d()) {
    throw InvalidArgument(name_ + ": step got " + std::to_string(params.size()) + " params and " +
                          std::to_string(grads.size()) + " grads, expected " + std::to_string(d()) +
                          " (ParamLayout total)");
  }
  last_lr_ = common_.schedule->lr(t_);
  ++t_;
  try {
    do_step(params, grads, comm, static_cast<float>(last_lr_));
  } catch (...) {
    --t_;
    throw;
  }
}

OptimizerMetrics Optimizer::metrics() const {
  OptimizerMetrics m;
  m.step = t_;
  m.lr = last_lr_;
  return m;
}

void Optimizer::allreduce_mean(Communicator& comm, std::span<float> data) const {
  comm.allreduce(data, ReduceOp::kMean, common_.wire);
}

std::span<const float> Optimizer::mean_gradient(Communicator& comm, std::span<const float> grads,
                                                std::span<float> buffer) const {
  if (comm.size() == 1 && common_.wire == WirePrecision::kFp32) return grads;
  std::copy(grads.begin(), grads.end(), buffer.begin());
  allreduce_mean(comm, buffer);
  return buffer;
}

OptimizerState Optimizer::save_state() const {
  OptimizerState state;
  state.tensors.clear();
  state.put_scalar("optimizer." + name_, 1.0);
  state.put_scalar("step", static_cast<double>(t_));
  state.put_scalar("last_lr", last_lr_);
  const double seed[2] = {static_cast<double>(common_.seed & 0xffffffffu),
                          static_cast<double>(common_.seed >> 32)};
  state.put_scalars("seed", seed);
  save(state);
  return state;
}

void Optimizer::load_state(const OptimizerState& state) {
  if (!state.scalars.count("optimizer." + name_)) {
    throw InvalidArgument(name_ + ": load_state got the state of another optimizer");
  }
  const auto& seed = state.scalar_list("seed");
  if (seed.size() != 2 || seed[0] + 4294967296.0 * seed[1] != static_cast<double>(common_.seed) ||
      static_cast<uint64_t>(seed[1]) != (common_.seed >> 32)) {
    throw InvalidArgument(name_ +
                          ": checkpoint was written with another seed than this "
                          "optimizer's seed " +
                          std::to_string(common_.seed));
  }
  load(state);
  t_ = static_cast<int64_t>(state.scalar("step"));
  last_lr_ = state.scalar("last_lr");
}

}  // namespace compopt
