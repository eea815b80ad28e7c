// Methods side by side: every method of method_pairs.cc against its registry baseline on two
// tasks, the Fashion-MNIST MLP through `compopt train`'s code on the sim backend (16 ranks,
// as the convergence study) and the byte-level transformer LM of experiments/torch through
// compopt.torch (4 ranks under `compopt launch`, as torch_convergence). Every run gives test
// loss against steps, bytes sent per rank and SIMULATED time. The simulated clock stands in
// GPT-1.3B (micro-batch 2) on 16 GPUs of the h100-ethernet-25g preset (2 nodes x 8): the MLP's
// sim backend charges that model's compute and message sizes at each collective the run
// makes (run.stand_in); the transformer's steps are each charged the step simulator's time of
// that workload in the stage the step ran in. Quick: one seed, a few dozen steps; full:
// seeds 1-3, mean and spread.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <stdexcept>

#include "core/optim/optimizer_registry.h"
#include "core/util/csv_schema.h"
#include "core/util/error.h"
#include "core/util/file_io.h"
#include "experiments/reproduce/markdown_table.h"
#include "experiments/reproduce/method_pairs.h"
#include "experiments/reproduce/simulated_scenarios.h"
#include "experiments/reproduce/stage_clock.h"
#include "experiments/reproduce/study.h"
#include "experiments/reproduce/torch_runs.h"
#include "experiments/reproduce/training_runs.h"

