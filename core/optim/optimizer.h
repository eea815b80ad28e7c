#pragma once
// Optimizer: a data-parallel optimizer written once against Communicator
// (docs/algorithms.md). Each rank owns one instance and calls step() with the same
// communicator group, in the same order, with its own local gradient.
//
// Contract:
// - params.size() == grads.size() == layout().total(), identical on every rank.
// - After step() every rank's params are bit-identical (except local-sgd
//   variants between synchronizations, by design).
// - step() increments step_count() (t = step_count() during the step, 1-based)
//   and uses the learning rate schedule at t - 1 completed steps.
// - save_state()/load_state() capture everything that influences later steps
//   (moments, frozen variance, error feedback, step, stage, coefficients,
//   seed). Loading on every rank and continuing reproduces an uninterrupted run
//   bit for bit. load_state() throws InvalidArgument for another optimizer's
//   state or mismatched sizes.
// Not thread-safe; one instance per rank.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/comm/communicator.h"
#include "core/comm/reduce_op.h"
#include "core/optim/lr_schedule.h"
#include "core/optim/optimizer_state.h"
#include "core/util/param_layout.h"

namespace compopt {

// Which phase the next step() runs in (reports split bytes by stage).
enum class Stage { kFullPrecision, kWarmup, kCompression, kLocal };
const char* stage_name(Stage stage);

// Measured quantities (docs/algorithms.md) after the latest step; absent ones are empty.
struct OptimizerMetrics {
  int64_t step = 0;
  double lr = 0;                           // rate used by the latest step
  std::optional<double> variance_norm;     // fused ||v||_2 over all parameters
  std::optional<double> variance_ratio;    // ||v_t||_1 / ||v_{t-Delta}||_1
  std::optional<double> variance_l1;       // fused ||v||_1 over all parameters
  std::vector<double> layer_coefficients;  // LAMB trust coefficient c_t per tensor
  std::vector<double> layer_ratios;        // 1-bit LAMB ratio r_t per tensor
};

// Knobs every optimizer shares (docs/algorithms.md "Optimizers").
struct CommonOptions {
  std::shared_ptr<const LrSchedule> schedule;  // required
  double weight_decay = 0.0;                   // lambda, added to the update as lambda*x
  double eps = 1e-8;                           // eta
  WirePrecision wire = WirePrecision::kFp32;   // of allreduce_mean
  uint64_t seed = 0;                           // RandomKey seed of stochastic compressors
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // One optimizer step; see the contract above.
  void step(std::span<float> params, std::span<const float> grads, Communicator& comm);

  const std::string& name() const { return name_; }
  const ParamLayout& layout() const { return layout_; }
  const CommonOptions& options() const { return common_; }
  int64_t step_count() const { return t_; }
  virtual Stage stage() const { return Stage::kFullPrecision; }
  // The first step at which the optimizer can change stage by itself (1-bit Adam's
  // freeze_step = "auto"), for one that decides so; a run shorter than this never leaves its
  // first stage.
  virtual std::optional<int64_t> earliest_automatic_stage_change() const { return std::nullopt; }
  virtual OptimizerMetrics metrics() const;
  // What the optimizer has to tell the user since the last call (e.g. a hazard found at a
  // stage change), oldest first; rank 0's are printed by `compopt train`.
  std::vector<std::string> take_notes() { return std::exchange(notes_, {}); }

  OptimizerState save_state() const;
  void load_state(const OptimizerState& state);
  std::vector<std::byte> save_bytes() const { return save_state().to_bytes(); }
  void load_bytes(std::span<const std::byte> blob) { load_state(OptimizerState::from_bytes(blob)); }

 protected:
  Optimizer(std::string name, ParamLayout layout, CommonOptions common);

  // The step proper; t_ already counts it and lr is this step's rate.
  virtual void do_step(std::span<float> params, std::span<const float> grads, Communicator& comm,
                       float lr) = 0;
  virtual void save(OptimizerState& state) const = 0;
  virtual void load(const OptimizerState& state) = 0;

  // grads averaged over all ranks with allreduce_mean in the configured precision.
  void allreduce_mean(Communicator& comm, std::span<float> data) const;
  // The rank-mean gradient: `grads` itself on a single rank with the fp32 wire (the ring's
  // mean of one rank divides by 1, which leaves every float as it is), else a copy in `buffer`
  // (d() floats) averaged with allreduce_mean. Saves the copy and the division pass when one
  // process trains alone.
  std::span<const float> mean_gradient(Communicator& comm, std::span<const float> grads,
                                       std::span<float> buffer) const;

  void add_note(std::string note) { notes_.push_back(std::move(note)); }

  size_t d() const { return layout_.total(); }
  int64_t t_ = 0;
  double last_lr_ = 0;

 private:
  std::string name_;
  ParamLayout layout_;
  CommonOptions common_;
  std::vector<std::string> notes_;
};

}  // namespace compopt
