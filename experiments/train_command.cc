// `compopt train`: data-parallel training of a task with an optimizer on the
// Local or Sim backend, configured by a TOML file plus --set overrides
// (train_config.h). Writes metrics.csv (one row per step), run.json (resolved
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
#include "experiments/commands.h"
#include "experiments/run_directory.h"
#include "experiments/train_config.h"
#include "experiments/train_progress.h"
#include "experiments/train_resume.h"
#include "net_models/cluster_presets.h"
#include "sim/sim_world.h"

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

nlohmann::json summarize(const TrainConfig& c, const TrainResult& result) {
  nlohmann::json s;
  const StepRecord* last_eval = nullptr;
  std::optional<int64_t> first_compression;
  double warmup_bytes = 0, compression_bytes = 0, prev = 0;
  int64_t warmup_steps = 0, compression_steps = 0;
  for (const StepRecord& r : result.records) {
    if (r.test_loss) last_eval = &r;
    const double step_bytes = r.bytes_sent - prev;
    prev = r.bytes_sent;
    if (r.stage == "compression") {
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
    s["wall_time_s"] = result.records.back().time_s;
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
  return s;
}

void run(const Options& o) {
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
  std::optional<ResumePlan> plan;
  TrainConfig c;
  if (!o.resume.empty()) {
    plan = plan_resume(o.resume, o.overrides);
    c = plan->config;
  } else {
    c = load_train_config(o.config, o.overrides);
  }
  const int64_t every = o.checkpoint_every.value_or(plan ? plan->checkpoint_every : 0);
  const int64_t keep = o.keep_checkpoints.value_or(plan ? plan->keep_checkpoints : 0);
  RunDirectory dir("train", plan ? o.resume : o.out,
                   plan ? OutMode::kResume : out_mode(o.overwrite));
  if (!o.quiet) {
    fmt::print(
        "compopt train: {}\n  optimizer {} | {} ranks ({} per node) x batch {} = {} | {} steps "
        "({} per epoch) | backend {} | seed {}\n  run directory {}\n",
        c.task->describe(), c.optimizer, c.ranks, c.gpus_per_node > 0 ? c.gpus_per_node : c.ranks,
        c.batch_per_rank, c.batch_per_rank * static_cast<size_t>(c.ranks), c.steps,
        c.steps_per_epoch, c.backend, c.seed, dir.path().string());
    if (plan) {
      fmt::print("  resuming from {} (step {})\n", plan->checkpoint_file.string(),
                 plan->checkpoint->step);
    }
    if (every > 0)
      fmt::print("  checkpoints every {} steps in {}/checkpoints\n", every, dir.path().string());
  }
  nlohmann::json config = c.to_json();
  config["checkpoint_every"] = every;
  config["keep_checkpoints"] = keep;
  if (plan) {
    config["resumed_from"] = {{"checkpoint", plan->checkpoint_file.string()},
                              {"step", plan->checkpoint->step}};
  }
  dir.write_run_json(config);
  nlohmann::json summary;
  dir.run([&] {
    TrainProgress progress(c.steps, o.quiet);
    const TrainOptions options = train_options_of(c, every);
    TrainHooks hooks;
    hooks.on_record = [&](const StepRecord& r) { progress.update(r); };
    const HyperParamMap params = c.optimizer_params;
    const std::string name = c.optimizer;
    const OptimizerFactory factory = [&](const ParamLayout& layout) {
      return make_optimizer(name, params, layout);
    };
    CheckpointOptions checkpoints;
    const auto identity = run_identity(c);
    const auto settings = run_settings(c, every, keep);
    checkpoints.write = [&](Checkpoint& checkpoint) {
      save_checkpoint(dir, checkpoint, identity, settings, keep);
    };
    if (plan) checkpoints.resume = plan->checkpoint;
    // sim: real math and measured compute, network time from the SimGrid model of c.cluster.
    const TrainResult result =
        c.backend == "sim"
            ? train_with(
                  [&](const std::function<void(Communicator&)>& fn) {
                    sim::run_sim(c.cluster_spec, c.ranks, c.cluster_spec.gpus_per_node, fn);
                  },
                  *c.task, factory, options, hooks, checkpoints)
            : train_local(*c.task, factory, options,
                          {.ranks = c.ranks, .ranks_per_node = c.gpus_per_node}, hooks,
                          checkpoints);
    progress.finish();

    dir.write_file("metrics.csv", metrics_csv(result.records));
    summary = summarize(c, result);
    dir.write_file("summary.json", summary.dump(2) + "\n");
  });
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
      "local or simulated ranks; writes metrics.csv and run.json, checkpoints with "
      "--checkpoint-every, continues a run with --resume (see docs/training.md)");
  cmd->add_option("config", options->config,
                  "TOML config file (examples in experiments/configs/); not with --resume");
  cmd->add_option("--set", options->overrides,
                  "override a config key: table.key=value (repeatable), e.g. run.steps=100, "
                  "task.hidden=[256,256], optimizer.freeze_step=10%")
      ->take_all();
  cmd->add_option("--out", options->out, "run directory (default runs/train-<time>)");
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
  cmd->footer(
      fmt::format("Optimizers (optimizer.name): {}\nClusters (run.cluster, backend sim):\n{}",
                  fmt::join(optimizer_names(), ", "), net::cluster_registry().help_lines()));
  cmd->callback([options] { run(*options); });
}

}  // namespace compopt::cli
