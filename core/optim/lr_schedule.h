#pragma once
// Learning-rate schedules (docs/algorithms.md). lr(s) is the rate of the step that runs
// after s completed steps (s = 0 for the first step). Warmups are linear
// (peak*s/W) or exponential (start*(peak/start)^(s/W)) for s < W; then:
//   constant                    peak
//   *_step_decay                peak * decay^floor((s-W)/every)
//   linear_warmup_linear_decay  peak * max(0, (T-s)/(T-W))
//   cosine                      peak * (1 + cos(pi*min(s-W, T-W)/(T-W))) / 2
// Immutable; thread-safe.

#include <cstdint>
#include <memory>
#include <string>

#include "core/util/hyper_params.h"

namespace compopt {

class LrSchedule {
 public:
  virtual ~LrSchedule() = default;
  virtual double lr(int64_t completed_steps) const = 0;
  // Steps of LR warmup (0 when none); 1-bit Adam's detector waits past them.
  virtual int64_t warmup_steps() const { return 0; }
  virtual std::string describe() const = 0;
};

std::unique_ptr<LrSchedule> make_constant_schedule(double lr);
std::unique_ptr<LrSchedule> make_linear_warmup_step_decay(double peak, int64_t warmup_steps,
                                                          double decay, int64_t every);
std::unique_ptr<LrSchedule> make_exp_warmup_step_decay(double start, double peak,
                                                       int64_t warmup_steps, double decay,
                                                       int64_t every);
std::unique_ptr<LrSchedule> make_linear_warmup_linear_decay(double peak, int64_t warmup_steps,
                                                            int64_t total_steps);
std::unique_ptr<LrSchedule> make_cosine_schedule(double peak, int64_t warmup_steps,
                                                 int64_t total_steps);

// Reads keys schedule (default constant), lr (the constant or peak rate,
// default `default_lr`), warmup_steps, decay, decay_every, start_lr,
// total_steps — only those the chosen schedule uses.
std::unique_ptr<LrSchedule> make_lr_schedule(HyperParams& hp, double default_lr);

}  // namespace compopt
