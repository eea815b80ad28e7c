#include "experiments/reproduce/training_runs.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "core/train/step_record.h"
#include "core/util/csv_schema.h"
#include "core/util/file_io.h"
#include "experiments/run_directory/run_directory.h"
#include "experiments/scenario/forked_jobs.h"
#include "experiments/train/train_config.h"
#include "experiments/train/train_runner.h"

namespace compopt::cli::reproduce {
namespace fs = std::filesystem;
namespace {

// Overrides of the simulated clock of the training runs: stand in for
// bert-large-seq128 (its default 16 sequences per GPU, fp16) on the cluster's V100s
// (experiments/train/sim_compute.h). Sim-only keys, apart from training_overrides so that
// studies may train the same setup on the local backend.
const std::vector<std::string>& sim_time_overrides() {
  static const std::vector<std::string> overrides = {"run.compute=model",
                                                     "run.stand_in=bert-large-seq128"};
  return overrides;
}

constexpr int kRanks = 16, kRanksPerNode = 4, kBatchPerRank = 32;
constexpr const char* kCluster = "ethernet-v100-4";

// Hyper-parameters of experiments/configs/fmnist_<optimizer>.toml.
const std::map<std::string, std::vector<std::string>>& optimizer_settings() {
  static const std::map<std::string, std::vector<std::string>> settings = {
      {"adam", {"lr=1e-3", "beta1=0.9", "beta2=0.999", "eps=1e-6"}},
      {"onebit-adam", {"lr=1e-3", "beta1=0.9", "beta2=0.999", "eps=1e-6", "freeze_step=\"15%\""}},
      {"naive-onebit-adam", {"lr=1e-3", "beta1=0.9", "beta2=0.999", "eps=1e-6"}},
      {"lamb", {"lr=5e-3", "beta1=0.9", "beta2=0.999", "eps=1e-6"}},
      {"onebit-lamb", {"lr=5e-3", "beta1=0.9", "beta2=0.999", "eps=1e-6", "freeze_step=\"15%\""}},
      {"birder", {"lr=1e-3", "beta=0.95"}},
      {"momentum-sgd", {"lr=0.5", "beta=0.9"}},
  };
  return settings;
}

std::string layers_csv(const TrainConfig& config, const std::vector<StepRecord>& records) {
  static const CsvSchema schema("layers.csv", {{"step"},
                                               {"stage"},
                                               {"layer"},
                                               {"layer_name"},
                                               {"coefficient", "{:.9g}"},
                                               {"ratio", "{:.9g}"}});
  CsvWriter csv(schema);
  const ParamLayout& layout = config.task->layout();
  for (const StepRecord& r : records) {
    for (size_t l = 0; l < r.layer_coefficients.size(); ++l) {
      csv.add(
          {r.step, r.stage, l, layout.tensor(l).name, r.layer_coefficients[l],
           l < r.layer_ratios.size() ? std::optional<double>(r.layer_ratios[l]) : std::nullopt});
    }
  }
  return csv.text();
}

// In the child: trains one run and writes its folder.
void train_one(const fs::path& folder, const std::vector<std::string>& overrides) {
  const TrainConfig config = load_train_config("", overrides);
  const TrainResult result = run_training(config);
  RunDirectory dir("train", folder.string(), OutMode::kInside);
  dir.run([&] {
    dir.write_file("layers.csv", layers_csv(config, result.records));
    dir.write_run_json(config.to_json());
    dir.write_file("metrics.csv", metrics_csv(result.records));  // last: marks the run complete
  });
}

}  // namespace

const std::vector<std::string>& convergence_optimizers() {
  static const std::vector<std::string> names = {
      "adam", "onebit-adam", "naive-onebit-adam", "lamb", "onebit-lamb", "birder", "momentum-sgd"};
  return names;
}

std::vector<int> training_seeds(const StudyContext& context) {
  return context.full ? std::vector<int>{1, 2, 3} : std::vector<int>{1};
}

std::vector<std::string> training_overrides(const StudyContext& context,
                                            const std::string& optimizer, int seed) {
  const int epochs = context.full ? 10 : 2;
  const int steps_per_epoch = 60000 / (kRanks * kBatchPerRank);
  std::vector<std::string> o = {
      "run.backend=sim",
      fmt::format("run.cluster={}", kCluster),
      fmt::format("run.ranks={}", kRanks),
      fmt::format("run.gpus_per_node={}", kRanksPerNode),
      fmt::format("run.batch_per_rank={}", kBatchPerRank),
      fmt::format("run.epochs={}", epochs),
      fmt::format("run.eval_every={}", context.full ? steps_per_epoch / 3 : steps_per_epoch / 6),
      fmt::format("run.seed={}", seed),
      "task.name=fashion-mnist",
      "task.hidden=256,256",
      fmt::format("optimizer.name={}", optimizer),
      "schedule.type=constant",
  };
  for (const std::string& kv : optimizer_settings().at(optimizer)) o.push_back("optimizer." + kv);
  return o;
}

std::vector<fs::path> train_override_runs(const StudyContext& context, const std::string& folder,
                                          const std::vector<OverrideRun>& runs) {
  std::vector<fs::path> folders;
  std::vector<size_t> missing;
  for (const OverrideRun& run : runs) {
    folders.push_back(context.dir.parent_path() / folder / run.label);
    if (!fs::exists(folders.back() / "metrics.csv")) missing.push_back(folders.size() - 1);
  }
  size_t done = 0;
  run_forked({.count = missing.size(),
              .parallel = context.jobs,
              .work =
                  [&](size_t i) {
                    train_one(folders[missing[i]], runs[missing[i]].overrides);
                    return std::string();
                  },
              .describe = [&](size_t i) { return "training " + runs[missing[i]].label; },
              .on_done =
                  [&](size_t i) {
                    fmt::print("  trained {} ({}/{})\n", runs[missing[i]].label, ++done,
                               missing.size());
                    std::fflush(stdout);
                  }});
  return folders;
}

std::vector<TrainingRun> training_runs(const StudyContext& context,
                                       const std::vector<std::string>& optimizers,
                                       const std::vector<int>& seeds) {
  std::vector<OverrideRun> specs;
  for (const std::string& o : optimizers)
    for (int s : seeds) {
      std::vector<std::string> overrides = training_overrides(context, o, s);
      overrides.insert(overrides.end(), sim_time_overrides().begin(), sim_time_overrides().end());
      specs.push_back({fmt::format("{}-seed{}", o, s), overrides});
    }
  const std::vector<fs::path> folders = train_override_runs(context, "training", specs);
  std::vector<TrainingRun> runs;
  size_t i = 0;
  for (const std::string& optimizer : optimizers)
    for (int seed : seeds) {
      const fs::path& folder = folders[i++];
      runs.push_back(
          {optimizer, seed,
           CsvTable(read_text_file(folder / "metrics.csv"), (folder / "metrics.csv").string()),
           CsvTable(read_text_file(folder / "layers.csv"), (folder / "layers.csv").string())});
    }
  return runs;
}

}  // namespace compopt::cli::reproduce
