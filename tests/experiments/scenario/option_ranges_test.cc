// in_range(): a flag's value outside its range is refused while parsing, naming the flag and
// the value; values inside (bounds included) and non-numbers (left to CLI11) pass.

#include "experiments/scenario/option_ranges.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"

namespace compopt::cli {
namespace {

using ::testing::HasSubstr;

std::string parse(const std::vector<std::string>& args, double* out) {
  CLI::App app;
  app.add_option("--rate", *out)->check(in_range("--rate", 1e-3, 1e5, "Gbit/s"));
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const InvalidArgument& e) {
    return e.what();
  } catch (const CLI::ParseError& e) {
    return std::string("cli: ") + e.what();
  }
  return "";
}

TEST(OptionRanges, RefusesValuesOutsideNamingFlagAndValue) {
  double rate = 0;
  EXPECT_EQ(parse({"--rate", "1e-320"}, &rate), "--rate 1e-320: expected 0.001..100000 (Gbit/s)");
  EXPECT_THAT(parse({"--rate", "2e5"}, &rate), HasSubstr("--rate 2e5: expected"));
  EXPECT_THAT(parse({"--rate", "nan"}, &rate), HasSubstr("--rate nan: expected"));
  EXPECT_THAT(parse({"--rate", "-1"}, &rate), HasSubstr("--rate -1: expected"));
}

TEST(OptionRanges, AcceptsTheBoundsAndLeavesTextToCli11) {
  double rate = 0;
  EXPECT_EQ(parse({"--rate", "0.001"}, &rate), "");
  EXPECT_DOUBLE_EQ(rate, 0.001);
  EXPECT_EQ(parse({"--rate", "100000"}, &rate), "");
  EXPECT_DOUBLE_EQ(rate, 1e5);
  EXPECT_THAT(parse({"--rate", "fast"}, &rate), HasSubstr("cli: "));
}

}  // namespace
}  // namespace compopt::cli
