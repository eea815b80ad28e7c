// nccl-tests' sizes and table (experiments/cli/nccl_tests_format.h): suffixes are binary, a
// sweep visits what nccl-tests' loop visits, bad sizes and sweeps name their flag, and a
// printed line splits into the 13 columns of an all_reduce_perf log with the figures
// computed by hand.

#include "experiments/cli/nccl_tests_format.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "core/util/error.h"

namespace compopt::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(NcclTestsFormat, SizesTakeBinarySuffixesInEitherCase) {
  EXPECT_EQ(parse_nccl_tests_size("-b", "8"), 8u);
  EXPECT_EQ(parse_nccl_tests_size("-b", "128K"), 131072u);
  EXPECT_EQ(parse_nccl_tests_size("-b", "32m"), 33554432u);
  EXPECT_EQ(parse_nccl_tests_size("-b", "1.5M"), 1572864u);
  EXPECT_EQ(parse_nccl_tests_size("-e", "8G"), 8589934592u);
}

TEST(NcclTestsFormat, BadSizesNameTheFlagAndText) {
  for (const char* bad : {"", "abc", "-1", "0", "0.5", "8X", "8KB", "nan", "1e20", "G"}) {
    EXPECT_THAT([&] { parse_nccl_tests_size("-e", bad); },
                ThrowsMessage<InvalidArgument>(HasSubstr(std::string("-e ") + bad + ":")))
        << bad;
  }
}

TEST(NcclTestsFormat, StepFactorIsAWholeNumberFromOne) {
  EXPECT_EQ(parse_step_factor("2"), 2u);
  for (const char* bad : {"0", "x", "2.5", "-2", ""})
    EXPECT_THAT([&] { parse_step_factor(bad); }, ThrowsMessage<InvalidArgument>(HasSubstr("-f")))
        << bad;
}

TEST(NcclTestsFormat, SweepMultipliesByTheFactorOrAddsTheStep) {
  EXPECT_EQ(sweep_sizes({.min_bytes = 8, .max_bytes = 128, .step_factor = 2}),
            (std::vector<uint64_t>{8, 16, 32, 64, 128}));
  EXPECT_EQ(sweep_sizes({.min_bytes = 8, .max_bytes = 100, .step_factor = 3}),
            (std::vector<uint64_t>{8, 24, 72}));  // 216 is past -e
  EXPECT_EQ(sweep_sizes({.min_bytes = 4, .max_bytes = 16, .step_factor = 1, .step_bytes = 4}),
            (std::vector<uint64_t>{4, 8, 12, 16}));
  EXPECT_EQ(sweep_sizes({}), (std::vector<uint64_t>{32ull << 20}));  // nccl-tests' default
}

TEST(NcclTestsFormat, BadSweepsNameTheirValues) {
  EXPECT_THAT([] { sweep_sizes({.min_bytes = 64, .max_bytes = 8, .step_factor = 2}); },
              ThrowsMessage<InvalidArgument>(HasSubstr("-b 64 is above -e 8")));
  EXPECT_THAT([] { sweep_sizes({.min_bytes = 8, .max_bytes = 64, .step_factor = 0}); },
              ThrowsMessage<InvalidArgument>(HasSubstr("-f 0")));
  EXPECT_THAT(
      [] { sweep_sizes({.min_bytes = 8, .max_bytes = 64, .step_factor = 1, .step_bytes = 0}); },
      ThrowsMessage<InvalidArgument>(HasSubstr("-i 0")));
  EXPECT_THAT(
      [] {
        sweep_sizes({.min_bytes = 1, .max_bytes = 1u << 20, .step_factor = 1, .step_bytes = 1});
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("more than 1024 sizes")));
}

TEST(NcclTestsFormat, Fp32SweepRoundsDownToWholeElementsAndChecksBounds) {
  EXPECT_EQ(fp32_sweep_sizes({.min_bytes = "6", .max_bytes = "6"}, 1e9),
            (std::vector<uint64_t>{4}));
  EXPECT_EQ(fp32_sweep_sizes({.min_bytes = "1K", .max_bytes = "4K", .step_factor = "2"}, 1e9),
            (std::vector<uint64_t>{1024, 2048, 4096}));
  EXPECT_THAT(
      [] { fp32_sweep_sizes({.min_bytes = "2", .max_bytes = "8", .step_factor = "2"}, 1e9); },
      ThrowsMessage<InvalidArgument>(HasSubstr("one fp32 element")));
  EXPECT_THAT([] { fp32_sweep_sizes({.min_bytes = "1G", .max_bytes = "2G"}, 1.5e9); },
              ThrowsMessage<InvalidArgument>(HasSubstr("-e 2147483648")));
}

// The fields of the table's lines that are not comments.
std::vector<std::vector<std::string>> data_fields(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::vector<std::string> fields;
    for (std::string w; words >> w;) fields.push_back(w);
    rows.push_back(fields);
  }
  return rows;
}

// 1 MiB in 1 ms: algbw 1.048576 GB/s, busbw x 1.5 (4 ranks) = 1.572864; 64 MiB in 12.3456 ms:
// 5.436 GB/s and 8.154; the time column fits 7 characters with one decimal.
TEST(NcclTestsFormat, TableLinesSplitIntoTheLogsColumns) {
  NcclTestsTable t;
  t.header = {"Collective test starting: all_reduce_perf", "nranks 4"};
  t.bus_factor = 1.5;
  t.extra_header = "algo";
  t.lines = {{1u << 20, 1u << 18, 1e-3, 1e-3, "ring"},
             {64u << 20, 16u << 20, 12.3456e-3, 0.02, "tree"}};
  const std::string text = format_nccl_tests_table(t);
  EXPECT_THAT(text, HasSubstr("# Collective test starting: all_reduce_perf\n# nranks 4\n#\n"));
  EXPECT_THAT(text, HasSubstr("#wrong     time   algbw   busbw  #wrong  algo\n"));
  const auto rows = data_fields(text);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0],
            (std::vector<std::string>{"1048576", "262144", "float", "sum", "-1", "1000.00", "1.05",
                                      "1.57", "N/A", "1000.00", "1.05", "1.57", "N/A", "ring"}));
  EXPECT_EQ(rows[1][5], "12345.6");
  EXPECT_EQ(rows[1][6], "5.44");
  EXPECT_EQ(rows[1][7], "8.15");
  EXPECT_EQ(rows[1][9], "20000.0");
  // Mean busbw over the four timed columns: (1.572864 x 2 + 8.153... + 5.033...) / 4.
  const double avg = (1.572864 * 2 + 1.5 * 67.108864 / 12.3456 + 1.5 * 67.108864 / 20) / 4;
  EXPECT_THAT(text, HasSubstr(fmt::format("# Avg bus bandwidth    : {:g} \n", avg)));
  EXPECT_THAT(text, HasSubstr("# Out of bounds values : 0 OK\n"));
}

}  // namespace
}  // namespace compopt::cli
