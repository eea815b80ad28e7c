#include "core/optim/zero_one_adam_schedule.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/util/error.h"

namespace compopt {

ZeroOneAdamSchedule::ZeroOneAdamSchedule(ZeroOneAdamScheduleKeys keys) : keys_(keys) {
  const std::pair<const char*, int64_t> checked[] = {
      {"var_freeze_step", keys_.var_freeze_step},
      {"var_update_scaler", keys_.var_update_scaler},
      {"local_step_scaler", keys_.local_step_scaler},
      {"local_step_clipper", keys_.local_step_clipper}};
  for (const auto& [key, value] : checked) {
    if (value < 1) {
      throw InvalidArgument(std::string("zero-one-adam: ") + key + " = " + std::to_string(value) +
                            ", expected an integer >= 1");
    }
  }
}

void ZeroOneAdamSchedule::advance(int64_t t) {
  if (!frozen(t)) {
    if (variance_step(t) && ++var_counter_ == keys_.var_update_scaler) {
      var_counter_ = 0;
      var_interval_ *= 2;
    }
    return;
  }
  if (++local_counter_ == keys_.local_step_scaler) {
    local_counter_ = 0;
    local_interval_ = std::min(keys_.local_step_clipper, 2 * local_interval_);
  }
}

void ZeroOneAdamSchedule::save(OptimizerState& state, const std::string& prefix) const {
  const double counters[] = {static_cast<double>(var_interval_), static_cast<double>(var_counter_),
                             static_cast<double>(local_interval_),
                             static_cast<double>(local_counter_)};
  state.put_scalars(prefix, counters);
}

void ZeroOneAdamSchedule::load(const OptimizerState& state, const std::string& prefix) {
  const std::vector<double>& c = state.scalar_list(prefix);
  if (c.size() != 4) {
    throw InvalidArgument("zero-one-adam state: '" + prefix + "' holds " +
                          std::to_string(c.size()) + " counters, expected 4");
  }
  var_interval_ = static_cast<int64_t>(c[0]);
  var_counter_ = static_cast<int64_t>(c[1]);
  local_interval_ = static_cast<int64_t>(c[2]);
  local_counter_ = static_cast<int64_t>(c[3]);
}

ZeroOneAdamRunCounts zero_one_adam_run_counts(const ZeroOneAdamScheduleKeys& keys) {
  int64_t doublings = 0;
  for (int64_t k = 1; k < keys.local_step_clipper; k *= 2) ++doublings;
  const int64_t run = keys.var_freeze_step + doublings * keys.local_step_scaler;
  ZeroOneAdamSchedule schedule(keys);
  ZeroOneAdamRunCounts out;
  for (int64_t t = 1; t <= run; ++t) {
    if (schedule.frozen(t)) {
      ++out.local_steps;
      out.syncs += schedule.sync_step(t) ? 1 : 0;
    } else if (schedule.variance_step(t)) {
      ++out.variance_steps;
    } else {
      ++out.compressed_steps;
    }
    schedule.advance(t);
  }
  return out;
}

}  // namespace compopt
