#pragma once
// ZeroOneAdamSchedule: which steps of 0/1 Adam ([01A] Lu et al. 2022, Alg. 1 with its sets T_v
// and T_u; DeepSpeed's ZeroOneAdam) update the variance and which synchronise the parameters.
//  - Until var_freeze_step (inclusive) the variance is updated at the steps t with
//    t % var_interval == 0; after var_update_scaler such updates var_interval doubles
//    (1, 2, 4, ...). Every other step of that phase averages a compressed gradient.
//  - After step var_freeze_step the variance is frozen and the parameters are synchronised at
//    the steps t with t % local_interval == 0; every local_step_scaler steps local_interval
//    doubles, up to local_step_clipper.
// Steps are counted from 1 (the optimizer's t). Counters are saved so that a resumed run
// draws the same schedule.

#include <cstdint>
#include <string>

#include "core/optim/optimizer_state.h"

namespace compopt {

struct ZeroOneAdamScheduleKeys {
  int64_t var_freeze_step = 100000;  // DeepSpeed's defaults
  int64_t var_update_scaler = 16;
  int64_t local_step_scaler = 32678;
  int64_t local_step_clipper = 16;
};

class ZeroOneAdamSchedule {
 public:
  // Throws InvalidArgument naming a key below 1.
  explicit ZeroOneAdamSchedule(ZeroOneAdamScheduleKeys keys);

  // Whether step t runs with the variance frozen (t > var_freeze_step).
  bool frozen(int64_t t) const { return t > keys_.var_freeze_step; }
  // Before the freeze: whether step t averages the full-precision gradient and updates v.
  bool variance_step(int64_t t) const { return t % var_interval_ == 0; }
  // After the freeze: whether step t synchronises the parameters.
  bool sync_step(int64_t t) const { return t % local_interval_ == 0; }
  // Moves the counters past step t (call once per step, after the step).
  void advance(int64_t t);

  int64_t var_interval() const { return var_interval_; }
  int64_t local_interval() const { return local_interval_; }

  void save(OptimizerState& state, const std::string& prefix) const;
  void load(const OptimizerState& state, const std::string& prefix);

 private:
  ZeroOneAdamScheduleKeys keys_;
  int64_t var_interval_ = 1, var_counter_ = 0;
  int64_t local_interval_ = 1, local_counter_ = 0;
};

// What a run of the schedule holds, step by step counted: the variance steps and the other
// (compressed-gradient) steps up to var_freeze_step, and the steps and syncs after it.
struct ZeroOneAdamRunCounts {
  int64_t variance_steps = 0, compressed_steps = 0, local_steps = 0, syncs = 0;
};

// The counts of the run that just reaches the capped interval, var_freeze_step +
// ceil(log2(local_step_clipper)) * local_step_scaler steps: the shortest run in which every
// phase of the schedule occurs (the registry's stage period and step bytes come from it).
ZeroOneAdamRunCounts zero_one_adam_run_counts(const ZeroOneAdamScheduleKeys& keys);

}  // namespace compopt
