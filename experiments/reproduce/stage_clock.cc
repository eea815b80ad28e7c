#include "experiments/reproduce/stage_clock.h"

#include <fmt/format.h>

#include <stdexcept>

#include "core/util/error.h"

namespace compopt::cli::reproduce {

StageClocks stage_clocks(const std::vector<sim::StageTiming>& timings,
                         const OptimizerEntry& optimizer) {
  StageClocks clocks;
  for (const sim::StageTiming& t : timings) {
    double period = 1;
    for (const StageSpec& spec : optimizer.stages)
      if (spec.name == t.stage) period = spec.period;
    clocks[t.stage] = {t.step_time_s - t.comm_s, t.comm_s * period};
  }
  return clocks;
}

std::vector<double> simulated_clock(const std::vector<std::string>& stages,
                                    const std::vector<double>& sent, const StageClocks& clocks,
                                    const std::string& optimizer) {
  if (stages.size() != sent.size())
    throw InvalidArgument(fmt::format("simulated clock of {}: {} stages but {} byte counts",
                                      optimizer, stages.size(), sent.size()));
  std::vector<double> times;
  double clock = 0, before = 0;
  for (size_t i = 0; i < stages.size(); ++i) {
    const auto c = clocks.find(stages[i]);
    if (c == clocks.end())
      throw std::runtime_error(
          fmt::format("{} ran step {} in stage '{}', which the step simulator does not time",
                      optimizer, i + 1, stages[i]));
    clock += c->second.local_s + (sent[i] > before ? c->second.sync_s : 0);
    before = sent[i];
    times.push_back(clock);
  }
  return times;
}

}  // namespace compopt::cli::reproduce