namespace compopt::cli::reproduce {
namespace {

namespace fs = std::filesystem;

// The simulated clock of both tasks: this workload's step on this cluster.
constexpr const char* kStandIn = "gpt-1.3b";
constexpr const char* kClockCluster = "h100-ethernet-25g";
constexpr int kClockGpus = 16, kClockGpusPerNode = 8, kStandInBatch = 2;

struct Task {
  std::string name;  // the CSVs' `task`
  int steps = 0, eval_every = 0;
  // lr and eps per baseline: a method trains with its baseline's (keys all optimizers take).
  std::map<std::string, std::vector<std::string>> baseline_keys;
};

Task mlp_task(bool full) {
  return {"mlp",
          full ? 600 : 60,
          full ? 50 : 15,
          {{"adam", {"lr=1e-3", "eps=1e-6"}},
           {"lamb", {"lr=5e-3", "eps=1e-6"}},
           {"momentum-sgd", {"lr=0.5"}},
           {"sgd", {"lr=0.5"}}}};
}

Task transformer_task(bool full) {
  return {"transformer",
          full ? 300 : 24,
          full ? 25 : 8,
          {{"adam", {"lr=1e-3", "eps=1e-6"}},
           {"lamb", {"lr=5e-3", "eps=1e-6"}},
           {"momentum-sgd", {"lr=0.05"}},
           {"sgd", {"lr=0.05"}}}};
}

std::vector<int> seeds_at(const StudyContext& context) {
  return context.full ? std::vector<int>{1, 2, 3} : std::vector<int>{1};
}

bool is_baseline(const std::string& optimizer) {
  for (const MethodPair& pair : method_pairs())
    if (method_baseline(pair.method) == optimizer) return true;
  return false;
}

// The optimizer keys of one run: its baseline's lr and eps, then the pair row's keys.
std::vector<std::string> run_keys(const Task& task, const std::string& optimizer) {
  const std::string family = is_baseline(optimizer) ? optimizer : method_baseline(optimizer);
  const auto keys = task.baseline_keys.find(family);
  if (keys == task.baseline_keys.end())
    throw InvalidArgument(
        fmt::format("methods study: task '{}' has no learning rate for the baseline '{}' of '{}' "
                    "(add it to the task in study_methods.cc)",
                    task.name, family, optimizer));
  std::vector<std::string> out = keys->second;
  for (const MethodPair& pair : method_pairs())
    if (pair.method == optimizer)
      for (const std::string& kv : resolved_keys(pair.keys, task.steps)) out.push_back(kv);
  return out;
}

// One seed's run: a point per step (test_loss only at evaluation steps).
struct Point {
  int64_t step = 0;
  double samples = 0;
  std::string stage;
  std::optional<double> test_loss;
  double bytes = 0, time_s = 0;
};
using Curve = std::vector<Point>;
using Curves = std::map<std::string, std::vector<Curve>>;  // optimizer -> one curve per seed

Curve read_curve(const CsvTable& m) {
  Curve curve;
  for (size_t r = 0; r < m.rows(); ++r)
    curve.push_back({m.integer(r, "step"), m.number(r, "samples"), m.text(r, "stage"),
                     m.maybe(r, "test_loss"), m.number(r, "bytes_sent"), m.number(r, "time_s")});
  if (curve.empty()) throw std::runtime_error("methods study: a run wrote no steps");
  return curve;
}

std::vector<std::string> mlp_overrides(const Task& task, const std::string& optimizer, int seed) {
  std::vector<std::string> o = {"run.backend=sim",
                                fmt::format("run.cluster={}", kClockCluster),
                                fmt::format("run.ranks={}", kClockGpus),
                                fmt::format("run.gpus_per_node={}", kClockGpusPerNode),
                                "run.batch_per_rank=32",
                                fmt::format("run.steps={}", task.steps),
                                fmt::format("run.eval_every={}", task.eval_every),
                                fmt::format("run.seed={}", seed),
                                "run.compute=model",
                                fmt::format("run.stand_in={}", kStandIn),
                                fmt::format("run.stand_in_batch={}", kStandInBatch),
                                "task.name=fashion-mnist",
                                "task.hidden=256,256",
                                fmt::format("optimizer.name={}", optimizer),
                                "schedule.type=constant"};
  for (const std::string& kv : run_keys(task, optimizer)) o.push_back("optimizer." + kv);
  return o;
}

Curves mlp_curves(const StudyContext& context, const Task& task,
                  const std::vector<std::string>& optimizers) {
  std::vector<OverrideRun> runs;
  for (const std::string& o : optimizers)
    for (int seed : seeds_at(context))
      runs.push_back({fmt::format("mlp-{}-seed{}", o, seed), mlp_overrides(task, o, seed)});
  const std::vector<fs::path> folders = train_override_runs(context, "methods_training", runs);
  Curves curves;
  size_t i = 0;
  for (const std::string& o : optimizers)
    for (size_t s = 0; s < seeds_at(context).size(); ++s, ++i) {
      const fs::path metrics = folders[i] / "metrics.csv";
      curves[o].push_back(read_curve(CsvTable(read_text_file(metrics), metrics.string())));
    }
  return curves;
}

// Per optimizer, the stand-in's stage clocks from the step simulator (one fork each).
std::map<std::string, StageClocks> optimizer_clocks(const StudyContext& context,
                                                    const std::vector<std::string>& optimizers) {
  std::vector<sim::Scenario> scenarios;
  for (const std::string& o : optimizers) {
    sim::Scenario s;
    s.workload = kStandIn;
    s.cluster = kClockCluster;
    s.optimizer = o;
    s.gpus = kClockGpus;
    s.gpus_per_node = kClockGpusPerNode;
    s.batch_per_gpu = kStandInBatch;
    scenarios.push_back(s);
  }
  const std::vector<StageTimings> timings = simulate_scenarios(scenarios, context.jobs);
  std::map<std::string, StageClocks> out;
  for (size_t i = 0; i < optimizers.size(); ++i)
    out[optimizers[i]] = stage_clocks(timings[i], optimizer_registry().get(optimizers[i]));
  return out;
}

// The transformer run's time_s is this machine's wall clock: replace it by the simulated one.
void apply_simulated_clock(Curve& curve, const StageClocks& clocks, const std::string& optimizer) {
  std::vector<std::string> stages;
  std::vector<double> sent;
  for (const Point& p : curve) {
    stages.push_back(p.stage);
    sent.push_back(p.bytes);
  }
  const std::vector<double> times = simulated_clock(stages, sent, clocks, optimizer);
  for (size_t i = 0; i < curve.size(); ++i) curve[i].time_s = times[i];
}

Curves transformer_curves(const StudyContext& context, const Task& task,
                          const std::vector<std::string>& optimizers) {
  std::vector<TorchRunSpec> specs;
  for (const std::string& o : optimizers)
    for (int seed : seeds_at(context)) {
      std::vector<std::string> extra{"--steps",         std::to_string(task.steps),
                                     "--eval-every",    std::to_string(task.eval_every),
                                     "--eval-examples", context.full ? "1024" : "128",
                                     "--seed",          std::to_string(seed)};
      for (const std::string& kv : run_keys(task, o)) extra.insert(extra.end(), {"--set", kv});
      specs.push_back(
          {fmt::format("methods-transformer-{}-seed{}", o, seed), "transformer", o, extra});
    }
  const auto clocks = optimizer_clocks(context, optimizers);
  Curves curves;
  for (const TorchRun& run : torch_runs(context, specs)) {
    Curve curve = read_curve(run.metrics);
    apply_simulated_clock(curve, clocks.at(run.spec.optimizer), run.spec.optimizer);
    curves[run.spec.optimizer].push_back(std::move(curve));
  }
  return curves;
}

struct Spread {
  double mean = 0, std = 0;
};

Spread spread(const std::vector<double>& v) {
  Spread s;
  for (double x : v) s.mean += x / static_cast<double>(v.size());
  if (v.size() < 2) return s;
  double var = 0;
  for (double x : v) var += (x - s.mean) * (x - s.mean);
  s.std = std::sqrt(var / static_cast<double>(v.size() - 1));
  return s;
}

// Per seed: the last evaluated test loss, and bytes and simulated time at the last step.
struct Final {
  Spread loss, bytes, time_s;
};

Final final_of(const std::vector<Curve>& seeds) {
  std::vector<double> loss, bytes, time;
  for (const Curve& c : seeds) {
    const auto last =
        std::find_if(c.rbegin(), c.rend(), [](const Point& p) { return p.test_loss; });
    if (last == c.rend()) throw std::runtime_error("methods study: a run has no test loss");
    loss.push_back(*last->test_loss);
    bytes.push_back(c.back().bytes);
    time.push_back(c.back().time_s);
  }
  return {spread(loss), spread(bytes), spread(time)};
}

const CsvSchema& curves_schema() {
  static const CsvSchema schema("curves.csv", {{"task"},
                                               {"optimizer"},
                                               {"role"},
                                               {"seeds"},
                                               {"step"},
                                               {"samples", "{:.0f}"},
                                               {"test_loss_mean", "{:.6f}"},
                                               {"test_loss_min", "{:.6f}"},
                                               {"test_loss_max", "{:.6f}"},
                                               {"bytes_per_rank", "{:.0f}"},
                                               {"sim_time_s", "{:.6f}"}});
  return schema;
}

const CsvSchema& summary_schema() {
  static const CsvSchema schema("summary.csv", {{"task"},
                                                {"method"},
                                                {"baseline"},
                                                {"optimizer"},
                                                {"role"},
                                                {"seeds"},
                                                {"steps"},
                                                {"final_test_loss_mean", "{:.6f}"},
                                                {"final_test_loss_std", "{:.6f}"},
                                                {"bytes_per_rank_mean", "{:.0f}"},
                                                {"bytes_per_rank_std", "{:.0f}"},
                                                {"sim_time_s_mean", "{:.6f}"},
                                                {"sim_time_s_std", "{:.6f}"},
                                                {"stand_in"},
                                                {"cluster"},
                                                {"gpus"}});
  return schema;
}

// The evaluation steps every seed has: test loss mean, min and max, bytes and time means.
void add_curve_rows(CsvWriter& csv, const std::string& task, const std::string& optimizer,
                    const std::vector<Curve>& seeds) {
  const double n = static_cast<double>(seeds.size());
  for (size_t i = 0; i < seeds.front().size(); ++i) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    double samples = 0, loss = 0, lo = kInf, hi = -kInf, bytes = 0, time = 0;
    bool all = true;
    for (const Curve& c : seeds) {
      if (i >= c.size() || !c[i].test_loss) {
        all = false;
        break;
      }
      samples += c[i].samples / n;
      loss += *c[i].test_loss / n;
      lo = std::min(lo, *c[i].test_loss);
      hi = std::max(hi, *c[i].test_loss);
      bytes += c[i].bytes / n;
      time += c[i].time_s / n;
    }
    if (!all) continue;
    csv.add({task, optimizer, is_baseline(optimizer) ? "baseline" : "method", seeds.size(),
             seeds.front()[i].step, samples, loss, lo, hi, bytes, time});
  }
}

std::string mean_pm(const Spread& s, double scale, int digits, size_t seeds) {
  if (seeds < 2) return fixed(scale * s.mean, digits);
  return fmt::format("{} ± {}", fixed(scale * s.mean, digits), fixed(scale * s.std, digits));
}

// The task's report table and summary rows: each pair, method then baseline.
std::string task_table(CsvWriter& summary, const Task& task, const Curves& curves) {
  MarkdownTable table({"pair", "optimizer", "final test loss", "MB sent per rank",
                       "bytes ÷ baseline", "simulated time s", "time ÷ baseline"});
  for (const MethodPair& pair : method_pairs()) {
    const std::string baseline = method_baseline(pair.method);
    const Final base = final_of(curves.at(baseline));
    for (const std::string& o : {pair.method, baseline}) {
      const std::vector<Curve>& seeds = curves.at(o);
      const Final f = final_of(seeds);
      summary.add({task.name, pair.method, baseline, o, o == baseline ? "baseline" : "method",
                   seeds.size(), task.steps, f.loss.mean, f.loss.std, f.bytes.mean, f.bytes.std,
                   f.time_s.mean, f.time_s.std, kStandIn, kClockCluster, kClockGpus});
      table.add({fmt::format("{} vs {}", pair.method, baseline), o,
                 mean_pm(f.loss, 1, 4, seeds.size()), mean_pm(f.bytes, 1e-6, 2, seeds.size()),
                 fmt::format("{:.3f}", f.bytes.mean / base.bytes.mean),
                 mean_pm(f.time_s, 1, 1, seeds.size()),
                 fmt::format("{:.3f}", f.time_s.mean / base.time_s.mean)});
    }
  }
  return table.str();
}

}  // namespace

