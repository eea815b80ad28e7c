#include "experiments/scenario/sweep_distribution.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "core/util/error.h"
#include "experiments/scenario/forked_jobs.h"
#include "real_backend/backend_registry.h"

namespace compopt::cli {
namespace {

using ::testing::HasSubstr;

constexpr const char* kLauncherVariables[] = {"OMPI_COMM_WORLD_SIZE",
                                              "OMPI_COMM_WORLD_RANK",
                                              "OMPI_COMM_WORLD_LOCAL_SIZE",
                                              "PMI_SIZE",
                                              "PMI_RANK",
                                              "MPI_LOCALNRANKS"};

// Each test starts without launcher variables and leaves none behind.
class SweepWorldEnv : public ::testing::Test {
 protected:
  void SetUp() override { clear(); }
  void TearDown() override { clear(); }
  static void clear() {
    for (const char* name : kLauncherVariables) ::unsetenv(name);
  }
  static void set(const char* name, const char* value) { ::setenv(name, value, 1); }
  static std::string error() {
    try {
      sweep_world_from_env();
    } catch (const InvalidArgument& e) {
      return e.what();
    }
    return "no error";
  }
};

TEST_F(SweepWorldEnv, WithoutLauncherIsAPlainRun) {
  const SweepWorld world = sweep_world_from_env();
  EXPECT_EQ(world.rank, 0);
  EXPECT_EQ(world.size, 1);
  EXPECT_EQ(world.source, "");
}

TEST_F(SweepWorldEnv, ReadsOpenMpiVariables) {
  set("OMPI_COMM_WORLD_SIZE", "3");
  set("OMPI_COMM_WORLD_RANK", "2");
  set("OMPI_COMM_WORLD_LOCAL_SIZE", "3");
  const SweepWorld world = sweep_world_from_env();
  EXPECT_EQ(world.rank, 2);
  EXPECT_EQ(world.size, 3);
  EXPECT_EQ(world.local_size, 3);
  EXPECT_EQ(world.source, "OMPI_COMM_WORLD_SIZE");
}

TEST_F(SweepWorldEnv, ReadsPmiVariables) {
  set("PMI_SIZE", "4");
  set("PMI_RANK", "1");
  const SweepWorld world = sweep_world_from_env();
  EXPECT_EQ(world.rank, 1);
  EXPECT_EQ(world.size, 4);
  EXPECT_EQ(world.local_size, 1);
  EXPECT_EQ(world.source, "PMI_SIZE");
}

TEST_F(SweepWorldEnv, BadValuesNameTheVariable) {
  set("OMPI_COMM_WORLD_SIZE", "3");
  EXPECT_THAT(error(), HasSubstr("OMPI_COMM_WORLD_SIZE is set but OMPI_COMM_WORLD_RANK is not"));
  set("OMPI_COMM_WORLD_RANK", "3");
  EXPECT_THAT(error(), HasSubstr("OMPI_COMM_WORLD_RANK='3': expected an integer in 0..2"));
  set("OMPI_COMM_WORLD_SIZE", "zero");
  EXPECT_THAT(error(), HasSubstr("OMPI_COMM_WORLD_SIZE='zero'"));
  set("OMPI_COMM_WORLD_SIZE", "4");
  set("OMPI_COMM_WORLD_LOCAL_SIZE", "5");
  EXPECT_THAT(error(), HasSubstr("OMPI_COMM_WORLD_LOCAL_SIZE='5': expected an integer in 1..4"));
}

TEST(SweepDistribution, EveryScenarioGoesToExactlyOneRank) {
  for (int size : {1, 2, 3, 8}) {
    std::vector<int> owners(7, 0);
    for (int rank = 0; rank < size; ++rank) {
      for (size_t i :
           scenarios_of_rank(7, {.rank = rank, .size = size, .local_size = 1, .source = ""})) {
        EXPECT_EQ(static_cast<int>(i) % size, rank);
        ++owners[i];
      }
    }
    EXPECT_EQ(owners, std::vector<int>(7, 1)) << size << " ranks";
  }
  EXPECT_EQ(scenarios_of_rank(7, {.rank = 1, .size = 3, .local_size = 1, .source = ""}),
            (std::vector<size_t>{1, 4}));
}

TEST(SweepDistribution, DefaultJobsShareTheMachineAmongItsRanks) {
  const SweepWorld alone{.rank = 0, .size = 1, .local_size = 1, .source = ""};
  EXPECT_EQ(jobs_per_rank(3, alone), 3);
  EXPECT_EQ(jobs_per_rank(0, alone), parallel_jobs(0));
  const int cores = parallel_jobs(0);
  const SweepWorld crowded{.rank = 0, .size = cores + 1, .local_size = cores + 1, .source = "x"};
  EXPECT_EQ(jobs_per_rank(0, crowded), 1);
  EXPECT_EQ(jobs_per_rank(5, crowded), 5);
}

// Several ranks need the MPI backend; whether this build has it decides the outcome.
TEST(SweepDistribution, SeveralRanksNeedTheMpiBuild) {
  EXPECT_NO_THROW(check_sweep_world({.rank = 0, .size = 1, .local_size = 1, .source = ""}));
  const SweepWorld two{.rank = 0, .size = 2, .local_size = 2, .source = "PMI_SIZE"};
  const std::string why = backend_registry().get("mpi").available();
  if (why.empty()) {
    EXPECT_NO_THROW(check_sweep_world(two));
  } else {
    try {
      check_sweep_world(two);
      ADD_FAILURE() << "no error without MPI";
    } catch (const InvalidArgument& e) {
      EXPECT_THAT(e.what(), HasSubstr("(PMI_SIZE=2) needs a compopt built with MPI"));
    }
  }
}

}  // namespace
}  // namespace compopt::cli
