#include "experiments/scenario/tuned_baseline_columns.h"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/util/csv_schema.h"
#include "experiments/scenario/forked_jobs.h"
#include "experiments/scenario/speedup_baseline.h"

namespace compopt::cli {
namespace {

using nlohmann::json;

// `scenario` with its optimizer replaced by its speedup baseline.
sim::Scenario baseline_of(const sim::Scenario& scenario) {
  sim::Scenario b = scenario;
  b.optimizer =
      speedup_baseline(sim::resolve_scenario(scenario).optimizer, scenario.training.baseline);
  return b;
}

// What tells the baselines of one config's scenarios apart: the optimizer and the fields its
// axes and keys set (the workload and cluster tables are the config's, shared).
std::string key_of(const sim::Scenario& b) {
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", b.optimizer, b.workload,
                     b.cluster, b.gpu, b.platform_file, b.gpus, b.gpus_per_node, b.nics_per_node,
                     b.inter_node_gbps, b.topology, b.batch_per_gpu, b.grad_accum, b.implementation,
                     sim::overlap_mode_name(b.overlap), b.buckets);
}

// For every scenario, the index of its baseline in `distinct` (filled in first-seen order).
std::vector<size_t> index_baselines(const std::vector<sim::Scenario>& scenarios,
                                    std::vector<sim::Scenario>& distinct) {
  std::map<std::string, size_t> seen;
  std::vector<size_t> index;
  index.reserve(scenarios.size());
  for (const sim::Scenario& s : scenarios) {
    sim::Scenario b = baseline_of(s);
    const auto [it, added] = seen.emplace(key_of(b), distinct.size());
    if (added) distinct.push_back(std::move(b));
    index.push_back(it->second);
  }
  return index;
}

json run_json(const sim::BaselineRun& r) {
  return {{"algorithm", r.algorithm},
          {"allreduce", r.allreduce},
          {"buckets", r.buckets},
          {"buckets_used", r.buckets_used},
          {"step_time_s", r.step_time_s}};
}

sim::BaselineRun run_of(const json& j) {
  return {.algorithm = j.at("algorithm").get<std::string>(),
          .allreduce = j.at("allreduce").get<std::string>(),
          .buckets = j.at("buckets").get<int>(),
          .buckets_used = j.at("buckets_used").get<int>(),
          .step_time_s = j.at("step_time_s").get<double>()};
}

const CsvSchema& columns() {
  static const CsvSchema schema("tuned baseline columns",
                                {{"nccl_default_baseline_step_time_s", "{:.6e}"},
                                 {"nccl_default_baseline_algorithm"},
                                 {"nccl_default_baseline_buckets_used"},
                                 {"tuned_baseline_step_time_s", "{:.6e}"},
                                 {"tuned_baseline_algorithm"},
                                 {"tuned_baseline_buckets"},
                                 {"tuned_baseline_buckets_used"},
                                 {"speedup_vs_nccl_default", "{:.4f}"},
                                 {"speedup_vs_tuned_baseline", "{:.4f}"},
                                 {"nccl_default_slower"},
                                 {"nccl_default_slowdown", "{:.4f}"}});
  return schema;
}

std::string without_newline(std::string line) {
  if (!line.empty() && line.back() == '\n') line.pop_back();
  return line;
}

std::string cells_of(const ScenarioBaseline& b, const sim::StageTiming& t) {
  const sim::TunedBaseline& r = b.runs;
  return without_newline(columns().row(
      {r.nccl_default.step_time_s, r.nccl_default.algorithm, r.nccl_default.buckets_used,
       r.tuned.step_time_s, r.tuned.algorithm, r.tuned.buckets, r.tuned.buckets_used,
       r.nccl_default.step_time_s / t.step_time_s, r.tuned.step_time_s / t.step_time_s,
       r.default_is_slower(), r.default_slowdown()}));
}

std::string describe_scenario(const sim::Scenario& s) {
  const sim::StepConfig c = sim::resolve_scenario(s);
  return fmt::format("{} GPUs, {:g} Gbit/s, {}, batch {} x {}", c.cluster.gpus(),
                     c.cluster.inter_node_gbps, c.implementation, c.batch_per_gpu, c.grad_accum);
}

std::string baseline_line(const sim::Scenario& s, const ScenarioBaseline& b) {
  const sim::TunedBaseline& r = b.runs;
  std::string line =
      fmt::format("baseline {} ({}): NCCL default {}; tuned {}", b.optimizer, describe_scenario(s),
                  describe_baseline_run(r.nccl_default), describe_baseline_run(r.tuned));
  if (r.default_is_slower()) {
    line +=
        fmt::format("; warning: NCCL default ({}) is {:.2f}x slower than {}",
                    r.nccl_default.algorithm, r.default_slowdown(), r.other_algorithm.algorithm);
  }
  return line;
}

}  // namespace

