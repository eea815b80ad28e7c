// The pair table of the `methods` study: baselines come from the optimizer registry, every
// row's keys resolve against a run length and are accepted by its optimizer, and the
// percentages of a short run round as written by hand below.

#include "experiments/reproduce/method_pairs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/optim/optimizer_factory.h"
#include "core/util/error.h"
#include "core/util/param_layout.h"

namespace compopt::cli::reproduce {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(MethodPairs, BaselinesAreTheRegistrys) {
  EXPECT_EQ(method_baseline("onebit-adam"), "adam");
  EXPECT_EQ(method_baseline("birder"), "adam");
  EXPECT_EQ(method_baseline("local-momentum-sgd"), "momentum-sgd");
}

TEST(MethodPairs, ABaselineOrAnUnknownNameIsRefusedByName) {
  try {
    method_baseline("adam");
    FAIL() << "adam has no baseline";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("'adam'"));
    EXPECT_THAT(e.what(), HasSubstr("no baseline"));
  }
  EXPECT_THROW(method_baseline("adamm"), InvalidArgument);
}

TEST(MethodPairs, OptimizersAreEachMethodThenItsBaselineOnce) {
  const std::vector<MethodPair> pairs = {
      {"onebit-adam", {}}, {"birder", {}}, {"local-momentum-sgd", {}}};
  EXPECT_THAT(method_study_optimizers(pairs),
              ElementsAre("onebit-adam", "adam", "birder", "local-momentum-sgd", "momentum-sgd"));
}

TEST(MethodPairs, PercentagesResolveToStepsOfTheRun) {
  // 15% of 60 = 9; of 24 = 3.6 -> 4; 1% of 10 = 0.1 -> at least 1; plain values stay.
  EXPECT_THAT(resolved_keys({"freeze_step=15%", "tau=4"}, 60),
              ElementsAre("freeze_step=9", "tau=4"));
  EXPECT_THAT(resolved_keys({"freeze_step=15%"}, 24), ElementsAre("freeze_step=4"));
  EXPECT_THAT(resolved_keys({"period=1%"}, 10), ElementsAre("period=1"));
  EXPECT_THAT(resolved_keys({"period=100%"}, 10), ElementsAre("period=10"));
}

TEST(MethodPairs, BadKeysAreRefusedNamingThem) {
  for (const char* bad : {"tau", "=4", "freeze_step=0%", "freeze_step=150%", "freeze_step=x%"}) {
    try {
      resolved_keys({bad}, 60);
      FAIL() << bad << " was accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_THAT(e.what(), HasSubstr(std::string("'") + bad + "'"));
    }
  }
}

// Each row's optimizer accepts its keys at the study's run lengths (a typo in the table
// fails here, not after minutes of training).
TEST(MethodPairs, EveryRowBuildsItsOptimizer) {
  const ParamLayout layout = ParamLayout::from_sizes({{"w", 8}, {"b", 2}});
  for (const MethodPair& pair : method_pairs())
    for (int steps : {24, 60, 300, 600}) {
      HyperParamMap keys;
      for (const std::string& kv : resolved_keys(pair.keys, steps))
        keys[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
      EXPECT_NO_THROW(make_optimizer(pair.method, keys, layout)) << pair.method;
    }
}

}  // namespace
}  // namespace compopt::cli::reproduce
