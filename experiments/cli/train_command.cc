// `compopt train`: data-parallel training of a task with an optimizer on the
// Local or Sim backend, on in-process tcp/hybrid ranks, or as one rank of a
// world of processes (tcp, hybrid, nccl under `compopt launch`, mpi under
// mpirun; train_world.h) where only rank 0 writes the run directory, configured by a TOML file plus
// --set overrides (train_config.h). Writes metrics.csv (one row per step), run.json (resolved
// configuration) and summary.json to the run directory; with
// --checkpoint-every K also checkpoints/step-<N>.ckpt (and metrics.csv up to
// that step) every K steps and at the end. `--resume DIR` continues the run of
// DIR from its latest checkpoint in place (train_resume.h). All configuration
// and checkpoint errors, and an existing --out without --overwrite, are raised
// before the run directory is created or touched (run_directory.h).

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optional>
#include <sstream>

#include "core/optim/optimizer_factory.h"
#include "core/train/local_training.h"
#include "core/util/error.h"
#include "experiments/cli/commands.h"
#include "experiments/run_directory/run_directory.h"
#include "experiments/train/train_config.h"
#include "experiments/train/train_progress.h"
#include "experiments/train/train_resume.h"
#include "experiments/train/train_runner.h"
#include "net_models/cluster_presets.h"
#include "net_models/gpu_spec.h"
#include "net_models/workload.h"

