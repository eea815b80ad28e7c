#include "experiments/reproduce/simulated_scenarios.h"

#include <fmt/format.h>

#include <sstream>
#include <stdexcept>

#include "core/optim/optimizer_registry.h"
#include "experiments/scenario/forked_jobs.h"

namespace compopt::cli::reproduce {
bool same_step_optimizer(std::string_view a, std::string_view b) {
  return optimizer_registry().canonical(a) == optimizer_registry().canonical(b);
}

std::string encode_stages(const StageTimings& stages) {
  std::string out;
  for (const sim::StageTiming& t : stages) {
    out +=
        fmt::format("{} {:.17g} {:.17g} {:.17g} {:.17g} {:.17g} {:.17g} {:.17g} {:.17g} {:.17g}\n",
                    t.stage, t.forward_s, t.backward_compute_s, t.comm_s, t.compress_s, t.step_s,
                    t.step_time_s, t.throughput_samples_s, t.bytes_per_gpu, t.inter_node_bytes);
  }
  return out;
}

StageTimings decode_stages(std::string_view text) {
  StageTimings stages;
  std::istringstream in{std::string(text)};
  sim::StageTiming t;
  while (in >> t.stage >> t.forward_s >> t.backward_compute_s >> t.comm_s >> t.compress_s >>
         t.step_s >> t.step_time_s >> t.throughput_samples_s >> t.bytes_per_gpu >>
         t.inter_node_bytes) {
    stages.push_back(t);
  }
  if (stages.empty()) throw std::runtime_error("step simulation returned no stage timings");
  return stages;
}

std::vector<StageTimings> simulate_scenarios(const std::vector<sim::Scenario>& scenarios,
                                             int jobs) {
  for (const sim::Scenario& s : scenarios) sim::resolve_scenario(s);  // bad input: exit 2 now
  const std::vector<std::string> texts = run_forked(
      {.count = scenarios.size(),
       .parallel = jobs,
       .work =
           [&](size_t i) {
             return encode_stages(sim::simulate_step(sim::resolve_scenario(scenarios[i])));
           },
       .describe =
           [&](size_t i) {
             return fmt::format("simulation of {} / {} on {} GPUs at {} Gbit/s",
                                scenarios[i].workload, scenarios[i].optimizer, scenarios[i].gpus,
                                scenarios[i].inter_node_gbps);
           }});
  std::vector<StageTimings> out;
  out.reserve(texts.size());
  for (const std::string& t : texts) out.push_back(decode_stages(t));
  return out;
}

const sim::StageTiming& steady_stage(const StageTimings& stages) {
  for (const sim::StageTiming& t : stages)
    if (t.stage == "compression") return t;
  return stages.front();
}

}  // namespace compopt::cli::reproduce
