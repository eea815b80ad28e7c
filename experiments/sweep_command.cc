// `compopt sweep`: what-if study over a TOML config (workload, cluster, sweep
// axes), each scenario simulated by the step simulator in its own forked
// process (SimGrid allows one engine per process), all cores at once. Writes
// sweep.csv (one row per scenario and optimizer stage) and run.json; bad input
// fails before any work with exit code 2 and leaves earlier results untouched.

#include <fmt/format.h>
#include <toml++/toml.h>
#include <unistd.h>

#include <cstdio>
#include <sstream>

#include "core/util/error.h"
#include "experiments/commands.h"
#include "experiments/forked_jobs.h"
#include "experiments/run_directory.h"
#include "sim/scenario.h"

namespace compopt::cli {
namespace {

struct Options {
  std::string config;
  std::vector<std::string> sets;
  int jobs = 0;
  std::string out;
};

// Applies "a.b.c=value" to the table; value is read as TOML, or as a string.
void apply_set(toml::table& root, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InvalidArgument(
        fmt::format("--set '{}': expected key=value, e.g. sweep.gpus=[8,16]", assignment));
  }
  const std::string key = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  toml::table* table = &root;
  std::string::size_type start = 0, dot;
  while ((dot = key.find('.', start)) != std::string::npos) {
    const std::string part = key.substr(start, dot - start);
    if (!table->contains(part)) table->insert(part, toml::table{});
    table = (*table)[part].as_table();
    if (table == nullptr)
      throw InvalidArgument(fmt::format("--set '{}': '{}' is not a table", assignment, part));
    start = dot + 1;
  }
  const std::string leaf = key.substr(start);
  try {
    toml::table parsed = toml::parse("v = " + text);
    table->insert_or_assign(leaf, *parsed.get("v"));
  } catch (const toml::parse_error&) {
    table->insert_or_assign(leaf, text);
  }
}

template <typename T>
std::vector<T> axis(const toml::table& root, const char* key, std::vector<T> fallback) {
  const toml::node* node = root.at_path(std::string("sweep.") + key).node();
  if (node == nullptr) return fallback;
  std::vector<T> values;
  auto take = [&](const toml::node& item) {
    const auto v = item.value<T>();
    if (!v) {
      throw InvalidArgument(fmt::format("sweep.{}: the value at line {} has the wrong type", key,
                                        item.source().begin.line));
    }
    values.push_back(*v);
  };
  if (const toml::array* array = node->as_array()) {
    for (const toml::node& item : *array) take(item);
  } else {
    take(*node);
  }
  if (values.empty()) throw InvalidArgument(fmt::format("sweep.{}: empty list", key));
  return values;
}

std::vector<sim::Scenario> scenarios_of(const toml::table& root) {
  sim::Scenario base;
  base.workload = root.at_path("workload.name").value_or(base.workload);
  base.cluster = root.at_path("cluster.preset").value_or(base.cluster);
  base.platform_file = root.at_path("cluster.platform").value_or(std::string());
  base.overlap = root.at_path("sweep.overlap").value_or(false);
  base.buckets = static_cast<int>(root.at_path("sweep.buckets").value_or(int64_t{0}));
  std::vector<sim::Scenario> out;
  for (const auto& optimizer : axis<std::string>(root, "optimizers", {"adam"}))
    for (const auto gpus : axis<int64_t>(root, "gpus", {0}))
      for (const auto gbps : axis<double>(root, "inter_node_gbps", {0.0}))
        for (const auto batch : axis<int64_t>(root, "batch_per_gpu", {0}))
          for (const auto accum : axis<int64_t>(root, "grad_accum", {1}))
            for (const auto& topology : axis<std::string>(root, "topology", {""})) {
              sim::Scenario s = base;
              s.optimizer = optimizer;
              s.gpus = static_cast<int>(gpus);
              s.inter_node_gbps = gbps;
              s.batch_per_gpu = static_cast<int>(batch);
              s.grad_accum = static_cast<int>(accum);
              s.topology = topology;
              out.push_back(s);
            }
  return out;
}

class Progress {
 public:
  explicit Progress(size_t total) : total_(total), tty_(isatty(fileno(stderr)) != 0) {}
  void done(const sim::Scenario& s) {
    ++done_;
    if (tty_) {
      const size_t width = 30, filled = width * done_ / total_;
      fmt::print(stderr, "\r[{}{}] {}/{} scenarios", std::string(filled, '#'),
                 std::string(width - filled, ' '), done_, total_);
      if (done_ == total_) fmt::print(stderr, "\n");
    } else {
      fmt::print(stderr, "scenario {}/{} done: {} {} gpus={}\n", done_, total_, s.workload,
                 s.optimizer, s.gpus);
    }
  }

