#include "experiments/reproduce/torch_runs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "core/optim/variance_freeze_detector.h"
#include "core/util/file_io.h"

namespace compopt::cli::reproduce {
namespace {

namespace fs = std::filesystem;

constexpr int kRanks = 4;
constexpr const char* kPython = "/usr/bin/python3";

// This executable is <build>/experiments/compopt; the Python module is under <build>/python.
// Resolved once: a rebuild during a run replaces the file /proc/self/exe points at.
fs::path build_dir() {
  static const fs::path dir = fs::canonical("/proc/self/exe").parent_path().parent_path();
  return dir;
}

std::string quoted(const std::string& text) { return "'" + text + "'"; }

fs::path run_folder(const StudyContext& context, const std::string& label) {
  return context.dir.parent_path() / "torch_training" / label;
}

void train(const StudyContext& context, const TorchRunSpec& spec) {
  const fs::path out = run_folder(context, spec.label);
  fs::remove_all(out);
  fs::create_directories(out);
  const fs::path script = fs::path(COMPOPT_SOURCE_DIR) / "experiments" / "torch" / "train.py";
  std::vector<std::string> args{"--model",      spec.model, "--optimizer",
                                spec.optimizer, "--out",    quoted(out.string())};
  args.insert(args.end(), spec.extra.begin(), spec.extra.end());
  const std::string command = fmt::format(
      "PYTHONPATH={} COMPOPT_BUILD_DIR={} {} launch -n {} -- {} {} {} > {} 2>&1",
      quoted((fs::path(COMPOPT_SOURCE_DIR) / "python").string()), quoted(build_dir().string()),
      quoted((build_dir() / "experiments" / "compopt").string()), kRanks, kPython,
      quoted(script.string()), fmt::join(args, " "), quoted((out / "train.log").string()));
  fmt::print("torch: training {} ({} ranks)\n", spec.label, kRanks);
  std::fflush(nullptr);
  const int status = std::system(command.c_str());
  if (status != 0 || !fs::exists(out / "summary.json"))
    throw std::runtime_error(fmt::format("PyTorch run {} failed (status {}); see {}", spec.label,
                                         status, (out / "train.log").string()));
}

}  // namespace

std::string torch_unavailable_reason() {
  const std::string probe = fmt::format("{} -c 'import torch' > /dev/null 2>&1", kPython);
  if (std::system(probe.c_str()) != 0)
    return fmt::format("{} cannot import torch (apt-get install python3-torch)", kPython);
  if (!fs::exists(build_dir() / "python" / "compopt"))
    return fmt::format("the Python module was not built ({} is missing)",
                       (build_dir() / "python" / "compopt").string());
  return "";
}

std::vector<TorchRun> torch_runs(const StudyContext& context,
                                 const std::vector<TorchRunSpec>& specs) {
  std::vector<TorchRun> runs;
  for (const TorchRunSpec& spec : specs) {
    const fs::path out = run_folder(context, spec.label);
    if (!fs::exists(out / "summary.json")) train(context, spec);
    const fs::path metrics = out / "metrics.csv";
    runs.push_back({spec, CsvTable(read_text_file(metrics), metrics.string())});
  }
  return runs;
}

double torch_variance_beta2(const StudyContext& context) { return context.full ? 0.99 : 0.9; }

int torch_variance_steps(const StudyContext& context) { return context.full ? 400 : 40; }

std::vector<std::string> torch_variance_schedule(const StudyContext& context) {
  const int64_t delta = VarianceFreezeDetector::delta_for(torch_variance_beta2(context));
  return {"--set", fmt::format("beta2={}", torch_variance_beta2(context)),
          "--set", "schedule=linear_warmup_step_decay",
          "--set", fmt::format("warmup_steps={}", 2 * delta),
          "--set", "decay=1",
          "--set", "decay_every=1"};
}

TorchRunSpec torch_variance_spec(const StudyContext& context) {
  const int steps = torch_variance_steps(context);
  std::vector<std::string> extra{"--freeze-step",       "auto",         "--steps",
                                 std::to_string(steps), "--eval-every", std::to_string(steps),
                                 "--eval-examples",     "256"};
  const std::vector<std::string> schedule = torch_variance_schedule(context);
  extra.insert(extra.end(), schedule.begin(), schedule.end());
  return {"transformer-onebit-adam-auto", "transformer", "onebit-adam", extra};
}

std::string torch_skipped_section(const std::string& reason) {
  return fmt::format(
      "**Skipped:** {}. This study trains PyTorch models (experiments/torch/) with compopt's "
      "optimizers; install python3-torch and build the Python module (docs/python.md) to run "
      "it.\n",
      reason);
}

}  // namespace compopt::cli::reproduce
