#pragma once
// The job layout of `compopt launch` and the environment each rank gets, torchrun's way:
// -n ranks on each of --nnodes nodes; this node is --node-rank. Rank k of this node has
// RANK = node_rank * nproc + k, LOCAL_RANK = k, WORLD_SIZE = nnodes * nproc,
// LOCAL_WORLD_SIZE = nproc, GROUP_RANK = NODE_RANK = node_rank, MASTER_ADDR, MASTER_PORT
// and COMPOPT_JOB_TOKEN; TORCHELASTIC_RUN_ID is removed (the launch, not torchrun, owns
// MASTER_PORT). The job token is shared by every node: --job-token, else one derived from
// --run-id, else COMPOPT_JOB_TOKEN of the launcher's environment, else (one node only) random.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace compopt::cli {

// Ranks of one launch, over all nodes.
inline constexpr int kMaxLaunchRanks = 1024;

struct LaunchLayout {
  int nproc = 2;  // ranks on this node
  int nnodes = 1;
  int node_rank = 0;
  std::string master_addr = "127.0.0.1";
  uint16_t master_port = 0;  // 0: one node only, a free port is picked
  std::string job_token;     // --job-token
  std::string run_id;        // --run-id
};

// Throws InvalidArgument naming the first bad value: sizes out of range, a node rank outside
// 0..nnodes-1, several nodes without --master-port or without a shared token, a short token.
void validate(const LaunchLayout& layout);

// The job token every rank of this node gets (see above); `env_token` is the launcher's
// COMPOPT_JOB_TOKEN (nullptr when unset). Call after validate().
std::string launch_job_token(const LaunchLayout& layout, const char* env_token);

struct RankEnvironment {
  std::vector<std::pair<std::string, std::string>> set;
  std::vector<std::string> unset;
};

// The variables of local rank `local` (0..nproc-1) of this node.
RankEnvironment rank_environment(const LaunchLayout& layout, int local, uint16_t master_port,
                                 const std::string& token);

}  // namespace compopt::cli
