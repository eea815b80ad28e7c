// The [training] table of sweep and profile configs: values reach the scenarios, metrics
// files are read up front, and bad input throws InvalidArgument naming the key.

#include "experiments/scenario/training_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/util/error.h"
#include "experiments/scenario/sweep_config.h"
#include "tests/support/invalid_argument_message.h"

namespace compopt::cli {
namespace {

using ::testing::HasSubstr;

const std::string kHead =
    "[workload]\nname = \"bert-large-seq128\"\n[sweep]\noptimizers = [\"adam\", "
    "\"onebit-adam\"]\n[training]\n";

template <typename F>
std::string error_of(F f) {
  return testing_support::invalid_argument_message(f);
}

std::string parse_error(const std::string& training, const std::vector<std::string>& sets = {}) {
  return error_of([&] { parse_sweep_config(kHead + training, "t.toml", sets); });
}

// A metrics.csv in a fresh folder; returns its path.
std::string metrics_file(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "compopt_training_config_test";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

TEST(TrainingConfig, ValuesReachEveryScenario) {
  const std::string m = metrics_file("reach.csv", "step,test_accuracy\n10,0.5\n20,0.92\n30,0.95\n");
  const SweepConfig c = parse_sweep_config(
      kHead +
          "total_samples = 1000000\nwarmup_steps = 50\nmetric = \"test_accuracy\"\ntarget = "
          "0.9\nsteps_to_target = {adam = 9000}\nbaseline = \"adam\"\n[training.metrics]\n"
          "onebit-adam = \"" +
          m + "\"\n",
      "t.toml", {});
  ASSERT_EQ(c.scenarios.size(), 2u);
  for (const sim::Scenario& s : c.scenarios) {
    EXPECT_EQ(s.training.total_samples, 1000000);
    EXPECT_EQ(s.training.warmup_steps, 50);
    EXPECT_EQ(s.training.metric, "test_accuracy");
    EXPECT_EQ(s.training.target, 0.9);
    EXPECT_EQ(s.training.baseline, "adam");
    EXPECT_EQ(s.training.steps_to_target.at("adam"), 9000);
    EXPECT_EQ(s.training.steps_to_target.at("onebit-adam"), 20);  // first row >= 0.9
  }
}

TEST(TrainingConfig, SetKeysAndAliasesOfProfile) {
  const sim::Scenario s = apply_scenario_sets(
      sim::Scenario{}, {"training.total_steps=500", "training.warmup_fraction=0.2",
                        "training.metric=train_loss", "training.steps_to_target.sgdm=40"});
  EXPECT_EQ(s.training.total_steps, 500);
  EXPECT_EQ(s.training.warmup_fraction, 0.2);
  EXPECT_EQ(s.training.steps_to_target.at("momentum-sgd"), 40);  // the alias, canonical
}

TEST(TrainingConfig, ATargetNeverReachedIsKeptAsNotReached) {
  const std::string m = metrics_file("never.csv", "step,train_loss\n1,2.0\n2,1.5\n");
  const SweepConfig c = parse_sweep_config(
      kHead +
          "metric = \"train_loss\"\ntarget = 0.1\nwarmup_steps = 1\nmetrics = {onebit-adam = \"" +
          m + "\"}\n",
      "t.toml", {});
  EXPECT_EQ(c.scenarios.front().training.steps_to_target.at("onebit-adam"), std::nullopt);
}

TEST(TrainingConfig, AMetricsRunGivesItsWarmup) {
  const std::string m = metrics_file(
      "warmup.csv", "step,stage,test_accuracy\n1,warmup,\n2,compression,0.95\n3,compression,\n");
  // No warmup key: 1-bit Adam's run spent 1 of its 3 steps in the warmup stage.
  const SweepConfig c =
      parse_sweep_config(kHead +
                             "total_steps = 300\nmetric = \"test_accuracy\"\ntarget = 0.9\n"
                             "metrics = {onebit-adam = \"" +
                             m + "\"}\n",
                         "t.toml", {});
  const sim::TrainingSpec& spec = c.scenarios.front().training;
  EXPECT_EQ(spec.steps_to_target.at("onebit-adam"), 2);
  EXPECT_EQ(spec.run_warmups.at("onebit-adam").warmup_steps, 1);
  EXPECT_EQ(spec.run_warmups.at("onebit-adam").steps, 3);
}

TEST(TrainingConfig, BadValuesNameTheKey) {
  EXPECT_THAT(parse_error("total_steps = -5\n"), HasSubstr("training.total_steps = -5"));
  EXPECT_THAT(parse_error("total_steps = 1.5\n"), HasSubstr("training.total_steps"));
  EXPECT_THAT(parse_error("total_samples = 0\n"), HasSubstr("training.total_samples = 0"));
  EXPECT_THAT(parse_error("warmup_steps = -1\n"), HasSubstr("training.warmup_steps = -1"));
  EXPECT_THAT(parse_error("warmup_fraction = 1.5\n"),
              HasSubstr("training.warmup_fraction = 1.5, expected 0..1"));
  EXPECT_THAT(parse_error("warmup_fraction = -0.1\n"), HasSubstr("expected 0..1"));
  EXPECT_THAT(parse_error("total_steps = 100\n"),
              HasSubstr("optimizer onebit-adam starts with a warmup stage"));
  EXPECT_THAT(parse_error("epochs = 3\n"), HasSubstr("unknown key 'training.epochs'"));
  EXPECT_THAT(parse_error("metric = \"bleu\"\n"), HasSubstr("training.metric = 'bleu'"));
  EXPECT_THAT(parse_error("baseline = \"adamw\"\n"), HasSubstr("training.baseline = 'adamw'"));
  EXPECT_THAT(parse_error("metric = \"test_accuracy\"\nsteps_to_target = {adamw = 10}\n"),
              HasSubstr("training.steps_to_target.adamw: unknown optimizer 'adamw'"));
  EXPECT_THAT(parse_error("metric = \"test_accuracy\"\nsteps_to_target = {adam = 0}\n"),
              HasSubstr("training.steps_to_target.adam = 0"));
  EXPECT_THAT(parse_error("steps_to_target = 9000\n"), HasSubstr("expected a table"));
  EXPECT_THAT(parse_error("", {"training.total_steps=-3"}), HasSubstr("training.total_steps = -3"));
}

TEST(TrainingConfig, MetricsFilesAreCheckedUpFront) {
  const std::string no_column = metrics_file("no_column.csv", "step,train_loss\n1,2.0\n");
  const std::string target = "metric = \"test_accuracy\"\ntarget = 0.9\n";
  EXPECT_THAT(parse_error(target + "metrics = {adam = \"" + no_column + "\"}\n"),
              HasSubstr("no column 'test_accuracy'"));
  EXPECT_THAT(parse_error(target + "metrics = {adam = \"/nonexistent/m.csv\"}\n"),
              HasSubstr("training.metrics.adam = '/nonexistent/m.csv': not found"));
  EXPECT_THAT(parse_error("metrics = {adam = \"" + no_column + "\"}\n"),
              HasSubstr("needs training.target and training.metric"));
  EXPECT_THAT(parse_error(target + "steps_to_target = {adam = 5}\nmetrics = {adam = \"" +
                          no_column + "\"}\n"),
              HasSubstr("in training.steps_to_target too"));
}

TEST(WorkloadActivations, ShapeHeadsAndOverride) {
  const std::string shape =
      "[workload]\nname = \"tiny\"\ncompute_precision = \"fp32\"\n[workload.transformer]\n"
      "layers = 2\nhidden = 128\nsequence = 16\nvocabulary = 10\nheads = 8\n";
  // 2 blocks x 16*128*(34 + 5*8*16/128) bytes at 16 bits, doubled for fp32.
  const SweepConfig c = parse_sweep_config(shape, "t.toml", {});
  EXPECT_DOUBLE_EQ(c.scenarios.front().workload_spec->activation_bytes_per_sample,
                   2.0 * 2 * 2048 * 39);
  const SweepConfig given =
      parse_sweep_config(shape, "t.toml", {"workload.activation_bytes_per_sample=1e6"});
  EXPECT_DOUBLE_EQ(given.scenarios.front().workload_spec->activation_bytes_per_sample, 1e6);
  EXPECT_THROW(parse_sweep_config(shape, "t.toml", {"workload.activation_bytes_per_sample=-1"}),
               InvalidArgument);
}

}  // namespace
}  // namespace compopt::cli
