#include "core/util/memory_budget.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include "core/util/error.h"

namespace compopt {
namespace {

using ::testing::HasSubstr;

TEST(MemoryBudget, ParsesMemAvailableInKibibytes) {
  const std::string meminfo =
      "MemTotal:       24683656 kB\nMemFree:        21908164 kB\n"
      "MemAvailable:   23259792 kB\nBuffers:          123 kB\n";
  EXPECT_EQ(parse_mem_available(meminfo), uint64_t{23259792} * 1024);
  EXPECT_EQ(parse_mem_available("MemTotal: 10 kB\n"), 0u);
  EXPECT_EQ(parse_mem_available("MemAvailable: lots\n"), 0u);
}

TEST(MemoryBudget, RefusesWhatDoesNotFitNamingTheKey) {
  const MemoryBudget budget(uint64_t{2} << 30, "MemAvailable");
  EXPECT_NO_THROW(budget.require(2.0 * (1 << 30), "the run", "lower x"));
  try {
    budget.require(3.0 * (1 << 30), "task.hidden=16384,4096 with 16 ranks",
                   "lower task.hidden or run.ranks");
    FAIL() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(),
                 "task.hidden=16384,4096 with 16 ranks needs about 3.0 GiB, more than the 2.0 GiB "
                 "available (MemAvailable); lower task.hidden or run.ranks");
  }
}

TEST(MemoryBudget, EnvironmentOverridesTheMachine) {
  ::setenv("COMPOPT_MEMORY_LIMIT_MB", "100", 1);
  const MemoryBudget budget = MemoryBudget::of_this_machine();
  EXPECT_EQ(budget.bytes(), uint64_t{100} << 20);
  EXPECT_EQ(budget.source(), "COMPOPT_MEMORY_LIMIT_MB");
  ::setenv("COMPOPT_MEMORY_LIMIT_MB", "-5", 1);
  EXPECT_THROW(MemoryBudget::of_this_machine(), InvalidArgument);
  ::unsetenv("COMPOPT_MEMORY_LIMIT_MB");
  EXPECT_GT(MemoryBudget::of_this_machine().bytes(), uint64_t{0});
}

TEST(MemoryBudget, FormatsSizes) {
  EXPECT_EQ(format_bytes(512.0 * (1 << 20)), "512 MiB");
  EXPECT_EQ(format_bytes(23.4 * (1 << 30)), "23.4 GiB");
}

}  // namespace
}  // namespace compopt
