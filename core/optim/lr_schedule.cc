#include "core/optim/lr_schedule.h"

#include <cmath>
#include <numbers>

#include "core/util/error.h"

namespace compopt {
namespace {

void check(bool ok, const std::string& what) {
  if (!ok) throw InvalidArgument("lr schedule: " + what);
}

class Constant final : public LrSchedule {
 public:
  explicit Constant(double lr) : lr_(lr) {}
  double lr(int64_t) const override { return lr_; }
  std::string describe() const override { return "constant(" + std::to_string(lr_) + ")"; }

 private:
  double lr_;
};

// Warmup (linear from 0, or exponential from start) followed by a decay rule.
class WarmupThenDecay final : public LrSchedule {
 public:
  enum class Warmup { kLinear, kExp };
  enum class Decay { kStep, kLinear, kCosine };

  WarmupThenDecay(Warmup warmup, Decay decay, double start, double peak, int64_t warmup_steps,
                  double factor, int64_t every, int64_t total)
      : warmup_(warmup),
        decay_(decay),
        start_(start),
        peak_(peak),
        w_(warmup_steps),
        factor_(factor),
        every_(every),
        total_(total) {}

  double lr(int64_t s) const override {
    if (s < w_) {
      const double frac = static_cast<double>(s) / static_cast<double>(w_);
      return warmup_ == Warmup::kLinear ? peak_ * frac : start_ * std::pow(peak_ / start_, frac);
    }
    const double after = static_cast<double>(s - w_);
    switch (decay_) {
      case Decay::kStep:
        return peak_ * std::pow(factor_, std::floor(after / static_cast<double>(every_)));
      case Decay::kLinear:
        return peak_ *
               std::max(0.0, static_cast<double>(total_ - s) / static_cast<double>(total_ - w_));
      case Decay::kCosine: {
        const double span = static_cast<double>(total_ - w_);
        return peak_ * 0.5 * (1.0 + std::cos(std::numbers::pi * std::min(after, span) / span));
      }
    }
    return peak_;
  }
  int64_t warmup_steps() const override { return w_; }
  std::string describe() const override {
    return std::string(warmup_ == Warmup::kLinear ? "linear" : "exp") + "_warmup(" +
           std::to_string(w_) + ")_peak(" + std::to_string(peak_) + ")";
  }

 private:
  Warmup warmup_;
  Decay decay_;
  double start_, peak_;
  int64_t w_;
  double factor_;
  int64_t every_, total_;
};

void check_peak(double peak) {
  check(std::isfinite(peak) && peak >= 0, "lr = " + std::to_string(peak) + ", expected >= 0");
}

void check_step_decay(int64_t warmup_steps, double decay, int64_t every) {
  check(warmup_steps >= 0, "warmup_steps = " + std::to_string(warmup_steps) + ", expected >= 0");
  check(decay > 0 && decay <= 1, "decay = " + std::to_string(decay) + ", expected in (0, 1]");
  check(every >= 1, "decay_every = " + std::to_string(every) + ", expected >= 1");
}

void check_total(int64_t warmup_steps, int64_t total) {
  check(warmup_steps >= 0, "warmup_steps = " + std::to_string(warmup_steps) + ", expected >= 0");
  check(total > warmup_steps, "total_steps = " + std::to_string(total) +
                                  ", expected > warmup_steps = " + std::to_string(warmup_steps));
}

}  // namespace

std::unique_ptr<LrSchedule> make_constant_schedule(double lr) {
  check_peak(lr);
  return std::make_unique<Constant>(lr);
}

std::unique_ptr<LrSchedule> make_linear_warmup_step_decay(double peak, int64_t warmup_steps,
                                                          double decay, int64_t every) {
  check_peak(peak);
  check_step_decay(warmup_steps, decay, every);
  return std::make_unique<WarmupThenDecay>(WarmupThenDecay::Warmup::kLinear,
                                           WarmupThenDecay::Decay::kStep, 0.0, peak, warmup_steps,
                                           decay, every, 0);
}

std::unique_ptr<LrSchedule> make_exp_warmup_step_decay(double start, double peak,
                                                       int64_t warmup_steps, double decay,
                                                       int64_t every) {
  check_peak(peak);
  check_step_decay(warmup_steps, decay, every);
  check(start > 0, "start_lr = " + std::to_string(start) + ", expected > 0");
  return std::make_unique<WarmupThenDecay>(WarmupThenDecay::Warmup::kExp,
                                           WarmupThenDecay::Decay::kStep, start, peak, warmup_steps,
                                           decay, every, 0);
}

std::unique_ptr<LrSchedule> make_linear_warmup_linear_decay(double peak, int64_t warmup_steps,
                                                            int64_t total_steps) {
  check_peak(peak);
  check_total(warmup_steps, total_steps);
  return std::make_unique<WarmupThenDecay>(WarmupThenDecay::Warmup::kLinear,
                                           WarmupThenDecay::Decay::kLinear, 0.0, peak, warmup_steps,
                                           1.0, 1, total_steps);
}

std::unique_ptr<LrSchedule> make_cosine_schedule(double peak, int64_t warmup_steps,
                                                 int64_t total_steps) {
  check_peak(peak);
  check_total(warmup_steps, total_steps);
  return std::make_unique<WarmupThenDecay>(WarmupThenDecay::Warmup::kLinear,
                                           WarmupThenDecay::Decay::kCosine, 0.0, peak, warmup_steps,
                                           1.0, 1, total_steps);
}

std::unique_ptr<LrSchedule> make_lr_schedule(HyperParams& hp, double default_lr) {
  const std::string kind =
      hp.choice("schedule", "constant",
                {"constant", "linear_warmup_step_decay", "exp_warmup_step_decay",
                 "linear_warmup_linear_decay", "cosine"});
  const double peak = hp.non_negative("lr", default_lr);
  try {
    if (kind == "constant") return make_constant_schedule(peak);
    const int64_t warmup = hp.integer("warmup_steps", 0, 0);
    if (kind == "linear_warmup_step_decay" || kind == "exp_warmup_step_decay") {
      const double decay = hp.number_in("decay", 1.0, 0.0, 1.0);
      const int64_t every = hp.integer("decay_every", 1, 1);
      if (kind == "linear_warmup_step_decay") {
        return make_linear_warmup_step_decay(peak, warmup, decay, every);
      }
      return make_exp_warmup_step_decay(hp.positive("start_lr", peak * 1e-3), peak, warmup, decay,
                                        every);
    }
    const auto total = hp.optional_integer("total_steps", 1);
    if (!total)
      hp.fail("schedule '" + kind + "' needs key 'total_steps' (an integer > warmup_steps)");
    if (kind == "linear_warmup_linear_decay") {
      return make_linear_warmup_linear_decay(peak, warmup, *total);
    }
    return make_cosine_schedule(peak, warmup, *total);
  } catch (const InvalidArgument& e) {
    if (std::string(e.what()).rfind(hp.context(), 0) == 0) throw;
    hp.fail(e.what());
  }
}

}  // namespace compopt
