// The simulator from Python: compopt.simulate and compopt.sweep (python/compopt/simulate.py) get
// the text of profile.csv and sweep.csv from the code `compopt profile` and `compopt sweep` run
// (experiments/scenario/scenario_rows.h, sweep_config.h). Inputs go through the CLI's own
// validation first, in this process, so bad input raises compopt.InvalidArgument before anything is
// simulated; then each simulation runs in a forked process (experiments/scenario/
// forked_simulation.h), with the GIL released. With sensitivity=True both return
// sensitivity.csv's text instead (experiments/scenario/sensitivity.h); with tune_baseline=True
// the rows gain the tuned-baseline columns (experiments/scenario/tuned_baseline_columns.h). A
// build without the simulator binds only have_simulator.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "python/src/bindings.h"

#ifdef COMPOPT_HAVE_SIMULATOR
#include <fmt/format.h>

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/util/error.h"
#include "core/util/memory_budget.h"
#include "experiments/scenario/forked_jobs.h"
#include "experiments/scenario/forked_simulation.h"
#include "experiments/scenario/host_memory.h"
#include "experiments/scenario/option_ranges.h"
#include "experiments/scenario/scenario_rows.h"
#include "experiments/scenario/sensitivity.h"
#include "experiments/scenario/sensitivity_report.h"
#include "experiments/scenario/sweep_config.h"
#include "experiments/scenario/sweep_totals.h"
#include "experiments/scenario/tuned_baseline_columns.h"
#include "python/src/toml_from_python.h"

