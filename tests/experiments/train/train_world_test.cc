// Where `compopt train` finds a launched rank (train_world.h): the launcher's
// variables per backend, in-process fallbacks, and refusals; and run.ranks
// checked against the launched world size before any world is joined.

#include "experiments/train/train_world.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <map>
#include <optional>
#include <string>

#include "core/util/error.h"
#include "experiments/train/train_config.h"

namespace compopt::cli {
namespace {

using ::testing::HasSubstr;

const char* const kVariables[] = {
    "RANK", "WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMI_SIZE"};

// Sets exactly `values` among the launcher variables for the test's lifetime.
class LauncherEnv {
 public:
  explicit LauncherEnv(const std::map<std::string, std::string>& values) {
    for (const char* name : kVariables) {
      if (const char* v = getenv(name)) saved_[name] = v;
      unsetenv(name);
    }
    for (const auto& [name, value] : values) setenv(name.c_str(), value.c_str(), 1);
  }
  ~LauncherEnv() {
    for (const char* name : kVariables) unsetenv(name);
    for (const auto& [name, value] : saved_) setenv(name.c_str(), value.c_str(), 1);
  }
  LauncherEnv(const LauncherEnv&) = delete;
  LauncherEnv& operator=(const LauncherEnv&) = delete;

 private:
  std::map<std::string, std::string> saved_;
};

std::string error_of(const std::string& backend) {
  try {
    launched_rank(backend);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

TEST(LaunchedRank, TcpReadsRankAndWorldSizeOfComptoptLaunch) {
  const LauncherEnv env({{"RANK", "2"}, {"WORLD_SIZE", "4"}});
  const std::optional<LaunchedRank> r = launched_rank("tcp");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->rank, 2);
  EXPECT_EQ(r->world_size, 4);
  EXPECT_EQ(launched_rank("hybrid")->world_size, 4);
  EXPECT_EQ(launched_rank("nccl")->rank, 2);
}

TEST(LaunchedRank, MpiReadsOpenMpiOrPmiVariables) {
  {
    const LauncherEnv env({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "3"}});
    EXPECT_EQ(launched_rank("mpi")->world_size, 3);
  }
  const LauncherEnv env({{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}});
  EXPECT_EQ(launched_rank("mpi")->rank, 1);
  EXPECT_EQ(launched_rank("mpi")->world_size, 2);
}

TEST(LaunchedRank, InProcessBackendsWithoutALauncherRunThreads) {
  const LauncherEnv env({});
  EXPECT_FALSE(launched_rank("local").has_value());
  EXPECT_FALSE(launched_rank("sim").has_value());
  EXPECT_FALSE(launched_rank("tcp").has_value());
  EXPECT_FALSE(launched_rank("hybrid").has_value());
}

TEST(LaunchedRank, RefusesLaunchedOnlyBackendsWithoutALauncherAndBadVariables) {
  {
    const LauncherEnv env({});
    EXPECT_THAT(error_of("mpi"), HasSubstr("start every rank with mpirun -n N"));
    EXPECT_THAT(error_of("nccl"), HasSubstr("start every rank with compopt launch -n N"));
  }
  {
    const LauncherEnv env({{"RANK", "4"}, {"WORLD_SIZE", "4"}});
    EXPECT_THAT(error_of("tcp"), HasSubstr("RANK='4': expected an integer in 0..3"));
  }
  const LauncherEnv env({{"RANK", "1"}, {"WORLD_SIZE", "2"}});
  EXPECT_THAT(error_of("local"), HasSubstr("use run.backend = 'tcp'"));
  EXPECT_THAT(error_of("sim"), HasSubstr("WORLD_SIZE=2"));
}

TEST(LaunchedRank, RunRanksDefaultsToTheLaunchedWorldAndMustMatchIt) {
  const std::vector<std::string> base = {"run.backend=tcp", "task.name=quadratic",
                                         "task.dimension=8", "run.steps=2"};
  const LauncherEnv env({{"RANK", "1"}, {"WORLD_SIZE", "3"}});
  const TrainConfig c = load_train_config("", base);
  EXPECT_EQ(c.ranks, 3);
  ASSERT_TRUE(c.launched.has_value());
  EXPECT_EQ(c.launched->rank, 1);
  std::vector<std::string> mismatch = base;
  mismatch.push_back("run.ranks=4");
  EXPECT_THAT([&] { load_train_config("", mismatch); },
              ::testing::ThrowsMessage<InvalidArgument>(
                  HasSubstr("'run.ranks' = 4, but this process is one rank of a launched world "
                            "of 3 ranks")));
}

}  // namespace
}  // namespace compopt::cli