std::string run_methods_study(const StudyContext& context) {
  const std::vector<std::string> optimizers = method_study_optimizers(method_pairs());
  const Task mlp = mlp_task(context.full), transformer = transformer_task(context.full);
  for (const std::string& o : optimizers) {  // bad keys fail here, before any training
    run_keys(mlp, o);
    run_keys(transformer, o);
  }
  CsvWriter curves_csv(curves_schema()), summary_csv(summary_schema());
  const Curves mlp_runs = mlp_curves(context, mlp, optimizers);
  for (const std::string& o : optimizers) add_curve_rows(curves_csv, mlp.name, o, mlp_runs.at(o));
  std::string sections = fmt::format(
      "**Fashion-MNIST MLP** (784-256-256-10, 16 ranks x batch 32 "
      "on the sim backend, {} steps):\n\n{}",
      mlp.steps, task_table(summary_csv, mlp, mlp_runs));
  if (const std::string reason = torch_unavailable_reason(); !reason.empty()) {
    sections += "\n**Transformer LM**: skipped, " + reason + ".\n";
  } else {
    const Curves lm = transformer_curves(context, transformer, optimizers);
    for (const std::string& o : optimizers)
      add_curve_rows(curves_csv, transformer.name, o, lm.at(o));
    sections += fmt::format(
        "\n**Transformer LM** (byte-level, python3.11-doc text, 4 ranks x 16 windows of 64 "
        "bytes under `compopt launch`, {} steps):\n\n{}",
        transformer.steps, task_table(summary_csv, transformer, lm));
  }
  context.write_file("curves.csv", curves_csv.text());
  context.write_file("summary.csv", summary_csv.text());
  const std::vector<int> seeds = seeds_at(context);
  return fmt::format(
      "Each method of experiments/reproduce/method_pairs.cc against the baseline the optimizer "
      "registry gives it, trained from the same seed(s) {} with the baseline's learning rate. "
      "Simulated time is a stand-in, the same on every machine: {} (micro-batch {}) on {} GPUs "
      "of the {} preset ({} per node). The MLP's sim backend charges that model's compute and "
      "message sizes at every collective the run makes; each transformer step is charged the "
      "step simulator's time of that workload in the step's stage, less its exposed "
      "communication when the step sent nothing (local SGD's local steps). Bytes are what rank 0 "
      "sent "
      "over the run, of the trained model's own size. Test loss is the last evaluation's{}. "
      "The ratios divide by the pair's baseline.\n\n{}",
      fmt::join(seeds, ", "), kStandIn, kStandInBatch, kClockGpus, kClockCluster, kClockGpusPerNode,
      seeds.size() > 1 ? "; mean ± sample standard deviation over seeds" : "", sections);
}

}  // namespace compopt::cli::reproduce