namespace compopt::cli {
namespace {

struct Options {
  std::string config;
  std::vector<std::string> overrides;
  std::string out;
  std::string resume;
  std::optional<int64_t> checkpoint_every;
  std::optional<int64_t> keep_checkpoints;
  bool quiet = false;
  bool overwrite = false;
};

// Mean measured wall-clock seconds per step on rank 0: the whole step and its split.
nlohmann::json mean_step_times(const std::vector<StepRecord>& records) {
  double wall = 0, compute = 0, comm = 0, compression = 0;
  for (const StepRecord& r : records) {
    wall += r.step_wall_s;
    compute += r.compute_s;
    comm += r.comm_s;
    compression += r.compression_s;
  }
  const double n = records.empty() ? 1.0 : static_cast<double>(records.size());
  return {{"step_wall_s", wall / n},
          {"compute_s", compute / n},
          {"comm_s", comm / n},
          {"compression_s", compression / n}};
}

nlohmann::json summarize(const TrainConfig& c, const TrainResult& result) {
  nlohmann::json s;
  const StepRecord* last_eval = nullptr;
  std::optional<int64_t> first_compression;
  double warmup_bytes = 0, compression_bytes = 0, prev = 0;
  int64_t warmup_steps = 0, compression_steps = 0;
  nlohmann::json notes = nlohmann::json::array();
  for (const StepRecord& r : result.records) {
    if (r.test_loss) last_eval = &r;
    for (const std::string& note : r.notes)
      notes.push_back(fmt::format("step {}: {}", r.step, note));
    const double step_bytes = r.bytes_sent - prev;
    prev = r.bytes_sent;
    if (r.stage == stage_name(Stage::kCompression)) {
      if (!first_compression) first_compression = r.step;
      compression_bytes += step_bytes;
      ++compression_steps;
    } else {
      warmup_bytes += step_bytes;
      ++warmup_steps;
    }
  }
  s["steps"] = c.steps;
  s["parameters"] = c.task->layout().total();
  if (last_eval) {
    s["final_test_loss"] = *last_eval->test_loss;
    if (last_eval->test_accuracy) s["final_test_accuracy"] = *last_eval->test_accuracy;
  }
  if (!result.records.empty()) {
    s["final_train_loss"] = result.records.back().train_loss;
    s["time_s"] = result.records.back().time_s;  // the run's clock: simulated on sim
    s["bytes_sent"] = result.records.back().bytes_sent;
    s["bytes_sent_inter_node"] = result.records.back().bytes_sent_inter_node;
  }
  // T_w: the last step before the first compression-stage step.
  s["freeze_step"] = first_compression ? nlohmann::json(*first_compression - 1) : nlohmann::json();
  s["non_compression_steps"] = warmup_steps;
  s["compression_steps"] = compression_steps;
  s["bytes_per_step_non_compression"] =
      warmup_steps ? warmup_bytes / static_cast<double>(warmup_steps) : 0.0;
  s["bytes_per_step_compression"] =
      compression_steps ? compression_bytes / static_cast<double>(compression_steps) : 0.0;
  s["step_time_s"] = mean_step_times(result.records);
  s["notes"] = std::move(notes);
  return s;
}

// Throws InvalidArgument for options that contradict each other or are out of range.
void check_options(const Options& o) {
  if (o.resume.empty() == o.config.empty()) {
    throw InvalidArgument(o.resume.empty()
                              ? "train: give a CONFIG file, or --resume DIR to continue a run"
                              : fmt::format("train: CONFIG '{}' and --resume {} given; a resumed "
                                            "run takes its configuration from its checkpoint "
                                            "(change the run length with --set run.steps=N)",
                                            o.config, o.resume));
  }
  if (!o.resume.empty() && !o.out.empty()) {
    throw InvalidArgument(
        fmt::format("--out {} with --resume {}: a resumed run continues in its own directory",
                    o.out, o.resume));
  }
  if (o.checkpoint_every && *o.checkpoint_every < 0) {
    throw InvalidArgument(fmt::format("--checkpoint-every {}, expected an integer >= 0 (0: none)",
                                      *o.checkpoint_every));
  }
  if (o.keep_checkpoints && *o.keep_checkpoints < 0) {
    throw InvalidArgument(fmt::format("--keep-checkpoints {}, expected an integer >= 0 (0: all)",
                                      *o.keep_checkpoints));
  }
}

// What a run trains: its configuration, the checkpoint it resumes (if any) and
// its checkpoint cadence (the options', else the resumed run's, else none).
struct Setup {
  std::optional<ResumePlan> plan;
  TrainConfig config;
  int64_t every = 0;
  int64_t keep = 0;
};

Setup resolve_setup(const Options& o) {
  Setup s;
  if (!o.resume.empty()) {
    s.plan = plan_resume(o.resume, o.overrides);
    s.config = s.plan->config;
  } else {
    s.config = load_train_config(o.config, o.overrides);
  }
  s.every = o.checkpoint_every.value_or(s.plan ? s.plan->checkpoint_every : 0);
  s.keep = o.keep_checkpoints.value_or(s.plan ? s.plan->keep_checkpoints : 0);
  return s;
}

void print_header(const Setup& s, const std::string& dir) {
  const TrainConfig& c = s.config;
  fmt::print(
      "compopt train: {}\n  optimizer {} | {} ranks ({} per node) x batch {} = {} | {} steps "
      "({} per epoch) | backend {} | seed {}\n  run directory {}\n",
      c.task->describe(), c.optimizer, c.ranks, c.gpus_per_node > 0 ? c.gpus_per_node : c.ranks,
      c.batch_per_rank, c.batch_per_rank * static_cast<size_t>(c.ranks), c.steps, c.steps_per_epoch,
      c.launched ? fmt::format("{} (one rank per process)", c.backend) : c.backend, c.seed, dir);
  if (s.plan) {
    fmt::print("  resuming from {} (step {})\n", s.plan->checkpoint_file.string(),
               s.plan->checkpoint->step);
  }
  if (s.every > 0) fmt::print("  checkpoints every {} steps in {}/checkpoints\n", s.every, dir);
}

// run.json: the resolved configuration, the checkpoint cadence and the resumed checkpoint.
nlohmann::json run_json(const Setup& s) {
  nlohmann::json config = s.config.to_json();
  config["checkpoint_every"] = s.every;
  config["keep_checkpoints"] = s.keep;
  if (s.plan) {
    config["resumed_from"] = {{"checkpoint", s.plan->checkpoint_file.string()},
                              {"step", s.plan->checkpoint->step}};
  }
  return config;
}

// Checkpoints into `dir` with the run's identity and settings, resuming s.plan's checkpoint.
CheckpointOptions checkpoint_options(const RunDirectory& dir, const Setup& s) {
  CheckpointOptions checkpoints;
  checkpoints.write = [&dir, identity = run_identity(s.config),
                       settings = run_settings(s.config, s.every, s.keep),
                       keep = s.keep](Checkpoint& checkpoint) {
    save_checkpoint(dir, checkpoint, identity, settings, keep);
  };
  if (s.plan) checkpoints.resume = s.plan->checkpoint;
  return checkpoints;
}

// Trains with progress output unless `quiet`, writes metrics.csv and
// summary.json into `dir` and returns the summary.
nlohmann::json train_in(const RunDirectory& dir, const Setup& s, bool quiet) {
  const TrainConfig& c = s.config;
  TrainProgress progress(c.steps, quiet);
  TrainHooks hooks;
  hooks.on_record = [&](const StepRecord& r) { progress.update(r); };
  hooks.on_note = [&](int64_t step, const std::string& note) { progress.note(step, note); };
  const TrainResult result =
      run_training(c, train_options_of(c, s.every), hooks, checkpoint_options(dir, s));
  progress.finish();

  dir.write_file("metrics.csv", metrics_csv(result.records));
  nlohmann::json summary = summarize(c, result);
  dir.write_file("summary.json", summary.dump(2) + "\n");
  return summary;
}

// A launched rank other than 0: trains its share, sends its checkpoint states to
// rank 0, and writes and prints nothing (rank 0 owns the run directory).
void run_peer_rank(const Setup& s) {
  CheckpointOptions checkpoints;
  if (s.plan) checkpoints.resume = s.plan->checkpoint;
  run_training(s.config, train_options_of(s.config, s.every), {}, checkpoints);
}

void run(const Options& o) {
  check_options(o);
  const Setup s = resolve_setup(o);
  if (s.config.launched && s.config.launched->rank != 0) {
    run_peer_rank(s);
    return;
  }
  RunDirectory dir("train", s.plan ? o.resume : o.out,
                   s.plan ? OutMode::kResume : out_mode(o.overwrite));
  if (!o.quiet) print_header(s, dir.path().string());
  for (const std::string& warning : s.config.warnings) fmt::print("warning: {}\n", warning);
  dir.write_run_json(run_json(s));
  nlohmann::json summary;
  dir.run([&] { summary = train_in(dir, s, o.quiet); });
  if (!o.quiet) {
    fmt::print("done: {}\nwrote {}/metrics.csv, run.json, summary.json\n", summary.dump(),
               dir.path().string());
  }
}

}  // namespace

void register_train_command(CLI::App& app) {
  auto options = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "train",
      "Train a task (quadratic, logistic, fashion-mnist) data-parallel with an optimizer on "
      "local, simulated or launched ranks (tcp/mpi/hybrid/nccl); writes metrics.csv and run.json, "
      "checkpoints with "
      "--checkpoint-every, continues a run with --resume (see docs/training.md)");
  cmd->add_option("config", options->config,
                  "TOML config file (examples in experiments/configs/); not with --resume");
  cmd->add_option("--set", options->overrides,
                  "override a config key: table.key=value (repeatable), e.g. run.steps=100, "
                  "task.hidden=[256,256], optimizer.freeze_step=10%")
      ->take_all();
  cmd->add_option("--out", options->out, "run directory (default runs/train-<time>)")
      ->check(non_empty_out());
  add_overwrite_flag(*cmd, options->overwrite);
  cmd->add_option("--checkpoint-every", options->checkpoint_every,
                  "write a checkpoint every K steps and at the end into DIR/checkpoints "
                  "(0: none; default: none, or the resumed run's value)");
  cmd->add_option("--keep-checkpoints", options->keep_checkpoints,
                  "keep only the newest N checkpoints (0: all; default: all, or the resumed "
                  "run's value)");
  cmd->add_option("--resume", options->resume,
                  "continue the run in DIR from its latest checkpoint, in place (metrics.csv "
                  "keeps the full history); --set may change run.steps/run.epochs/run.eval_every");
  cmd->add_flag("--quiet", options->quiet, "no progress output");
  cmd->footer(fmt::format(
      "Optimizers (optimizer.name): {}\nClusters (run.cluster, backend sim):\n{}\nGPUs (run.gpu, "
      "backend sim): {}\nStand-in workloads (run.stand_in, backend sim): {}",
      fmt::join(optimizer_names(), ", "), net::cluster_registry().help_lines(),
      fmt::join(net::gpu_registry().names(), ", "), fmt::join(net::workload_preset_names(), ", ")));
  cmd->callback([options] { run(*options); });
}

}  // namespace compopt::cli
