// The DeepSpeed optimizer block mapped onto the registry: every key of DeepSpeed's OneBitAdam /
// OneBitLamb / ZeroOneAdam / Adam / Lamb params lands on the registry key of the same meaning,
// DeepSpeed's defaults apply where compopt's differ, keys without effect are listed, everything
// else is refused by name, the mapped keys build the optimizer, and docs/optimizers.md has the
// table.
#include "core/optim/deepspeed_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/optim/optimizer_factory.h"
#include "core/util/error.h"

namespace compopt {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(DeepSpeedConfig, OneBitAdamBlockOfAWholeConfigMapsEveryKey) {
  const DeepSpeedOptimizer o = deepspeed_optimizer(R"({
    "train_batch_size": 32,
    "optimizer": {"type": "OneBitAdam", "params": {
      "lr": 4e-4, "betas": [0.8, 0.99], "eps": 1e-6, "weight_decay": 0.01,
      "freeze_step": 400, "cuda_aware": false, "comm_backend_name": "nccl"}}})");
  EXPECT_EQ(o.optimizer, "onebit-adam");
  const HyperParamMap expected = {{"lr", "0.0004"},         {"beta1", "0.8"},
                                  {"beta2", "0.99"},        {"eps", "1e-06"},
                                  {"weight_decay", "0.01"}, {"freeze_step", "400"}};
  EXPECT_EQ(o.keys, expected);
  EXPECT_THAT(o.ignored, ElementsAre("comm_backend_name", "cuda_aware"));
  EXPECT_NO_THROW(make_optimizer(o.optimizer, o.keys, ParamLayout::single(8)));
}

TEST(DeepSpeedConfig, OneBitLambCoefficientsKeepDeepSpeedsMeaning) {
  const DeepSpeedOptimizer o = deepspeed_optimizer(R"({"type": "onebitlamb", "params": {
      "max_coeff": 0.3, "min_coeff": 0.02, "coeff_beta": 0.8, "factor_max": 3.0,
      "factor_min": 0.6, "factor_threshold": 0.2, "bias_correction": false}})");
  EXPECT_EQ(o.optimizer, "onebit-lamb");
  const HyperParamMap expected = {
      {"c_max", "0.3"}, {"c_min", "0.02"},      {"beta3", "0.8"},         {"r_max", "3.0"},
      {"r_min", "0.6"}, {"r_threshold", "0.2"}, {"freeze_step", "100000"}};
  EXPECT_EQ(o.keys, expected);
  EXPECT_THAT(o.ignored, ElementsAre("bias_correction"));
  EXPECT_NO_THROW(make_optimizer(o.optimizer, o.keys, ParamLayout::single(8)));
}

TEST(DeepSpeedConfig, ZeroOneAdamMapsItsScheduleKeysAndRefusesOneBitAdamsFreezeStep) {
  const DeepSpeedOptimizer o = deepspeed_optimizer(R"({"optimizer": {"type": "ZeroOneAdam",
    "params": {"lr": 1e-3, "betas": [0.9, 0.99], "weight_decay": 0.01, "bias_correction": false,
      "var_freeze_step": 1000, "var_update_scaler": 8, "local_step_scaler": 1000,
      "local_step_clipper": 4, "cuda_aware": true, "comm_backend_name": "nccl"}}})");
  EXPECT_EQ(o.optimizer, "zero-one-adam");
  const HyperParamMap expected = {{"lr", "0.001"},
                                  {"beta1", "0.9"},
                                  {"beta2", "0.99"},
                                  {"weight_decay", "0.01"},
                                  {"var_freeze_step", "1000"},
                                  {"var_update_scaler", "8"},
                                  {"local_step_scaler", "1000"},
                                  {"local_step_clipper", "4"}};
  EXPECT_EQ(o.keys, expected);
  EXPECT_THAT(o.ignored, ElementsAre("bias_correction", "comm_backend_name", "cuda_aware"));
  EXPECT_NO_THROW(make_optimizer(o.optimizer, o.keys, ParamLayout::single(8)));
  // DeepSpeed's defaults are the registry's: an empty block takes them all.
  EXPECT_TRUE(deepspeed_optimizer(R"({"type": "zerooneadam"})").keys.empty());
  EXPECT_THROW(
      {
        try {
          deepspeed_optimizer(R"({"type": "ZeroOneAdam", "params": {"freeze_step": 5}})");
        } catch (const InvalidArgument& e) {
          EXPECT_THAT(e.what(), HasSubstr("ZeroOneAdam params.freeze_step has no compopt "
                                          "equivalent, expected one of lr, betas"));
          throw;
        }
      },
      InvalidArgument);
}

