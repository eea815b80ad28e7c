#include "sim/step_spread.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "net_models/bandwidth_spread.h"

namespace compopt::sim {

StepSpread simulate_step_spread(const StepConfig& config,
                                const std::vector<StageTiming>& expected) {
  const net::LinkSpreads spreads = net::link_spreads(config.cluster);
  StepSpread out{expected, expected, spreads.source};
  const bool none = spreads.inter_node.low == 1 && spreads.inter_node.high == 1 &&
                    spreads.intra_node.low == 1 && spreads.intra_node.high == 1;
  if (none) return out;
  StepConfig fast = config, slow = config;
  fast.cluster =
      net::with_scaled_bandwidth(config.cluster, spreads.inter_node.high, spreads.intra_node.high);
  slow.cluster =
      net::with_scaled_bandwidth(config.cluster, spreads.inter_node.low, spreads.intra_node.low);
  out.fast = simulate_step(fast);
  out.slow = simulate_step(slow);
  return out;
}

void to_json(nlohmann::json& j, const StepSpread& spread) {
  j = nlohmann::json{{"fast", spread.fast}, {"slow", spread.slow}, {"source", spread.source}};
}

void from_json(const nlohmann::json& j, StepSpread& spread) {
  spread.fast = j.at("fast").get<std::vector<StageTiming>>();
  spread.slow = j.at("slow").get<std::vector<StageTiming>>();
  spread.source = j.at("source").get<std::string>();
}

StageBounds stage_bounds(const std::vector<StageTiming>& expected, const StepSpread& spread,
                         size_t index) {
  const StageTiming& e = expected.at(index);
  const StageTiming& f = spread.fast.at(index);
  const StageTiming& s = spread.slow.at(index);
  return {std::min({e.step_time_s, f.step_time_s, s.step_time_s}),
          std::max({e.step_time_s, f.step_time_s, s.step_time_s}),
          std::min({e.throughput_samples_s, f.throughput_samples_s, s.throughput_samples_s}),
          std::max({e.throughput_samples_s, f.throughput_samples_s, s.throughput_samples_s})};
}

}  // namespace compopt::sim
