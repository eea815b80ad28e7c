// OverlapMode: the user's override of each stage's declared overlap (sim/overlap_mode.h).

#include "sim/overlap_mode.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"
#include "tests/support/invalid_argument_message.h"

namespace compopt::sim {
namespace {

using ::testing::HasSubstr;

TEST(OverlapMode, ParsesItsThreeNamesAndPrintsThemBack) {
  EXPECT_EQ(parse_overlap_mode("auto"), OverlapMode::kAuto);
  EXPECT_EQ(parse_overlap_mode("on"), OverlapMode::kOn);
  EXPECT_EQ(parse_overlap_mode("off"), OverlapMode::kOff);
  for (const std::string& name : overlap_mode_names())
    EXPECT_EQ(overlap_mode_name(parse_overlap_mode(name)), name);
  EXPECT_EQ(overlap_mode_names(), (std::vector<std::string>{"auto", "on", "off"}));
}

TEST(OverlapMode, RefusesOtherTextNamingItAndTheChoices) {
  const std::string message =
      testing_support::invalid_argument_message([] { parse_overlap_mode("true"); });
  EXPECT_THAT(message, HasSubstr("'true'"));
  EXPECT_THAT(message, HasSubstr("auto, on, off"));
  EXPECT_THROW(parse_overlap_mode(""), InvalidArgument);
}

TEST(OverlapMode, AutoFollowsTheStageAndTheOverridesIgnoreIt) {
  EXPECT_TRUE(overlaps_backward(OverlapMode::kAuto, StageOverlap::kBehindBackward));
  EXPECT_FALSE(overlaps_backward(OverlapMode::kAuto, StageOverlap::kAfterBackward));
  for (StageOverlap s : {StageOverlap::kBehindBackward, StageOverlap::kAfterBackward}) {
    EXPECT_TRUE(overlaps_backward(OverlapMode::kOn, s));
    EXPECT_FALSE(overlaps_backward(OverlapMode::kOff, s));
  }
}

}  // namespace
}  // namespace compopt::sim