std::string describe_baseline_run(const sim::BaselineRun& r) {
  const std::string asked =
      r.buckets == 0 ? "the implementation's bucket size" : fmt::format("--buckets {}", r.buckets);
  return fmt::format("{} in {} bucket{} ({}): {:.2f} ms", r.algorithm, r.buckets_used,
                     r.buckets_used == 1 ? "" : "s", asked, 1e3 * r.step_time_s);
}

json tuned_baseline_json(const ScenarioBaseline& baseline) {
  const sim::TunedBaseline& r = baseline.runs;
  return {{"optimizer", baseline.optimizer},
          {"nccl_default", run_json(r.nccl_default)},
          {"tuned", run_json(r.tuned)},
          {"other_algorithm", run_json(r.other_algorithm)},
          {"nccl_default_slower", r.default_is_slower()}};
}

std::vector<sim::Scenario> baseline_scenarios(const std::vector<sim::Scenario>& scenarios) {
  std::vector<sim::Scenario> distinct;
  index_baselines(scenarios, distinct);
  return distinct;
}

std::vector<ScenarioBaseline> tune_scenario_baselines(const std::vector<sim::Scenario>& scenarios,
                                                      int parallel) {
  std::vector<sim::Scenario> distinct;
  const std::vector<size_t> index = index_baselines(scenarios, distinct);
  std::vector<sim::StepConfig> configs;
  configs.reserve(distinct.size());
  for (const sim::Scenario& b : distinct) configs.push_back(sim::resolve_scenario(b));
  const std::vector<std::string> texts =
      run_forked({.count = configs.size(),
                  .parallel = parallel,
                  .work =
                      [&](size_t i) {
                        const sim::TunedBaseline t = sim::tune_baseline(configs[i]);
                        return json{{"nccl_default", run_json(t.nccl_default)},
                                    {"tuned", run_json(t.tuned)},
                                    {"other_algorithm", run_json(t.other_algorithm)}}
                            .dump();
                      },
                  .describe =
                      [&](size_t i) {
                        return fmt::format("tuned baseline {} on {} GPUs", configs[i].optimizer,
                                           configs[i].cluster.gpus());
                      }});
  std::vector<ScenarioBaseline> out;
  out.reserve(scenarios.size());
  for (const size_t i : index) {
    const json j = json::parse(texts[i]);  // tuned_baseline_json's runs
    out.push_back({distinct[i].optimizer,
                   {.nccl_default = run_of(j.at("nccl_default")),
                    .tuned = run_of(j.at("tuned")),
                    .other_algorithm = run_of(j.at("other_algorithm"))}});
  }
  return out;
}

std::string with_tuned_baseline_columns(const std::string& csv,
                                        const std::vector<SimulatedStep>& steps,
                                        const std::vector<ScenarioBaseline>& baselines) {
  if (steps.size() != baselines.size()) {
    throw std::logic_error(fmt::format("tuned baseline columns: {} steps for {} baselines",
                                       steps.size(), baselines.size()));
  }
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);
  std::string out = line + "," + without_newline(columns().header()) + "\n";
  for (size_t i = 0; i < steps.size(); ++i) {
    for (const sim::StageTiming& t : steps[i].timings) {
      if (!std::getline(lines, line))
        throw std::logic_error("tuned baseline columns: fewer CSV rows than stages");
      out += line + "," + cells_of(baselines[i], t) + "\n";
    }
  }
  if (std::getline(lines, line))
    throw std::logic_error("tuned baseline columns: more CSV rows than stages");
  return out;
}

std::string tuned_baseline_report(const std::vector<sim::Scenario>& scenarios,
                                  const std::vector<SimulatedStep>& steps,
                                  const std::vector<ScenarioBaseline>& baselines, size_t limit) {
  std::vector<std::string> lines;
  std::set<std::string> printed;  // the baselines whose line is out
  for (size_t i = 0; i < scenarios.size(); ++i) {
    const ScenarioBaseline& b = baselines[i];
    if (printed.insert(key_of(baseline_of(scenarios[i]))).second)
      lines.push_back(baseline_line(scenarios[i], b));
    const sim::StageTiming& steady = steps[i].timings.back();
    const std::string optimizer = sim::resolve_scenario(scenarios[i]).optimizer;
    if (optimizer == b.optimizer) continue;
    lines.push_back(fmt::format(
        "  {} ({}): {:.2f}x against the NCCL-default baseline, {:.2f}x against the tuned",
        optimizer, describe_scenario(scenarios[i]),
        b.runs.nccl_default.step_time_s / steady.step_time_s,
        b.runs.tuned.step_time_s / steady.step_time_s));
  }
  std::string text;
  for (size_t k = 0; k < lines.size() && k < limit; ++k) text += lines[k] + "\n";
  if (lines.size() > limit) {
    text += fmt::format("... and {} more lines (sweep.csv: the tuned_baseline_* columns)\n",
                        lines.size() - limit);
  }
  return text;
}

}  // namespace compopt::cli