TEST(DeepSpeedConfig, AdamAndLambTakeDeepSpeedsBiasCorrectionDefault) {
  EXPECT_EQ(deepspeed_optimizer(R"({"type": "AdamW"})").keys.at("bias_correction"), "true");
  const DeepSpeedOptimizer lamb =
      deepspeed_optimizer(R"({"type": "Lamb", "params": {"bias_correction": false,
                             "max_coeff": 5}})");
  EXPECT_EQ(lamb.optimizer, "lamb");
  EXPECT_EQ(lamb.keys.at("bias_correction"), "false");
  EXPECT_EQ(lamb.keys.at("c_max"), "5");
}

TEST(DeepSpeedConfig, RefusesWhatCompoptDoesNotDoByName) {
  const auto error = [](const std::string& json) {
    try {
      deepspeed_optimizer(json);
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(error(R"({"type": "Adagrad"})"),
              HasSubstr("type 'Adagrad' has no compopt equivalent, expected one of Adam"));
  EXPECT_THAT(error(R"({"type": "OneBitAdam", "params": {"var_freeze_step": 5}})"),
              HasSubstr("params.var_freeze_step has no compopt equivalent"));
  EXPECT_THAT(
      error(R"({"type": "Adam", "params": {"amsgrad": true}})"),
      HasSubstr("params.amsgrad = true is refused: compopt's Adam keeps no AMSGrad maximum of v"));
  EXPECT_THAT(error(R"({"type": "OneBitAdam", "params": {"max_grad_norm": 1.0}})"),
              HasSubstr("do not clip gradients"));
  EXPECT_THAT(error(R"({"type": "Adam", "params": {"adam_w_mode": false}})"),
              HasSubstr("weight decay is decoupled"));
  EXPECT_THAT(error(R"({"type": "Adam", "params": {"betas": [0.9]}})"),
              HasSubstr("params.betas = [0.9], expected [beta1, beta2]"));
  EXPECT_THAT(error(R"({"optimizer": {"type": "Adam", "lr": 1}})"),
              HasSubstr("key 'lr' is not read"));
  EXPECT_THAT(error("[1, 2"), HasSubstr("not a JSON object"));
  EXPECT_THAT(error("[1, 2]"), HasSubstr("not a JSON object"));
  // Python's json.dumps writes NaN and Infinity, which JSON has not: named, with the byte.
  EXPECT_THAT(error(R"({"type": "Adam", "params": {"lr": NaN}})"),
              HasSubstr("NaN at byte 35 is not a JSON number"));
  EXPECT_THAT(error(R"({"type": "Adam", "params": {"lr": -Infinity}})"),
              HasSubstr("-Infinity at byte 35 is not a JSON number"));
  EXPECT_THAT(error(R"({"scheduler": {}})"), HasSubstr("expected an \"optimizer\" block"));
  EXPECT_NO_THROW(deepspeed_optimizer(R"({"type": "Adam", "params": {"max_grad_norm": 0.0}})"));
}

TEST(DeepSpeedConfig, FileErrorsNameTheFile) {
  EXPECT_THROW(
      {
        try {
          deepspeed_optimizer_file("/nonexistent/ds.json");
        } catch (const InvalidArgument& e) {
          EXPECT_THAT(e.what(), HasSubstr("DeepSpeed config '/nonexistent/ds.json'"));
          throw;
        }
      },
      InvalidArgument);
}

TEST(DeepSpeedConfig, DocsCarryTheGeneratedTable) {
  std::ifstream in(std::filesystem::path(COMPOPT_SOURCE_DIR) / "docs" / "optimizers.md");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr(deepspeed_table_markdown()));
}

}  // namespace
}  // namespace compopt