namespace compopt::python {
namespace {

namespace py = pybind11;

template <typename T>
T option_value(const py::handle& value, const std::string& key, const char* expected) {
  try {
    return value.cast<T>();
  } catch (const py::cast_error&) {
    throw InvalidArgument(
        fmt::format("{}={}: expected {}", key, py::repr(value).cast<std::string>(), expected));
  }
}

// simulate()'s keyword options: the flags of `compopt profile` that set the scenario.
using Setter = std::function<void(sim::Scenario&, const py::handle&, const std::string&)>;
template <typename T, typename Field>
Setter field_setter(Field sim::Scenario::*field, const char* expected) {
  return [field, expected](sim::Scenario& s, const py::handle& v, const std::string& key) {
    s.*field = option_value<T>(v, key, expected);
  };
}

const std::map<std::string, Setter>& option_setters() {
  using S = sim::Scenario;
  static const std::map<std::string, Setter> setters = {
      {"gpus_per_node", field_setter<int>(&S::gpus_per_node, "an integer")},
      {"inter_node_gbps", field_setter<double>(&S::inter_node_gbps, "a number")},
      {"topology", field_setter<std::string>(&S::topology, "a string")},
      {"gpu", field_setter<std::string>(&S::gpu, "a string")},
      {"platform", field_setter<std::string>(&S::platform_file, "a string")},
      {"batch_per_gpu", field_setter<int>(&S::batch_per_gpu, "an integer")},
      {"grad_accum", field_setter<int>(&S::grad_accum, "an integer")},
      {"buckets", field_setter<int>(&S::buckets, "an integer")},
      {"implementation", field_setter<std::string>(&S::implementation, "a string")},
      {"overlap",
       [](S& s, const py::handle& v, const std::string& key) {
         s.overlap = sim::parse_overlap_mode(option_value<std::string>(v, key, "auto, on or off"));
       }},
  };
  return setters;
}

void apply_options(sim::Scenario& s, const py::dict& options) {
  for (const auto& [key, value] : options) {
    const std::string name = key.cast<std::string>();
    const auto setter = option_setters().find(name);
    if (setter == option_setters().end()) {
      std::string known;
      for (const auto& [option, unused] : option_setters()) known += " " + option;
      throw InvalidArgument(
          fmt::format("simulate: unknown option '{}', expected one of:{}", name, known));
    }
    setter->second(s, value, name);
  }
}

bool names_toml_file(const std::string& text) {
  std::error_code ec;
  return text.ends_with(".toml") || std::filesystem::is_regular_file(text, ec);
}

// `value` of the table `table`: a preset name (into s.*preset, as the CLI's flag), a dict or a
// TOML file's [table] (into root, as the CLI's --set keys).
void apply_source(sim::Scenario& s, toml::table& root, const py::handle& value,
                  const std::string& table, std::string sim::Scenario::*preset) {
  if (py::isinstance<py::dict>(value)) {
    root.insert(table, toml_from_python(value.cast<py::dict>(), table));
  } else if (py::isinstance<py::str>(value) && names_toml_file(value.cast<std::string>())) {
    root.insert(table, toml_table_of_file(value.cast<std::string>(), table));
  } else {
    s.*preset =
        option_value<std::string>(value, table, "a preset name, a dict or the path of a TOML file");
  }
}

// The scenarios' steps with their spread, in forked processes with the GIL released. An
// InvalidArgument in a child (a platform file SimGrid refuses) comes back as one.
std::vector<cli::SimulatedStep> simulate_released(const std::vector<sim::Scenario>& scenarios,
                                                  int parallel) {
  const py::gil_scoped_release release;
  return cli::simulate_forked(scenarios, {.parallel = parallel, .spread = true});
}

// Each scenario's baseline tuned (tuned_baseline_columns.h), with the GIL released.
std::vector<cli::ScenarioBaseline> baselines_released(const std::vector<sim::Scenario>& scenarios,
                                                      int parallel) {
  cli::check_simulation_memory(cli::baseline_scenarios(scenarios), parallel, "gpus",
                               MemoryBudget::of_this_machine());
  const py::gil_scoped_release release;
  return cli::tune_scenario_baselines(scenarios, parallel);
}

// Refuses tune_baseline=True with sensitivity=True: the analyses replace the rows it adds to.
void check_not_both(bool tune_baseline, bool sensitivity) {
  if (tune_baseline && sensitivity) {
    throw InvalidArgument(
        "tune_baseline=True with sensitivity=True: sensitivity returns the analyses instead of "
        "the rows the tuned baseline adds columns to; expected one of the two");
  }
}

// The analyses of `plans` as sensitivity.csv's text, simulated with the GIL released.
std::string sensitivity_released(const std::vector<cli::SensitivityPlan>& plans, int parallel) {
  cli::check_simulation_memory(cli::plan_scenarios(plans), parallel, "gpus",
                               MemoryBudget::of_this_machine());
  const py::gil_scoped_release release;
  return cli::sensitivity_csv(cli::simulate_sensitivity(plans, parallel));
}

// profile.csv's text (with `tune_baseline` its tuned-baseline columns), or with `sensitivity`
// sensitivity.csv's.
std::string simulate_profile(const py::handle& workload, const py::handle& cluster,
                             const std::string& optimizer, int gpus, const py::dict& options,
                             const py::handle& training, bool sensitivity, bool tune_baseline) {
  check_not_both(tune_baseline, sensitivity);
  sim::Scenario s;
  s.optimizer = optimizer;
  s.gpus = gpus;
  toml::table root;
  apply_source(s, root, workload, "workload", &sim::Scenario::workload);
  apply_source(s, root, cluster, "cluster", &sim::Scenario::cluster);
  if (!training.is_none()) {
    root.insert("training", toml_from_python(option_value<py::dict>(training, "training", "a dict"),
                                             "training"));
  }
  apply_options(s, options);
  s = cli::scenario_from_table(s, std::move(root), "simulate");
  if (sensitivity) {
    const sim::StepConfig config = sim::resolve_scenario(s);
    const std::string baseline =
        cli::sensitivity_baseline(config.optimizer, s.training.baseline, "sensitivity=True");
    return sensitivity_released({cli::plan_sensitivity(config, baseline, "simulate")},
                                cli::parallel_jobs(0));
  }
  cli::check_simulation_memory({s}, 1, "gpus", MemoryBudget::of_this_machine());
  const std::vector<cli::SimulatedStep> steps = simulate_released({s}, 1);
  std::string csv = cli::profile_csv(s, steps.front());
  if (!tune_baseline) return csv;
  return cli::with_tuned_baseline_columns(csv, steps,
                                          baselines_released({s}, cli::parallel_jobs(0)));
}

cli::SweepConfig sweep_config_of(const py::handle& config) {
  if (py::isinstance<py::dict>(config)) {
    return cli::sweep_config_from_table(toml_from_python(config.cast<py::dict>(), "config"), "dict",
                                        {});
  }
  return cli::load_sweep_config(
      option_value<std::string>(config, "config", "a dict or the path of a TOML file"), {});
}

// (sweep.csv's text, the warning about scenarios that do not fit in memory or ""), with the
// tuned-baseline columns when `tune_baseline` or the config's [sweep] tune_baseline; with
// `sensitivity`, (sensitivity.csv's text, "").
std::pair<std::string, std::string> sweep(const py::handle& config, int jobs, bool sensitivity,
                                          bool tune_baseline) {
  check_not_both(tune_baseline, sensitivity);
  if (jobs < 0 || jobs > cli::kMaxJobs) {
    throw InvalidArgument(fmt::format("jobs={}: expected 0..{} processes at once, 0 = all cores",
                                      jobs, cli::kMaxJobs));
  }
  const cli::SweepConfig c = sweep_config_of(config);
  const int parallel = cli::parallel_jobs(jobs);
  if (sensitivity) {
    return {sensitivity_released(cli::sweep_sensitivity_plans(c.scenarios, "sensitivity=True"),
                                 parallel),
            ""};
  }
  cli::check_simulation_memory(c.scenarios,
                               std::min(parallel, static_cast<int>(c.scenarios.size())),
                               "sweep.gpus", MemoryBudget::of_this_machine());
  const std::vector<cli::SimulatedStep> steps = simulate_released(c.scenarios, parallel);
  std::vector<cli::SweepRow> rows;
  const std::string csv = cli::sweep_csv(c.scenarios, steps, rows);
  cli::FinishedSweep finished = cli::finish_sweep(csv, c.scenarios.front().training);
  if (tune_baseline || c.tune_baseline) {
    finished.csv = cli::with_tuned_baseline_columns(finished.csv, steps,
                                                    baselines_released(c.scenarios, parallel));
  }
  return {std::move(finished.csv), std::move(finished.warning)};
}

}  // namespace

void bind_simulator(py::module_& m) {
  m.attr("have_simulator") = true;
  m.def("simulate_profile", &simulate_profile, py::arg("workload"), py::arg("cluster"),
        py::arg("optimizer"), py::arg("gpus"), py::arg("options"), py::arg("training"),
        py::arg("sensitivity"), py::arg("tune_baseline"),
        "profile.csv's text of one scenario, as `compopt profile` writes it (with sensitivity: "
        "sensitivity.csv's, as --sensitivity writes it; with tune_baseline: the columns of "
        "--tune-baseline)");
  m.def("sweep", &sweep, py::arg("config"), py::arg("jobs"), py::arg("sensitivity"),
        py::arg("tune_baseline"),
        "(sweep.csv's text, memory warning) of a sweep config, as `compopt sweep` writes it "
        "(with sensitivity: (sensitivity.csv's text, \"\"); with tune_baseline: the columns of "
        "--tune-baseline)");
}

}  // namespace compopt::python

#else

namespace compopt::python {

void bind_simulator(pybind11::module_& m) { m.attr("have_simulator") = false; }

}  // namespace compopt::python

#endif
