// The scenario of `compopt profile CONFIG.toml`: every profile flag that sets the scenario
// replaces config keys (else a file's value would silently win over it); a flag wins over the
// file, --set over both; a [sweep] list of two values is refused naming the key.

#include "experiments/cli/profile_scenario.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/util/error.h"
#include "experiments/cli/commands.h"
#include "net_models/cluster_presets.h"
#include "tests/support/invalid_argument_message.h"

namespace compopt::cli {
namespace {

using ::testing::HasSubstr;

// The options of `compopt profile` that do not describe the scenario.
const std::set<std::string> kNotScenario = {"--help",      "config",       "--set",
                                            "--out",       "--trace",      "--export-platform",
                                            "--overwrite", "--sensitivity"};

TEST(ProfileScenario, EveryScenarioFlagStandsForConfigKeys) {
  CLI::App app;
  register_profile_command(app);
  const std::vector<std::string> listed = profile_scenario_flags();
  int scenario_flags = 0;
  for (const CLI::Option* option : app.get_subcommand("profile")->get_options()) {
    const std::string name = option->get_name();
    if (kNotScenario.count(name) || option->get_group().empty()) continue;  // hidden: moved
    ++scenario_flags;
    EXPECT_NE(std::find(listed.begin(), listed.end(), name), listed.end()) << name;
  }
  EXPECT_EQ(scenario_flags, static_cast<int>(listed.size()));
}

class ProfileScenarioFile : public ::testing::Test {
 protected:
  void SetUp() override {
    // One file per process and test: ctest runs the tests of this fixture in parallel
    // processes, which may share a random seed (it comes from the clock).
    path_ = std::filesystem::temp_directory_path() /
            ("profile_scenario_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".toml");
    std::ofstream(path_) << "[cluster]\npreset = \"ethernet-v100-4\"\ninter_node_gbps = 100\n"
                            "[sweep]\noptimizers = \"onebit-adam\"\ngpus = [16, 32]\n";
  }
  void TearDown() override { std::filesystem::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

TEST_F(ProfileScenarioFile, AListOfTwoValuesIsRefusedNamingTheKey) {
  EXPECT_THAT(
      testing_support::invalid_argument_message([&] { profile_scenario(path(), {}, {}, {}); }),
      HasSubstr("sweep.gpus = [ 16, 32 ] holds 2 values, expected one"));
}

TEST_F(ProfileScenarioFile, FlagsOverTheFileAndSetsOverBoth) {
  sim::Scenario flags;
  flags.gpus = 64;
  flags.cluster = "infiniband-v100-8";
  flags.optimizer = "birder";  // not given: the file's onebit-adam stands
  const sim::Scenario s = profile_scenario(path(), flags, {"--gpus", "--cluster", "--out"}, {});
  EXPECT_EQ(s.gpus, 64);
  EXPECT_EQ(s.optimizer, "onebit-adam");
  EXPECT_EQ(s.cluster, "infiniband-v100-8");  // the table's preset replaced, its rate kept
  ASSERT_TRUE(s.cluster_spec.has_value());
  EXPECT_EQ(s.cluster_spec->inter_node_gbps, 100);
  const sim::Scenario set = profile_scenario(path(), flags, {"--gpus"}, {"sweep.gpus=8"});
  EXPECT_EQ(set.gpus, 8);
}

// --cluster names the base of cluster keys given with --set: the preset's values stand where
// no key replaces them; without the flag the same keys start from the plain defaults.
TEST(ProfileScenario, TheClusterFlagIsTheBaseOfClusterKeys) {
  sim::Scenario flags;
  flags.cluster = "dgx-a100";
  const std::vector<std::string> sets = {"cluster.nics_per_node=2", "cluster.nodes=3"};
  const sim::Scenario s = profile_scenario("", flags, {"--cluster"}, sets);
  ASSERT_TRUE(s.cluster_spec.has_value());
  EXPECT_EQ(s.cluster_spec->preset, "dgx-a100");
  EXPECT_EQ(s.cluster_spec->nics_per_node, 2);
  EXPECT_EQ(s.cluster_spec->gpus_per_node, net::cluster_preset("dgx-a100").gpus_per_node);
  const sim::Scenario plain = profile_scenario("", flags, {}, sets);
  EXPECT_EQ(plain.cluster_spec->preset, "");
  EXPECT_EQ(plain.cluster_spec->gpus_per_node, net::ClusterSpec{}.gpus_per_node);
}

}  // namespace
}  // namespace compopt::cli