 private:
  size_t total_, done_ = 0;
  bool tty_;
};

// Simulates every scenario in its own forked process, `jobs` at a time; returns
// their CSV rows in order.
std::vector<std::string> run_all(const std::vector<sim::Scenario>& scenarios, int jobs) {
  Progress progress(scenarios.size());
  return run_forked({.count = scenarios.size(),
                     .parallel = jobs,
                     .work =
                         [&](size_t i) {
                           const sim::StepConfig config = sim::resolve_scenario(scenarios[i]);
                           std::string text;
                           for (const auto& t : sim::simulate_step(config))
                             text += sim::scenario_csv_row(scenarios[i], config, t);
                           return text;
                         },
                     .describe =
                         [&](size_t i) {
                           return fmt::format("scenario {} ({} on {} GPUs)", i + 1,
                                              scenarios[i].optimizer, scenarios[i].gpus);
                         },
                     .on_done = [&](size_t i) { progress.done(scenarios[i]); }});
}

void run(const Options& o) {
  toml::table root;
  try {
    root = toml::parse_file(o.config);
  } catch (const toml::parse_error& e) {
    throw InvalidArgument(fmt::format("sweep config '{}': {} (line {})", o.config, e.description(),
                                      e.source().begin.line));
  }
  for (const std::string& s : o.sets) apply_set(root, s);
  const std::vector<sim::Scenario> scenarios = scenarios_of(root);
  for (const sim::Scenario& s : scenarios)
    sim::resolve_scenario(s);  // all bad input fails here, exit 2
  if (o.jobs < 0)
    throw InvalidArgument(fmt::format("--jobs {}: expected >= 0 (0 = all cores)", o.jobs));
  const int jobs = parallel_jobs(o.jobs);
  RunDirectory dir("sweep", o.out);
  fmt::print("compopt sweep: {} scenarios from {}, {} at a time\n", scenarios.size(), o.config,
             jobs);
  std::string csv = sim::scenario_csv_header();
  for (const std::string& rows : run_all(scenarios, jobs)) csv += rows;
  dir.write_file("sweep.csv", csv);
  std::ostringstream resolved;
  resolved << toml::json_formatter(root);
  dir.write_run_json({{"config_file", o.config},
                      {"config", nlohmann::json::parse(resolved.str())},
                      {"scenarios", scenarios.size()},
                      {"backend", "sim"}});
  fmt::print("wrote {}/sweep.csv ({} scenarios) and run.json\n", dir.path().string(),
             scenarios.size());
}

}  // namespace

void register_sweep_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "sweep", "Simulate a grid of scenarios from a TOML config (what-if study)");
  cmd->add_option("config", o->config, "TOML config (see experiments/configs/sweep_*.toml)")
      ->required();
  cmd->add_option("--set", o->sets, "override a config key, e.g. --set sweep.gpus=[8,16]");
  cmd->add_option("--jobs", o->jobs, "parallel scenarios (0 = all cores)")->capture_default_str();
  cmd->add_option("--out", o->out, "run directory (default runs/sweep-<time>)");
  cmd->callback([o] { run(*o); });
}

}  // namespace compopt::cli
