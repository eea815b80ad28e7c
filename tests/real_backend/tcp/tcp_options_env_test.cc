// The environment of torchrun and of `compopt launch` as TCP options: under torchrun
// (TORCHELASTIC_RUN_ID set) rank 0 listens on MASTER_PORT + 1 (MASTER_PORT itself when
// TORCHELASTIC_USE_AGENT_STORE=False) and the job token comes from the
// run id unless COMPOPT_JOB_TOKEN is set; outside it, MASTER_PORT and the token are taken as
// they are.

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "real_backend/tcp/tcp_options.h"
#include "tests/support/invalid_argument_message.h"

namespace compopt::tcp {
namespace {

using testing_support::invalid_argument_message;

// Sets the given variables (and clears the other launch variables) for the test's lifetime.
class LaunchEnv {
 public:
  explicit LaunchEnv(const std::map<std::string, std::string>& values) {
    for (const char* name :
         {"RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "COMPOPT_JOB_TOKEN",
          "TORCHELASTIC_RUN_ID", "TORCHELASTIC_USE_AGENT_STORE"}) {
      ::unsetenv(name);
    }
    for (const auto& [name, value] : values) {
      ::setenv(name.c_str(), value.c_str(), 1);
      names_.push_back(name);
    }
  }
  ~LaunchEnv() {
    for (const std::string& name : names_) ::unsetenv(name.c_str());
  }

 private:
  std::vector<std::string> names_;
};

// What torchrun 1.13 gives each worker (rank 1 of 4, 2 per node), without compopt variables.
std::map<std::string, std::string> torchrun_env(const std::string& run_id) {
  return {{"RANK", "1"},
          {"LOCAL_RANK", "1"},
          {"WORLD_SIZE", "4"},
          {"LOCAL_WORLD_SIZE", "2"},
          {"GROUP_RANK", "0"},
          {"ROLE_RANK", "1"},
          {"MASTER_ADDR", "10.1.2.3"},
          {"MASTER_PORT", "29500"},
          {"TORCHELASTIC_RUN_ID", run_id}};
}

TEST(TcpOptionsTorchrun, TorchrunEnvironmentAloneGivesAValidRank) {
  LaunchEnv env(torchrun_env("foobar"));
  const TcpOptions o = tcp_options_from_env();
  EXPECT_EQ(o.rank, 1);
  EXPECT_EQ(o.world_size, 4);
  EXPECT_EQ(o.master_addr, "10.1.2.3");
  EXPECT_EQ(o.master_port, 29501) << "torchrun's store holds 29500";
  EXPECT_EQ(o.token, "85944171f73967e80eacee9155645b45");  // FNV-1a of "foobar", see job_token.h
  EXPECT_NO_THROW(validate(o));
}

TEST(TcpOptionsTorchrun, PortIsMasterPortWhenTorchrunsStoreIsElsewhere) {
  auto values = torchrun_env("foobar");
  values["TORCHELASTIC_USE_AGENT_STORE"] = "True";  // static rendezvous: its store on 29500
  {
    LaunchEnv env(values);
    EXPECT_EQ(tcp_options_from_env().master_port, 29501);
  }
  values["TORCHELASTIC_USE_AGENT_STORE"] = "False";  // e.g. --standalone: 29500 was found free
  LaunchEnv env(values);
  EXPECT_EQ(tcp_options_from_env().master_port, 29500);
}

TEST(TcpOptionsTorchrun, ExplicitJobTokenWinsOverTheRunId) {
  auto values = torchrun_env("foobar");
  values["COMPOPT_JOB_TOKEN"] = "explicit-token-0123456789";
  LaunchEnv env(values);
  EXPECT_EQ(tcp_options_from_env().token, "explicit-token-0123456789");
  EXPECT_EQ(tcp_options_from_env().master_port, 29501);
}

TEST(TcpOptionsTorchrun, DefaultRunIdNoneStillForms32DigitToken) {
  LaunchEnv env(torchrun_env("none"));
  TcpOptions quiet;
  quiet.quiet = true;
  const TcpOptions o = tcp_options_from_env(quiet);
  EXPECT_EQ(o.token.size(), 32u);
  EXPECT_NO_THROW(validate(o));
}

TEST(TcpOptionsTorchrun, WithoutTorchrunPortAndTokenAreTakenAsTheyAre) {
  LaunchEnv env({{"RANK", "0"},
                 {"WORLD_SIZE", "2"},
                 {"MASTER_PORT", "29500"},
                 {"COMPOPT_JOB_TOKEN", "abcdefghijklmnop"}});
  const TcpOptions o = tcp_options_from_env();
  EXPECT_EQ(o.master_port, 29500);
  EXPECT_EQ(o.token, "abcdefghijklmnop");
}

TEST(TcpOptionsTorchrun, NoTokenAnywhereIsRefusedByValidate) {
  LaunchEnv env({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "29500"}});
  const TcpOptions o = tcp_options_from_env();
  EXPECT_TRUE(o.token.empty());
  EXPECT_NE(invalid_argument_message([&] { validate(o); }).find("COMPOPT_JOB_TOKEN"),
            std::string::npos);
}

TEST(TcpOptionsTorchrun, LastPortUnderTorchrunIsRefusedNamingIt) {
  auto values = torchrun_env("foobar");
  values["MASTER_PORT"] = "65535";
  LaunchEnv env(values);
  const std::string message = invalid_argument_message([] { tcp_options_from_env(); });
  EXPECT_NE(message.find("MASTER_PORT='65535'"), std::string::npos) << message;
  EXPECT_NE(message.find("65534"), std::string::npos) << message;
}

}  // namespace
}  // namespace compopt::tcp
