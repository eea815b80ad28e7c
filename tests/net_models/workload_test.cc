// Workload presets: their totals come from the papers or from their architecture.

#include "net_models/workload.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"

namespace compopt::net {
namespace {

TEST(Workload, PresetsLoadAndValidate) {
  for (const std::string& name : workload_preset_names())
    EXPECT_NO_THROW(workload_preset(name).validate()) << name;
  EXPECT_EQ(workload_preset("bert-large-seq128").parameters, 340'000'000u);
  EXPECT_EQ(workload_preset("bert-large-seq128").wire_bytes(), 2);
  EXPECT_EQ(workload_preset("resnet50-imagenet").wire_bytes(), 4);
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
            (std::vector<std::string>{"bert-large-seq128", "bert-large-seq512", "bert-base-squad",
                                      "resnet50-imagenet", "resnet152-imagenet", "gpt2-small",
                                      "gpt2-medium", "gpt2-large", "gpt2-xl", "gpt-1.3b"}));
  const WorkloadSpec alias = workload_preset("bert-large");
  EXPECT_EQ(alias.name, "bert-large-seq128");
  EXPECT_EQ(workload_preset("resnet50").name, "resnet50-imagenet");
  for (const WorkloadEntry& e : registry.entries()) {
    EXPECT_EQ(e.spec.name, e.name);
    EXPECT_FALSE(e.help.empty()) << e.name;
    EXPECT_FALSE(e.spec.source.empty()) << e.name;
  }
}

TEST(Workload, GptSizesMatchTheirPublishedParameterCounts) {
  // Radford et al. 2019: 124 M, 355 M, 774 M, 1.5 B; Brown et al. 2020: 1.3 B.
  const std::vector<std::pair<std::string, double>> published = {{"gpt2-small", 124e6},
                                                                 {"gpt2-medium", 355e6},
                                                                 {"gpt2-large", 774e6},
                                                                 {"gpt2-xl", 1.558e9},
                                                                 {"gpt-1.3b", 1.3e9}};
  for (const auto& [name, parameters] : published) {
    EXPECT_NEAR(static_cast<double>(workload_preset(name).parameters), parameters,
                0.015 * parameters)
        << name;
  }
}

TEST(Workload, BackwardDefaultsToTwiceTheForwardFlops) {
  WorkloadSpec w = workload_preset("resnet50-imagenet");
  EXPECT_DOUBLE_EQ(w.forward_flops_per_sample, 7.6e9);  // He et al.: 3.8e9 multiply-adds
  EXPECT_DOUBLE_EQ(w.backward_flops(), 15.2e9);
  w.backward_flops_per_sample = 1e10;
  EXPECT_DOUBLE_EQ(w.backward_flops(), 1e10);
}

TEST(Workload, RejectsBadFields) {
  WorkloadSpec w = workload_preset("resnet50-imagenet");
  w.gradient_precision = Precision::kFp8;
  EXPECT_THROW(w.validate(), InvalidArgument);
  w = workload_preset("resnet50-imagenet");
  w.step_bytes_per_param = -1;
  EXPECT_THROW(w.validate(), InvalidArgument);
  w = workload_preset("resnet50-imagenet");
  w.forward_flops_per_sample = 0;
  try {
    w.validate();
    ADD_FAILURE() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("forward_flops_per_sample = 0"));
  }
  w = workload_preset("resnet50-imagenet");
  w.parameters = 0;
  EXPECT_THROW(w.validate(), InvalidArgument);
}

}  // namespace
}  // namespace compopt::net
