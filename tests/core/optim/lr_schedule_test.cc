// Learning-rate schedules (docs/algorithms.md) at hand-computed points.

#include "core/optim/lr_schedule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "core/util/error.h"

namespace compopt {
namespace {

TEST(LrSchedule, Constant) {
  auto s = make_constant_schedule(0.1);
  EXPECT_DOUBLE_EQ(s->lr(0), 0.1);
  EXPECT_DOUBLE_EQ(s->lr(1000000), 0.1);
  EXPECT_EQ(s->warmup_steps(), 0);
}

TEST(LrSchedule, LinearWarmupStepDecayLikeBert) {
  auto s = make_linear_warmup_step_decay(4e-4, 100, 0.99, 10);
  EXPECT_DOUBLE_EQ(s->lr(0), 0.0);
  EXPECT_DOUBLE_EQ(s->lr(50), 2e-4);
  EXPECT_DOUBLE_EQ(s->lr(100), 4e-4);
  EXPECT_DOUBLE_EQ(s->lr(109), 4e-4);
  EXPECT_DOUBLE_EQ(s->lr(110), 4e-4 * 0.99);
  EXPECT_DOUBLE_EQ(s->lr(135), 4e-4 * 0.99 * 0.99 * 0.99);
  EXPECT_EQ(s->warmup_steps(), 100);
}

TEST(LrSchedule, ExpWarmupStepDecay) {
  auto s = make_exp_warmup_step_decay(1e-5, 1e-3, 10, 0.5, 5);
  EXPECT_DOUBLE_EQ(s->lr(0), 1e-5);
  EXPECT_NEAR(s->lr(5), 1e-4, 1e-18);  // geometric midpoint
  EXPECT_DOUBLE_EQ(s->lr(10), 1e-3);
  EXPECT_DOUBLE_EQ(s->lr(15), 5e-4);
}

TEST(LrSchedule, LinearWarmupLinearDecay) {
  auto s = make_linear_warmup_linear_decay(1.0, 10, 110);
  EXPECT_DOUBLE_EQ(s->lr(5), 0.5);
  EXPECT_DOUBLE_EQ(s->lr(10), 1.0);
  EXPECT_DOUBLE_EQ(s->lr(60), 0.5);
  EXPECT_DOUBLE_EQ(s->lr(110), 0.0);
  EXPECT_DOUBLE_EQ(s->lr(500), 0.0);
}

TEST(LrSchedule, Cosine) {
  auto s = make_cosine_schedule(2.0, 4, 104);
  EXPECT_DOUBLE_EQ(s->lr(2), 1.0);
  EXPECT_DOUBLE_EQ(s->lr(4), 2.0);
  EXPECT_NEAR(s->lr(54), 1.0, 1e-12);
  EXPECT_NEAR(s->lr(29), 1.0 + std::cos(std::numbers::pi / 4), 1e-12);
  EXPECT_NEAR(s->lr(104), 0.0, 1e-15);
  EXPECT_NEAR(s->lr(200), 0.0, 1e-15);
}

TEST(LrSchedule, RejectsBadArguments) {
  EXPECT_THROW(make_constant_schedule(-1), InvalidArgument);
  EXPECT_THROW(make_linear_warmup_step_decay(1, -1, 0.5, 1), InvalidArgument);
  EXPECT_THROW(make_linear_warmup_step_decay(1, 1, 1.5, 1), InvalidArgument);
  EXPECT_THROW(make_linear_warmup_step_decay(1, 1, 0.5, 0), InvalidArgument);
  EXPECT_THROW(make_exp_warmup_step_decay(0, 1, 1, 0.5, 1), InvalidArgument);
  EXPECT_THROW(make_cosine_schedule(1, 10, 10), InvalidArgument);
  EXPECT_THROW(make_linear_warmup_linear_decay(1, 10, 5), InvalidArgument);
}

}  // namespace
}  // namespace compopt
