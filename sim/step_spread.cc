#include "sim/step_spread.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

namespace compopt::sim {

std::vector<InputEnds> spread_scenarios(const StepConfig& config) {
  std::vector<InputEnds> out;
  for (const MeasuredInput& input : measured_inputs()) {
    const FactorRange range = input.range(config);
    if (range.pinned()) continue;
    InputEnds ends{input.name, config, config};
    input.scale(ends.low, range.low);
    input.scale(ends.high, range.high);
    out.push_back(std::move(ends));
  }
  return out;
}

StepSpread spread_of(const StepConfig& config, std::vector<std::vector<StageTiming>> runs) {
  const std::vector<InputEnds> ends = spread_scenarios(config);
  if (runs.size() != 2 * ends.size()) {
    throw std::invalid_argument(
        fmt::format("spread_of: {} runs for {} inputs' two ends", runs.size(), ends.size()));
  }
  std::vector<std::string> lines = input_range_lines(config);
  lines.push_back(model_error().source);
  StepSpread out{{}, fmt::format("{}", fmt::join(lines, "; "))};
  for (size_t k = 0; k < ends.size(); ++k)
    out.inputs.push_back({ends[k].input, std::move(runs[2 * k]), std::move(runs[2 * k + 1])});
  return out;
}

StepSpread simulate_step_spread(const StepConfig& config) {
  std::vector<std::vector<StageTiming>> runs;
  for (const InputEnds& ends : spread_scenarios(config)) {
    runs.push_back(simulate_step(ends.low));
    runs.push_back(simulate_step(ends.high));
  }
  return spread_of(config, std::move(runs));
}

std::vector<std::string> input_range_lines(const StepConfig& config) {
  std::vector<std::string> lines;
  for (const MeasuredInput& input : measured_inputs()) {
    const FactorRange r = input.range(config);
    lines.push_back(
        r.pinned() ? fmt::format("{}: {}", input.name, r.source)
                   : fmt::format("{} x{:.3g}..x{:.3g} ({})", input.name, r.low, r.high, r.source));
  }
  return lines;
}

void to_json(nlohmann::json& j, const InputRuns& runs) {
  j = nlohmann::json{{"input", runs.input}, {"low", runs.low}, {"high", runs.high}};
}

void from_json(const nlohmann::json& j, InputRuns& runs) {
  runs.input = j.at("input").get<std::string>();
  runs.low = j.at("low").get<std::vector<StageTiming>>();
  runs.high = j.at("high").get<std::vector<StageTiming>>();
}

void to_json(nlohmann::json& j, const StepSpread& spread) {
  j = nlohmann::json{{"inputs", spread.inputs}, {"source", spread.source}};
}

void from_json(const nlohmann::json& j, StepSpread& spread) {
  spread.inputs = j.at("inputs").get<std::vector<InputRuns>>();
  spread.source = j.at("source").get<std::string>();
}

StageBounds stage_bounds(const std::vector<StageTiming>& expected, const StepSpread& spread,
                         size_t index) {
  const Band step = figure_band(expected, spread, [&](const std::vector<StageTiming>& run) {
    return run.at(index).step_time_s;
  });
  const Band throughput = figure_band(expected, spread, [&](const std::vector<StageTiming>& run) {
    return run.at(index).throughput_samples_s;
  });
  return {step.low, step.high, throughput.low, throughput.high};
}

}  // namespace compopt::sim
