// The [workload] table: presets, presets with fields changed, transformers and CNNs from their
// shape, models from their totals, and every bad key refused by name.

#include "experiments/scenario/workload_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"
#include "experiments/scenario/sweep_config.h"
#include "net_models/model_shapes.h"
#include "tests/support/invalid_argument_message.h"

namespace compopt::cli {
namespace {

using ::testing::HasSubstr;

net::WorkloadSpec parse(std::string_view text) {
  return workload_from_config(*toml::parse(text)["workload"].as_table());
}

std::string error_of(std::string_view text) {
  return testing_support::invalid_argument_message([&] { parse(text); });
}

TEST(WorkloadConfig, PresetByNameOrAlias) {
  const net::WorkloadSpec w = parse("[workload]\nname = \"bert-large\"\n");
  EXPECT_EQ(w.name, "bert-large-seq128");
  EXPECT_EQ(w.parameters, 340'000'000u);
}

TEST(WorkloadConfig, PresetWithFieldsChanged) {
  const net::WorkloadSpec w = parse(
      "[workload]\nname = \"my-gpt\"\npreset = \"gpt2-xl\"\ndefault_batch_per_gpu = 2\n"
      "gradient_precision = \"fp32\"\n");
  EXPECT_EQ(w.name, "my-gpt");
  EXPECT_EQ(w.default_batch_per_gpu, 2);
  EXPECT_EQ(w.wire_bytes(), 4);
  EXPECT_EQ(w.parameters, net::workload_preset("gpt2-xl").parameters);
}

TEST(WorkloadConfig, TransformerFromItsShape) {
  const net::WorkloadSpec w = parse(
      "[workload]\nname = \"tiny\"\ncompute_precision = \"bf16\"\n"
      "[workload.transformer]\nlayers = 2\nhidden = 4\nsequence = 3\nvocabulary = 10\n"
      "lm_head = true\n");
  const net::ShapeTotals t = net::transformer_totals({2, 4, 3, 10, true});
  EXPECT_EQ(w.parameters, t.parameters);
  EXPECT_EQ(w.layers, 2);
  EXPECT_DOUBLE_EQ(w.forward_flops_per_sample, t.forward_flops_per_sample);
  EXPECT_EQ(w.compute_precision, net::Precision::kBf16);
}

TEST(WorkloadConfig, CnnFromItsLayersAndExplicitTotalsWin) {
  const net::WorkloadSpec w = parse(
      "[workload]\nname = \"cnn\"\ntensors = 7\n"
      "[[workload.cnn_layers]]\nkind = \"conv\"\nin = 3\nout = 8\nkernel = 3\noutput = 4\n"
      "[[workload.cnn_layers]]\nkind = \"linear\"\nin = 8\nout = 2\n");
  EXPECT_EQ(w.parameters, 216u + 8 + 16 + 2);
  EXPECT_EQ(w.layers, 2);
  EXPECT_EQ(w.tensors, 7);  // given explicitly, it overrides the shape's 4
  EXPECT_DOUBLE_EQ(w.forward_flops_per_sample, 2.0 * 216 * 16 + 2.0 * 16);
}

TEST(WorkloadConfig, ModelFromItsTotals) {
  const net::WorkloadSpec w = parse(
      "[workload]\nname = \"mine\"\nparameters = 2.5e9\nlayers = 32\n"
      "forward_gflops_per_sample = 1200\n");
  EXPECT_EQ(w.parameters, 2'500'000'000u);
  EXPECT_DOUBLE_EQ(w.forward_flops_per_sample, 1.2e12);
  EXPECT_DOUBLE_EQ(w.backward_flops(), 2.4e12);
}

TEST(WorkloadConfig, BadInputNamesTheKey) {
  EXPECT_THAT(error_of("[workload]\nname = \"gpt-9\"\n"),
              HasSubstr("workload 'gpt-9' is not a preset"));
  EXPECT_THAT(error_of("[workload]\nname = \"x\"\nparameters = 1e6\n"),
              HasSubstr("forward_flops_per_sample = 0"));
  EXPECT_THAT(error_of("[workload]\nname = \"bert-large\"\nparamters = 5\n"),
              HasSubstr("unknown key 'workload.paramters'"));
  EXPECT_THAT(error_of("[workload]\npreset = \"bert-large\"\ncompute_precision = \"fp64\"\n"),
              HasSubstr("workload.compute_precision = 'fp64', expected fp32, tf32"));
  EXPECT_THAT(error_of("[workload]\npreset = \"bert-large\"\nlayers = -2\n"),
              HasSubstr("workload.layers at line 3: expected an integer"));
  EXPECT_THAT(error_of("[workload]\nname = \"t\"\n[workload.transformer]\nlayers = 2\n"),
              HasSubstr("workload.transformer.hidden is missing"));
  EXPECT_THAT(error_of("[workload]\nname = \"c\"\n[[workload.cnn_layers]]\nkind = \"pool\"\n"),
              HasSubstr("kind = 'pool', expected conv or linear"));
  EXPECT_THAT(error_of("[workload]\npreset = \"bert-large\"\nparameters = 0\n"),
              HasSubstr("workload.parameters = 0, expected 1..1e14"));
}

TEST(WorkloadConfig, SweepAndProfileReadTheTable) {
  const SweepConfig c = parse_sweep_config(
      "[workload]\npreset = \"gpt-1.3b\"\n[cluster]\npreset = \"ethernet-a100-8\"\ngpu = \"H100\"\n"
      "[sweep]\ngpus = [16]\n",
      "w.toml", {"workload.default_batch_per_gpu=2"});
  ASSERT_EQ(c.scenarios.size(), 1u);
  const sim::StepConfig config = sim::resolve_scenario(c.scenarios.front());
  EXPECT_EQ(config.workload.name, "gpt-1.3b");
  EXPECT_EQ(config.batch_per_gpu, 2);
  EXPECT_EQ(config.cluster.gpu.name, "H100");
  // profile: --set on a workload named by the flag keeps that workload as the base.
  sim::Scenario flags;
  flags.workload = "resnet50";
  const sim::Scenario s = apply_scenario_sets(flags, {"workload.default_batch_per_gpu=64"});
  EXPECT_EQ(s.workload_spec->name, "resnet50-imagenet");
  EXPECT_EQ(s.workload_spec->default_batch_per_gpu, 64);
}

TEST(WorkloadConfig, APrecisionTheGpuLacksIsRefusedBeforeAnySimulation) {
  try {
    parse_sweep_config("[workload]\nname = \"gpt2-xl\"\n[cluster]\npreset = \"ethernet-v100-4\"\n",
                       "w.toml", {});
    ADD_FAILURE() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("GPU 'V100-16GB' has no bf16 unit"));
  }
}

// attention and activation_checkpointing: unset they are left to the implementation profile;
// a shape splits its activations into the parts they change (2 blocks, h 64, s 32, 1 head, in
// 16-bit: scores 2 * 5 * 32^2 = 10240 B, block inputs 2 * 2 * 32 * 64 = 8192 B); a total of one's
// own has no parts, so neither setting changes it.
TEST(WorkloadConfig, AttentionKindAndCheckpointingKeys) {
  const std::string shape =
      "[workload]\nname = \"tiny\"\ncompute_precision = \"bf16\"\n"
      "[workload.transformer]\nlayers = 2\nhidden = 64\nsequence = 32\nvocabulary = 10\n"
      "heads = 1\n";
  const net::WorkloadSpec unset = parse(shape);
  EXPECT_FALSE(unset.attention.has_value());
  EXPECT_FALSE(unset.activation_checkpointing.has_value());
  EXPECT_DOUBLE_EQ(unset.attention_score_bytes_per_sample, 10240);
  EXPECT_DOUBLE_EQ(unset.layer_input_bytes_per_sample, 8192);
  const double total = 2.0 * 32 * 64 * (34 + 5.0 * 32 / 64);
  EXPECT_DOUBLE_EQ(unset.activation_bytes_per_sample, total);
  EXPECT_DOUBLE_EQ(unset.activation_bytes(net::AttentionKind::kFlash, false), total - 10240);
  EXPECT_DOUBLE_EQ(unset.activation_bytes(net::AttentionKind::kUnfused, true), 8192 + total / 2);
  const net::WorkloadSpec set = parse(
      "[workload]\nname = \"gpt2\"\nattention = \"flash\"\n"
      "activation_checkpointing = true\n");
  EXPECT_EQ(set.attention, net::AttentionKind::kFlash);
  EXPECT_EQ(set.activation_checkpointing, true);
  const net::WorkloadSpec total_only = parse(
      "[workload]\nname = \"tiny\"\nactivation_bytes_per_sample = 1000\n"
      "[workload.transformer]\nlayers = 2\nhidden = 64\nsequence = 32\nvocabulary = 10\n");
  EXPECT_DOUBLE_EQ(total_only.activation_bytes(net::AttentionKind::kFlash, true), 1000);
  EXPECT_THAT(error_of("[workload]\nname = \"gpt2\"\nattention = \"paged\"\n"),
              HasSubstr("workload.attention = 'paged', expected unfused or flash"));
  EXPECT_THAT(error_of("[workload]\nname = \"gpt2\"\nactivation_checkpointing = 1\n"),
              HasSubstr("workload.activation_checkpointing"));
}

}  // namespace
}  // namespace compopt::cli
