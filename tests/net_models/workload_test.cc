// Workload presets reproduce the reference figures they were derived from.

#include "net_models/workload.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"
#include "net_models/calibration_rows.h"

namespace compopt::net {
namespace {

TEST(Workload, PresetsLoadAndValidate) {
  for (const std::string& name : workload_preset_names())
    EXPECT_NO_THROW(workload_preset(name).validate()) << name;
  EXPECT_EQ(workload_preset("bert-large-seq128").parameters, 340'000'000u);
  EXPECT_EQ(workload_preset("bert-large-seq128").wire_bytes, 2);
  EXPECT_EQ(workload_preset("resnet152-imagenet").parameters, 60'200'000u);
  try {
    workload_preset("gpt-5");
    ADD_FAILURE() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("unknown workload preset 'gpt-5'"));
  }
}

TEST(Workload, RegistryResolvesAliasesToTheCanonicalPreset) {
  const auto& registry = workload_registry();
  EXPECT_EQ(registry.names(), workload_preset_names());
  EXPECT_EQ(workload_preset_names(),
            (std::vector<std::string>{"bert-large-seq128", "bert-base-squad", "resnet50-imagenet",
                                      "resnet152-imagenet"}));
  // An alias gives the canonical preset, named canonically (the CSVs write that name).
  const WorkloadProfile alias = workload_preset("bert-large");
  EXPECT_EQ(alias.name, "bert-large-seq128");
  EXPECT_EQ(alias.parameters, 340'000'000u);
  EXPECT_EQ(workload_preset("resnet50").name, "resnet50-imagenet");
  for (const WorkloadEntry& e : registry.entries()) {
    EXPECT_EQ(e.profile.name, e.name);
    EXPECT_FALSE(e.help.empty()) << e.name;
  }
  EXPECT_THAT(registry.help_lines(), ::testing::HasSubstr("  bert-base-squad     BERT-Base"));
  try {
    workload_preset("bert");
    ADD_FAILURE() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("expected one of bert-large-seq128, "
                                               "bert-base-squad, resnet50-imagenet, "
                                               "resnet152-imagenet (aliases: bert-large = "
                                               "bert-large-seq128"));
  }
}

TEST(Workload, ComputeScalesWithBatchAndAccumulation) {
  const WorkloadProfile w = workload_preset("bert-large-seq128");
  EXPECT_DOUBLE_EQ(w.forward_s(16, 4), 4 * w.forward_s(16, 1));
  EXPECT_GT(w.backward_s(16, 1), w.backward_s(1, 1));
}

TEST(Workload, BertLargeComputeIsWithin8MsOfEveryPublishedRow) {
  // The fit of docs/simulator.md: forward and backward-else per micro-batch.
  const WorkloadProfile w = workload_preset("bert-large-seq128");
  for (const ProfileRow& row : onebit_adam_profile_rows()) {
    EXPECT_NEAR(1e3 * w.forward_s(row.batch_per_gpu, row.grad_accum), row.forward_ms, 8.0);
    EXPECT_NEAR(1e3 * w.backward_s(row.batch_per_gpu, row.grad_accum), row.backward_else_ms, 8.0);
  }
}

TEST(Workload, RejectsBadFields) {
  WorkloadProfile w = workload_preset("resnet50-imagenet");
  w.wire_bytes = 3;
  EXPECT_THROW(w.validate(), InvalidArgument);
  w = workload_preset("resnet50-imagenet");
  w.step_s = -1;
  EXPECT_THROW(w.validate(), InvalidArgument);
}

}  // namespace
}  // namespace compopt::net
