// The optimizer registry: one canonical name per optimizer (aliases build the same thing),
// declared keys that make_optimizer accepts with their declared defaults, stages that the
// simulator can run, and docs/optimizers.md carrying the generated tables.

#include "core/optim/optimizer_registry.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/compress/compressor.h"
#include "tests/core/optim/optim_test_util.h"

namespace compopt {
namespace {

using ::testing::HasSubstr;
using testing::History;
using testing::run_optimizer;
using testing::RunConfig;

HyperParamMap required_keys(const std::string& name) {
  if (name == "onebit-lamb") return {{"freeze_step", "2"}};
  return {};
}

History run(const std::string& name, HyperParamMap params, int ranks = 2) {
  RunConfig cfg;
  cfg.name = name;
  cfg.params = std::move(params);
  cfg.layout = ParamLayout::from_sizes({{"a", 5}, {"b", 11}});
  cfg.ranks = ranks;
  cfg.gpus_per_node = 1;
  cfg.steps = 3;
  return run_optimizer(cfg);
}

std::string read_doc(const std::string& file) {
  const auto root = std::filesystem::path(COMPOPT_SOURCE_DIR);
  std::ifstream in(root / "docs" / file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(OptimizerRegistry, EveryEntryBuildsUnderItsCanonicalName) {
  std::set<std::string> seen;
  for (const auto& e : optimizer_registry().entries()) {
    EXPECT_TRUE(seen.insert(e.name).second) << e.name;
    auto opt = make_optimizer(e.name, required_keys(e.name), ParamLayout::single(4));
    EXPECT_EQ(opt->name(), e.name);
    for (const auto& alias : e.aliases) {
      EXPECT_EQ(make_optimizer(alias, required_keys(e.name), ParamLayout::single(4))->name(),
                e.name);
      EXPECT_EQ(optimizer_registry().canonical(alias), e.name);
    }
  }
  EXPECT_EQ(optimizer_names(), optimizer_registry().names());
  EXPECT_EQ(optimizer_names().size(), 17u);  // + diloco, streaming-diloco
}

TEST(OptimizerRegistry, SgdmIsAnAliasOfMomentumSgdWithIdenticalSteps) {
  EXPECT_EQ(optimizer_registry().canonical("sgdm"), "momentum-sgd");
  const HyperParamMap hp = {{"lr", "0.05"}, {"beta", "0.8"}};
  EXPECT_EQ(run("sgdm", hp), run("momentum-sgd", hp));
}

TEST(OptimizerRegistry, BertAdamIsAdamWithoutBiasCorrection) {
  const HyperParamMap hp = {{"lr", "0.01"}, {"beta2", "0.99"}};
  HyperParamMap adam = hp;
  adam["bias_correction"] = "false";
  EXPECT_EQ(run("bertadam", hp), run("adam", adam));
  adam["bias_correction"] = "true";
  EXPECT_NE(run("bertadam", hp), run("adam", adam));
  EXPECT_THROW(make_optimizer("bertadam", {{"bias_correction", "true"}}, ParamLayout::single(4)),
               InvalidArgument);
}

// Passing every declared default explicitly changes nothing: the defaults the docs print
// are the ones the optimizers use.
TEST(OptimizerRegistry, DeclaredDefaultsAreTheDefaultsInUse) {
  for (const auto& e : optimizer_registry().entries()) {
    HyperParamMap explicit_defaults = required_keys(e.name);
    for (const auto& k : e.keys) {
      // amsgrad_start is only accepted together with amsgrad_max=true.
      if (k.name == "amsgrad_start") continue;
      if (!k.fallback.empty() && !explicit_defaults.count(k.name)) {
        explicit_defaults[k.name] = k.fallback;
      }
    }
    for (const auto& k : common_optimizer_keys()) explicit_defaults[k.name] = k.fallback;
    explicit_defaults["lr"] = fmt::format("{}", e.default_lr);
    EXPECT_EQ(run(e.name, required_keys(e.name)), run(e.name, explicit_defaults)) << e.name;
  }
}

TEST(OptimizerRegistry, UndeclaredKeysAreRejected) {
  for (const auto& e : optimizer_registry().entries()) {
    HyperParamMap hp = required_keys(e.name);
    hp["not_a_key"] = "1";
    try {
      make_optimizer(e.name, hp, ParamLayout::single(4));
      ADD_FAILURE() << e.name;
    } catch (const InvalidArgument& err) {
      EXPECT_THAT(err.what(), HasSubstr(e.name + ": unknown key 'not_a_key'"));
    }
  }
}

TEST(OptimizerRegistry, StagesAreSimulatable) {
  const std::set<std::string> stage_names = {"full_precision", "warmup", "compression", "local"};
  for (const auto& e : optimizer_registry().entries()) {
    ASSERT_FALSE(e.stages.empty()) << e.name;
    for (const auto& s : e.stages) {
      EXPECT_TRUE(stage_names.count(s.name)) << e.name << " " << s.name;
      if (s.pattern == CommPattern::kRing) {
        EXPECT_TRUE(s.compressor.empty()) << e.name;
      } else {
        EXPECT_TRUE(make_compressor(s.compressor)->chunkable()) << e.name;
      }
    }
  }
  const auto& adam = optimizer_registry().get("adam").stages;
  ASSERT_EQ(adam.size(), 1u);
  EXPECT_EQ(adam[0].name, "full_precision");
  const auto& onebit = optimizer_registry().get("onebit-adam").stages;
  ASSERT_EQ(onebit.size(), 2u);
  EXPECT_EQ(onebit[1].pattern, CommPattern::kCompressedFlat);
  EXPECT_EQ(onebit[1].compressor, "sign");
  const auto& hierarchical = optimizer_registry().get("birder-hierarchical").stages;
  EXPECT_EQ(hierarchical[0].pattern, CommPattern::kCompressedHierarchical);
  EXPECT_EQ(hierarchical[0].compressor, "binary");
}

TEST(OptimizerRegistry, OnlyTheGradientsRingAllreduceOverlapsBackward) {
  // full_precision and warmup allreduce the gradient as backward produces it (DDP buckets);
  // every other stage sends a vector of the optimizer step (momentum, update, parameters).
  for (const auto& e : optimizer_registry().entries()) {
    for (const auto& s : e.stages) {
      const bool gradient =
          s.pattern == CommPattern::kRing && (s.name == "full_precision" || s.name == "warmup");
      EXPECT_EQ(s.overlap == StageOverlap::kBehindBackward, gradient) << e.name << " " << s.name;
    }
  }
  EXPECT_EQ(optimizer_registry().get("onebit-adam-32bit").stages[1].overlap,
            StageOverlap::kAfterBackward);
  EXPECT_STREQ(stage_overlap_name(StageOverlap::kBehindBackward), "bucketed behind backward");
}

TEST(OptimizerRegistry, OnlyTheLambFamilyStepsMoveMoreBytesThanAdam) {
  for (const auto& e : optimizer_registry().entries()) {
    const bool lamb = e.name == "lamb" || e.name == "onebit-lamb";
    for (const auto& s : e.stages)
      EXPECT_DOUBLE_EQ(s.step_bytes_ratio, lamb ? 68.0 / 48.0 : 1.0) << e.name << " " << s.name;
  }
}

TEST(OptimizerRegistry, UnknownNamesListCanonicalNamesAndAliases) {
  try {
    make_optimizer("adamw", {}, ParamLayout::single(4));
    ADD_FAILURE();
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown optimizer 'adamw', expected one of sgd, "
                                    "momentum-sgd, adam, bertadam, lamb"));
    EXPECT_THAT(e.what(), HasSubstr("(aliases: sgdm = momentum-sgd)"));
  }
}

TEST(OptimizerRegistry, CompressedAllreduceRefusesTopk) {
  try {
    make_optimizer("ef-momentum-sgd", {{"compressor", "topk:0.1"}}, ParamLayout::single(4));
    ADD_FAILURE();
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("key 'compressor' = 'topk:0.1'"));
    EXPECT_THAT(e.what(), HasSubstr("cannot be cut into the chunks"));
  }
}

TEST(OptimizerRegistry, DocsCarryTheGeneratedTables) {
  const std::string doc = read_doc("optimizers.md");
  ASSERT_FALSE(doc.empty());
  EXPECT_THAT(doc, HasSubstr(optimizer_table_markdown()));
  EXPECT_THAT(doc, HasSubstr(optimizer_stage_table_markdown()));
  EXPECT_THAT(doc, HasSubstr(common_key_table_markdown()));
}

}  // namespace
}  // namespace compopt
