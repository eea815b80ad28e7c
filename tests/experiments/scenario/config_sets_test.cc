// `--set` in the commands' configs: train keeps its flat text values (lists, percentages),
// sweep and profile read the same keys, and gpus_per_node is the one name of ranks per node
// (ranks_per_node accepted as its alias, written under the canonical name).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "core/util/error.h"
#include "experiments/scenario/sweep_config.h"
#include "experiments/train/train_config.h"
#include "net_models/gpu_spec.h"
#include "tests/support/invalid_argument_message.h"

namespace compopt::cli {
namespace {

using ::testing::HasSubstr;

const std::vector<std::string> kQuadratic = {"task.name=quadratic",  "task.dimension=16",
                                             "task.train_size=256",  "run.ranks=4",
                                             "run.batch_per_rank=8", "run.steps=40"};

std::vector<std::string> with(std::vector<std::string> sets, const std::vector<std::string>& more) {
  sets.insert(sets.end(), more.begin(), more.end());
  return sets;
}

template <typename F>
std::string error_of(F f) {
  return testing_support::invalid_argument_message(f);
}

TEST(TrainConfigSets, ValueFormsKeepTrainSemantics) {
  const TrainConfig c = load_train_config(
      "", with(kQuadratic, {"optimizer.name=onebit-adam", "optimizer.freeze_step=10%",
                            "optimizer.lr=1e-3", "run.seed=\"7\""}));
  EXPECT_EQ(c.optimizer, "onebit-adam");
  EXPECT_EQ(c.optimizer_params.at("freeze_step"), "4");  // 10% of 40 steps
  EXPECT_EQ(c.optimizer_params.at("lr"), "1e-3");        // the text as given
  EXPECT_EQ(c.seed, 7u);
  EXPECT_EQ(c.values.at("task.name"), "quadratic");
}

TEST(TrainConfigSets, ListsBecomeTheCommaTextOfAFile) {
  // A bare list and a TOML array reach the task as the same text, as a file's array does.
  for (const char* set : {"task.dimension=16,32", "task.dimension=[16, 32]"}) {
    EXPECT_THAT(error_of([&] { load_train_config("", with(kQuadratic, {set})); }),
                HasSubstr("key 'task.dimension' = '16,32' is not an integer"))
        << set;
  }
  EXPECT_EQ(parse_toml_flat("[task]\nhidden = [256, 128]\n", "x.toml").at("task.hidden"),
            "256,128");
}

TEST(TrainConfigSets, RanksPerNodeIsGpusPerNode) {
  const TrainConfig a = load_train_config("", with(kQuadratic, {"run.ranks_per_node=2"}));
  const TrainConfig b = load_train_config("", with(kQuadratic, {"run.gpus_per_node=2"}));
  EXPECT_EQ(a.gpus_per_node, 2);
  EXPECT_EQ(b.gpus_per_node, 2);
  EXPECT_EQ(a.values, b.values);
  const nlohmann::json resolved = a.to_json().at("resolved");
  EXPECT_EQ(resolved.at("gpus_per_node"), 2);
  EXPECT_FALSE(resolved.contains("ranks_per_node"));
  EXPECT_THAT(error_of([] { load_train_config("", with(kQuadratic, {"run.ranks_per_node=3"})); }),
              HasSubstr("key 'run.gpus_per_node' = 3 does not divide run.ranks = 4"));
  EXPECT_THAT(error_of([] {
                parse_toml_flat("[run]\nranks_per_node = 2\ngpus_per_node = 2\n", "both.toml");
              }),
              HasSubstr("config file 'both.toml': keys 'ranks_per_node' and 'gpus_per_node'"));
  EXPECT_EQ(parse_toml_flat("[run]\nranks_per_node = 2\n", "x.toml").at("run.gpus_per_node"), "2");
}

TEST(TrainConfigSets, BadForms) {
  EXPECT_THAT(error_of([] { load_train_config("", {"run.steps"}); }),
              HasSubstr("--set 'run.steps': expected key=value, e.g. run.steps=100"));
  EXPECT_THAT(error_of([] { load_train_config("", {"steps=5"}); }),
              HasSubstr("--set 'steps=5': key 'steps' must be table.key"));
  EXPECT_THAT(error_of([] { load_train_config("", {"model.size=3"}); }),
              HasSubstr("unknown table 'model'"));
  EXPECT_THAT(error_of([] { load_train_config("", {"run..steps=3"}); }),
              HasSubstr("has an empty name"));
}

constexpr const char* kSweep =
    "[workload]\nname = \"bert-large-seq128\"\n[cluster]\npreset = \"ethernet-v100-4\"\n";

TEST(SweepConfigSets, BareListsAreAxesAndAliasesResolve) {
  const SweepConfig c = parse_sweep_config(
      kSweep, "s.toml",
      {"sweep.optimizers=adam,onebit-adam", "sweep.gpus=8,16", "cluster.ranks_per_node=2"});
  ASSERT_EQ(c.scenarios.size(), 4u);
  EXPECT_EQ(c.scenarios[0].optimizer, "adam");
  EXPECT_EQ(c.scenarios[3].optimizer, "onebit-adam");
  EXPECT_EQ(c.scenarios[3].gpus, 16);
  for (const auto& s : c.scenarios) EXPECT_EQ(s.gpus_per_node, 2);
  EXPECT_EQ(c.resolved.at("cluster").at("gpus_per_node"), 2);
  EXPECT_FALSE(c.resolved.at("cluster").contains("ranks_per_node"));
}

TEST(SweepConfigSets, BracketArraysOfBareWordsAreAxes) {
  for (const char* set :
       {"sweep.optimizers=[adam,onebit-adam]", "sweep.optimizers=[adam, \"onebit-adam\"]"}) {
    const SweepConfig c = parse_sweep_config(kSweep, "s.toml", {set, "sweep.gpus=[8, 16]"});
    ASSERT_EQ(c.scenarios.size(), 4u) << set;
    // The last axis (gpus) varies fastest.
    EXPECT_EQ(c.scenarios[1].optimizer, "adam") << set;
    EXPECT_EQ(c.scenarios[1].gpus, 16) << set;
    EXPECT_EQ(c.scenarios[2].optimizer, "onebit-adam") << set;
    EXPECT_EQ(c.scenarios[2].gpus, 8) << set;
  }
  EXPECT_THAT(
      error_of([] { parse_sweep_config(kSweep, "s.toml", {"sweep.optimizers=[adam,birder"}); }),
      HasSubstr("--set 'sweep.optimizers=[adam,birder': key 'sweep.optimizers': "
                "'[adam,birder' is no array"));
}

TEST(SweepConfigSets, DottedKeyIntoAGpuGivenByName) {
  // The file names the GPU; the --set changes one field of that preset, the rest stays its.
  const std::string file = std::string(kSweep) + "gpu = \"A100-40GB\"\n";
  const SweepConfig c =
      parse_sweep_config(file, "s.toml", {"cluster.gpu.max_utilization=0.4", "sweep.gpus=8"});
  const net::GpuSpec a100 = net::gpu_preset("A100-40GB");
  ASSERT_NE(a100.max_utilization, 0.4);
  const net::GpuSpec gpu = sim::resolve_scenario(c.scenarios.at(0)).cluster.gpu;
  EXPECT_EQ(gpu.name, "A100-40GB");
  EXPECT_DOUBLE_EQ(gpu.max_utilization, 0.4);
  EXPECT_DOUBLE_EQ(gpu.fp16_tflops, a100.fp16_tflops);
  EXPECT_DOUBLE_EQ(gpu.hbm_gb, a100.hbm_gb);
  EXPECT_EQ(c.resolved.at("cluster").at("gpu").at("preset"), "A100-40GB");
  EXPECT_THAT(error_of([&] { parse_sweep_config(file, "s.toml", {"cluster.preset.gpu=A100"}); }),
              HasSubstr("'preset' is not a table (cluster.preset holds a value)"));
}

TEST(SweepConfigSets, FileAliasAndBadValues) {
  const SweepConfig c = parse_sweep_config(std::string(kSweep) + "ranks_per_node = 2\n", "s.toml",
                                           {"sweep.gpus=[8]"});
  EXPECT_EQ(c.scenarios.at(0).gpus_per_node, 2);
  EXPECT_THAT(error_of([] { parse_sweep_config(kSweep, "s.toml", {"cluster.gpus_per_node=-1"}); }),
              HasSubstr("cluster.gpus_per_node = -1, expected 0.."));
  EXPECT_THAT(error_of([] { parse_sweep_config(kSweep, "s.toml", {"workload.name=5"}); }),
              HasSubstr("workload.name from --set: expected a string"));
  EXPECT_THAT(error_of([] { parse_sweep_config(kSweep, "s.toml", {"sweep.gpus"}); }),
              HasSubstr("--set 'sweep.gpus': expected key=value, e.g. sweep.gpus=[8,16]"));
}

TEST(ProfileSets, OneScenarioOverTheFlags) {
  sim::Scenario flags;
  flags.optimizer = "onebit-adam";
  flags.gpus = 32;
  const sim::Scenario s = apply_scenario_sets(
      flags, {"workload.name=bert-large", "cluster.gpus_per_node=8", "sweep.grad_accum=2"});
  EXPECT_EQ(s.workload, "bert-large-seq128");  // the alias resolves to the preset's name
  EXPECT_EQ(s.gpus_per_node, 8);
  EXPECT_EQ(s.grad_accum, 2);
  EXPECT_EQ(s.optimizer, "onebit-adam");  // the flag's value stays where no --set replaces it
  EXPECT_EQ(s.gpus, 32);
  EXPECT_EQ(s.cluster, flags.cluster);
  EXPECT_EQ(apply_scenario_sets(flags, {"cluster.ranks_per_node=4"}).gpus_per_node, 4);
  EXPECT_EQ(apply_scenario_sets(flags, {}).gpus, 32);
  EXPECT_THAT(error_of([&] { apply_scenario_sets(flags, {"sweep.gpus=[8,16]"}); }),
              HasSubstr("the values give 2 scenarios, expected one"));
  EXPECT_THAT(error_of([&] { apply_scenario_sets(flags, {"cluster.nodez=4"}); }),
              HasSubstr("unknown key 'cluster.nodez'"));
  EXPECT_THAT(error_of([&] { apply_scenario_sets(flags, {"gpus"}); }),
              HasSubstr("--set 'gpus': expected key=value, e.g. cluster.gpus_per_node=8"));
}

TEST(ProfileSets, SweepOverlapTakesAModeOrItsOldBooleans) {
  const sim::Scenario flags;
  EXPECT_EQ(flags.overlap, sim::OverlapMode::kAuto);
  EXPECT_EQ(apply_scenario_sets(flags, {"sweep.overlap=\"off\""}).overlap, sim::OverlapMode::kOff);
  EXPECT_EQ(apply_scenario_sets(flags, {"sweep.overlap=\"on\""}).overlap, sim::OverlapMode::kOn);
  EXPECT_EQ(apply_scenario_sets(flags, {"sweep.overlap=true"}).overlap, sim::OverlapMode::kOn);
  EXPECT_EQ(apply_scenario_sets(flags, {"sweep.overlap=false"}).overlap, sim::OverlapMode::kOff);
  sim::Scenario on = flags;
  on.overlap = sim::OverlapMode::kOn;
  EXPECT_EQ(apply_scenario_sets(on, {"sweep.overlap=\"auto\""}).overlap, sim::OverlapMode::kAuto);
  EXPECT_THAT(error_of([&] { apply_scenario_sets(flags, {"sweep.overlap=\"sometimes\""}); }),
              HasSubstr("sweep.overlap: unknown overlap mode 'sometimes', expected one of auto, "
                        "on, off"));
  EXPECT_THAT(error_of([&] { apply_scenario_sets(flags, {"sweep.overlap=3"}); }),
              HasSubstr("sweep.overlap"));
}

TEST(ProfileSets, TheGpuFlagSetsTheFabricDefaults) {
  // NVSwitch links are the GPU's NVLink rate: 7200 Gbit/s for a B200 given by --gpu, not the
  // preset's H100 (3600).
  sim::Scenario flags;
  flags.cluster = "h100-ethernet-25g";
  flags.gpu = "B200";
  const sim::Scenario s = apply_scenario_sets(flags, {"cluster.intra_node_fabric=nvswitch"});
  const sim::StepConfig config = sim::resolve_scenario(s);
  EXPECT_EQ(config.cluster.gpu.name, "B200");
  EXPECT_DOUBLE_EQ(config.cluster.intra_node_gbps, 7200);
}

TEST(ProfileSets, ADottedGpuKeyStartsFromTheGpuFlag) {
  // --gpu B200 names the GPU; cluster.gpu.max_utilization changes that GPU, not the preset's H100.
  sim::Scenario flags;
  flags.cluster = "h100-ethernet-25g";
  flags.gpu = "B200";
  const net::GpuSpec b200 = net::gpu_preset("B200");
  for (const std::vector<std::string>& sets :
       {std::vector<std::string>{"cluster.gpu.max_utilization=0.4"},
        std::vector<std::string>{"cluster.gpu=B200", "cluster.gpu.max_utilization=0.4"}}) {
    const net::GpuSpec gpu = sim::resolve_scenario(apply_scenario_sets(flags, sets)).cluster.gpu;
    EXPECT_EQ(gpu.name, "B200");
    EXPECT_DOUBLE_EQ(gpu.max_utilization, 0.4);
    EXPECT_DOUBLE_EQ(gpu.bf16_tflops, b200.bf16_tflops);
  }
}

}  // namespace
}  // namespace compopt::cli
