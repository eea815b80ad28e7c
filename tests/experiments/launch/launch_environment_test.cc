// `compopt launch`'s job layout: global ranks across nodes, the variables each rank gets, the
// shared job token, and refusals of bad layouts naming the value.

#include "experiments/launch/launch_environment.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/util/job_token.h"
#include "tests/support/invalid_argument_message.h"

namespace compopt::cli {
namespace {

using testing_support::invalid_argument_message;

std::map<std::string, std::string> as_map(const RankEnvironment& env) {
  return {env.set.begin(), env.set.end()};
}

LaunchLayout two_nodes(int node_rank) {
  LaunchLayout l;
  l.nproc = 3;
  l.nnodes = 2;
  l.node_rank = node_rank;
  l.master_addr = "10.0.0.1";
  l.master_port = 29500;
  l.run_id = "job-7";
  return l;
}

TEST(LaunchEnvironment, SecondNodeRanksFollowTheFirstNodes) {
  const LaunchLayout l = two_nodes(1);
  ASSERT_NO_THROW(validate(l));
  // Local rank 2 of node 1 with 3 ranks per node: global rank 1 * 3 + 2 = 5 of 6.
  const auto env = as_map(rank_environment(l, 2, 29500, "tok"));
  EXPECT_EQ(env.at("RANK"), "5");
  EXPECT_EQ(env.at("LOCAL_RANK"), "2");
  EXPECT_EQ(env.at("WORLD_SIZE"), "6");
  EXPECT_EQ(env.at("LOCAL_WORLD_SIZE"), "3");
  EXPECT_EQ(env.at("GROUP_RANK"), "1");
  EXPECT_EQ(env.at("NODE_RANK"), "1");
  EXPECT_EQ(env.at("MASTER_ADDR"), "10.0.0.1");
  EXPECT_EQ(env.at("MASTER_PORT"), "29500");
  EXPECT_EQ(env.at("COMPOPT_JOB_TOKEN"), "tok");
  EXPECT_EQ(rank_environment(l, 0, 1, "t").unset, std::vector<std::string>{"TORCHELASTIC_RUN_ID"});
}

TEST(LaunchEnvironment, EveryNodeDerivesTheSameTokenFromTheRunId) {
  const std::string node0 = launch_job_token(two_nodes(0), nullptr);
  EXPECT_EQ(node0, launch_job_token(two_nodes(1), "ignored-when-run-id-is-given"));
  EXPECT_EQ(node0, job_token_from_run_id("job-7"));
}

TEST(LaunchEnvironment, TokenPrecedenceFlagThenRunIdThenEnvironmentThenRandom) {
  LaunchLayout l;
  l.job_token = "flag-token-0123456789";
  EXPECT_EQ(launch_job_token(l, "env-token-0123456789"), "flag-token-0123456789");
  l.job_token.clear();
  EXPECT_EQ(launch_job_token(l, "env-token-0123456789"), "env-token-0123456789");
  const std::string a = launch_job_token(l, nullptr);
  EXPECT_EQ(a.size(), 32u);
  EXPECT_NE(a, launch_job_token(l, nullptr)) << "one node: a fresh random token per launch";
}

TEST(LaunchEnvironment, SeveralNodesNeedAPortAndASharedToken) {
  LaunchLayout l = two_nodes(0);
  l.master_port = 0;
  EXPECT_NE(invalid_argument_message([&] { validate(l); }).find("--master-port"),
            std::string::npos);
  l = two_nodes(0);
  l.run_id.clear();
  ASSERT_NO_THROW(validate(l));
  EXPECT_NE(invalid_argument_message([&] { launch_job_token(l, nullptr); }).find("--run-id"),
            std::string::npos);
  EXPECT_EQ(launch_job_token(l, "shared-env-token-0123"), "shared-env-token-0123");
}

TEST(LaunchEnvironment, BadLayoutsAreRefusedNamingTheValue) {
  const auto message = [](auto change) {
    LaunchLayout l = two_nodes(0);
    change(l);
    return invalid_argument_message([&] { validate(l); });
  };
  EXPECT_NE(message([](LaunchLayout& l) { l.nproc = 0; }).find("-n 0"), std::string::npos);
  EXPECT_NE(message([](LaunchLayout& l) { l.nnodes = 0; }).find("--nnodes 0"), std::string::npos);
  EXPECT_NE(message([](LaunchLayout& l) { l.node_rank = 2; }).find("--node-rank 2"),
            std::string::npos);
  EXPECT_NE(message([](LaunchLayout& l) { l.node_rank = -1; }).find("--node-rank -1"),
            std::string::npos);
  // 600 per node on 2 nodes: 1200 ranks, above the 1024 limit.
  EXPECT_NE(message([](LaunchLayout& l) { l.nproc = 600; }).find("1200 ranks"), std::string::npos);
  EXPECT_NE(message([](LaunchLayout& l) { l.job_token = "short"; }).find("--job-token"),
            std::string::npos);
  EXPECT_NE(message([](LaunchLayout& l) { l.master_addr.clear(); }).find("--master-addr"),
            std::string::npos);
  // .invalid never resolves (RFC 6761), with or without a resolver reachable.
  EXPECT_NE(message([](LaunchLayout& l) {
              l.master_addr = "no-such-host.invalid";
            }).find("--master-addr no-such-host.invalid: does not resolve"),
            std::string::npos);
  LaunchLayout short_env;
  EXPECT_NE(invalid_argument_message([&] {
              launch_job_token(short_env, "abc");
            }).find("COMPOPT_JOB_TOKEN of 3 characters"),
            std::string::npos);
}

TEST(LaunchEnvironment, JobTokenAndRunIdTogetherAreRefused) {
  LaunchLayout l = two_nodes(0);
  l.job_token = "flag-token-0123456789";
  EXPECT_NE(invalid_argument_message([&] { validate(l); }).find("not both"), std::string::npos);
}

}  // namespace
}  // namespace compopt::cli
