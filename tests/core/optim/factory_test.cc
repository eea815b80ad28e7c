// Bad input: every validation error of make_optimizer names the key and the
// expected form.

#include <gtest/gtest.h>

#include "core/comm/local/local_world.h"
#include "core/optim/optimizer_factory.h"
#include "core/util/error.h"

namespace compopt {
namespace {

struct BadCase {
  std::string name;
  HyperParamMap params;
  std::string expected;  // substring of the message
};

TEST(OptimizerFactory, RejectsBadInputWithNamedKeys) {
  const std::vector<BadCase> cases = {
      {"adamw", {}, "unknown optimizer 'adamw', expected one of sgd"},
      {"adam", {{"betaa", "0.9"}}, "unknown key 'betaa'"},
      {"sgd", {{"beta", "0.9"}}, "unknown key 'beta'"},
      {"adam", {{"lr", "abc"}}, "key 'lr' = 'abc' is not a finite number"},
      {"adam", {{"lr", "1e-3x"}}, "key 'lr' = '1e-3x' is not a finite number"},
      {"adam", {{"lr", "nan"}}, "is not a finite number"},
      {"sgd", {{"lr", "-0.1"}}, "key 'lr' = -0.1 is negative"},
      {"adam", {{"beta1", "1"}}, "key 'beta1' = 1 is out of range, expected a number in [0"},
      {"momentum-sgd", {{"beta", "-0.1"}}, "key 'beta' = -0.1 is out of range"},
      {"birder", {{"beta", "1.5"}}, "key 'beta'"},
      {"onebit-lamb", {{"freeze_step", "5"}, {"beta3", "1"}}, "key 'beta3'"},
      {"onebit-adam", {{"threshold", "1.5"}}, "key 'threshold' = 1.5 is out of range"},
      {"onebit-adam", {{"threshold", "0"}}, "key 'threshold' = 0, expected a number in (0, 1]"},
      {"onebit-adam",
       {{"freeze_step", "10"}, {"threshold", "0.9"}},
       "key 'threshold' only applies with freeze_step=auto"},
      {"onebit-adam", {{"freeze_step", "ten"}}, "key 'freeze_step' = 'ten' is not an integer"},
      {"onebit-adam", {{"freeze_step", "0"}}, "key 'freeze_step' = 0, expected an integer >= 1"},
      {"onebit-adam-32bit", {{"compressor", "sign"}}, "unknown key 'compressor'"},
      {"onebit-adam", {{"bias_correction", "true"}}, "unknown key 'bias_correction'"},
      {"onebit-lamb", {}, "key 'freeze_step' is required"},
      {"lamb", {{"c_min", "2"}, {"c_max", "1"}}, "key 'c_min' = 2.000000 exceeds 'c_max'"},
      {"onebit-lamb",
       {{"freeze_step", "5"}, {"r_min", "0"}},
       "key 'r_min' = 0, expected a number > 0"},
      {"birder", {{"compressor", "bogus"}}, "key 'compressor' = 'bogus'"},
      {"birder", {{"amsgrad_start", "5"}}, "key 'amsgrad_start' needs amsgrad_max=true"},
      {"adam",
       {{"bias_correction", "maybe"}},
       "key 'bias_correction' = 'maybe', expected true|false"},
      {"adam", {{"wire", "int8"}}, "key 'wire' = 'int8', expected one of fp32|fp16"},
      {"adam", {{"eps", "0"}}, "key 'eps' = 0, expected a number > 0"},
      {"adam", {{"weight_decay", "-1"}}, "key 'weight_decay' = -1 is negative"},
      {"adam", {{"schedule", "step"}}, "key 'schedule' = 'step', expected one of constant|"},
      {"adam", {{"schedule", "cosine"}}, "schedule 'cosine' needs key 'total_steps'"},
      {"adam",
       {{"schedule", "cosine"}, {"warmup_steps", "10"}, {"total_steps", "5"}},
       "total_steps = 5, expected > warmup_steps = 10"},
      {"adam", {{"total_steps", "5"}}, "unknown key 'total_steps'"},
      {"local-sgd", {{"tau", "0"}}, "key 'tau' = 0, expected an integer >= 1"},
      {"adam", {{"seed", "-3"}}, "key 'seed' = -3, expected an integer >= 0"},
  };
  const ParamLayout layout = ParamLayout::single(4);
  for (const auto& c : cases) {
    try {
      make_optimizer(c.name, c.params, layout);
      ADD_FAILURE() << c.name << ": no error, expected '" << c.expected << "'";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(c.expected), std::string::npos)
          << "got: " << e.what() << "\nexpected substring: " << c.expected;
    }
  }
}

TEST(OptimizerFactory, BuildsEveryNameWithDefaults) {
  for (const auto& name : optimizer_names()) {
    HyperParamMap hp;
    if (name == "onebit-lamb") hp["freeze_step"] = "10";
    auto opt = make_optimizer(name, hp, ParamLayout::single(4));
    EXPECT_EQ(opt->name(), name);
    EXPECT_EQ(opt->step_count(), 0);
  }
}

TEST(OptimizerFactory, HierarchicalBirderRejectsUnevenNodes) {
  // 3 ranks, 2 per node: nodes of 2 and 1 ranks.
  try {
    run_local(
        3,
        [](Communicator& comm) {
          auto opt = make_optimizer("birder-hierarchical", {}, ParamLayout::single(8));
          std::vector<float> x(8, 1.0f), g(8, 0.5f);
          opt->step(x, g, comm);
        },
        2);
    ADD_FAILURE() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "birder-hierarchical: 3 ranks do not divide evenly into 2 nodes"),
              std::string::npos)
        << e.what();
  }
}

TEST(OptimizerFactory, StepRejectsWrongSizes) {
  run_local(1, [](Communicator& comm) {
    auto opt = make_optimizer("sgd", {}, ParamLayout::single(4));
    std::vector<float> x(4), g(3);
    EXPECT_THROW(opt->step(x, g, comm), InvalidArgument);
    EXPECT_EQ(opt->step_count(), 0);
  });
}

TEST(OptimizerFactory, ParamLayoutRejectsBadTensors) {
  EXPECT_THROW(ParamLayout::from_sizes({{"a", 0}}), InvalidArgument);
  EXPECT_THROW(ParamLayout::from_sizes({{"a", 1}, {"a", 2}}), InvalidArgument);
  EXPECT_THROW(ParamLayout::from_sizes({{"", 1}}), InvalidArgument);
  const auto l = ParamLayout::from_sizes({{"a", 3}, {"b", 5}});
  EXPECT_EQ(l.total(), 8u);
  EXPECT_EQ(l.tensor(1).offset, 3u);
}

}  // namespace
}  // namespace compopt
