#pragma once
// Test helper: bitwise comparison of two StepRecords in every field the math determines
// (step, samples, epoch, stage, lr, losses, accuracy, variance metrics, LAMB coefficients and
// ratios, and the byte counts unless `bytes` is false). The clock fields (time_s and the
// measured wall-clock split) are left to the caller: they differ between backends and runs.

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <utility>

#include "core/train/step_record.h"

namespace compopt::testing_support {

inline uint64_t double_bits(double v) { return std::bit_cast<uint64_t>(v); }

inline void expect_same_math(const StepRecord& a, const StepRecord& b, bool bytes = true) {
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(a.samples, b.samples);
  EXPECT_EQ(double_bits(a.epoch), double_bits(b.epoch));
  EXPECT_EQ(a.stage, b.stage);
  EXPECT_EQ(double_bits(a.lr), double_bits(b.lr));
  EXPECT_EQ(double_bits(a.train_loss), double_bits(b.train_loss));
  for (auto [x, y] : {std::pair{a.test_loss, b.test_loss},
                      {a.test_accuracy, b.test_accuracy},
                      {a.var_norm_l2, b.var_norm_l2},
                      {a.var_ratio_l1, b.var_ratio_l1},
                      {a.var_norm_l1, b.var_norm_l1}}) {
    ASSERT_EQ(x.has_value(), y.has_value());
    if (x) {
      EXPECT_EQ(double_bits(*x), double_bits(*y));
    }
  }
  if (bytes) {
    EXPECT_EQ(double_bits(a.bytes_sent), double_bits(b.bytes_sent));
    EXPECT_EQ(double_bits(a.bytes_sent_inter_node), double_bits(b.bytes_sent_inter_node));
  }
  EXPECT_EQ(a.layer_coefficients, b.layer_coefficients);
  EXPECT_EQ(a.layer_ratios, b.layer_ratios);
}

}  // namespace compopt::testing_support
