#include "experiments/launch/launch_environment.h"

#include <fmt/format.h>
#include <netdb.h>

#include "core/util/error.h"
#include "core/util/job_token.h"

namespace compopt::cli {
namespace {

constexpr size_t kMinTokenChars = 16;

void validate_token(const std::string& token, const char* source) {
  if (token.size() < kMinTokenChars) {
    throw InvalidArgument(fmt::format("{} of {} characters, expected at least {}", source,
                                      token.size(), kMinTokenChars));
  }
  if (token.find_first_of("\n\r") != std::string::npos)
    throw InvalidArgument(fmt::format("{} contains a newline", source));
}

// Every rank dials MASTER_ADDR: a name that does not resolve here would only end the job after
// the rendezvous timeout (a minute), saying "timed out", so it is refused now, naming the cause.
void check_master_addr_resolves(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (found != nullptr) ::freeaddrinfo(found);
  if (rc != 0) {
    throw InvalidArgument(fmt::format(
        "--master-addr {}: does not resolve ({}), expected a host name or address every node "
        "can reach",
        host, ::gai_strerror(rc)));
  }
}

}  // namespace

void validate(const LaunchLayout& l) {
  if (l.nproc < 1 || l.nproc > kMaxLaunchRanks)
    throw InvalidArgument(fmt::format("-n {}: expected 1..{} ranks", l.nproc, kMaxLaunchRanks));
  if (l.nnodes < 1 || l.nnodes > kMaxLaunchRanks)
    throw InvalidArgument(fmt::format("--nnodes {}: expected 1..{}", l.nnodes, kMaxLaunchRanks));
  if (l.nproc * l.nnodes > kMaxLaunchRanks) {
    throw InvalidArgument(fmt::format("-n {} on --nnodes {}: {} ranks, expected at most {}",
                                      l.nproc, l.nnodes, l.nproc * l.nnodes, kMaxLaunchRanks));
  }
  if (l.node_rank < 0 || l.node_rank >= l.nnodes) {
    throw InvalidArgument(fmt::format("--node-rank {}: expected 0..{} (--nnodes {})", l.node_rank,
                                      l.nnodes - 1, l.nnodes));
  }
  if (l.master_addr.empty()) throw InvalidArgument("--master-addr '': expected a host or address");
  check_master_addr_resolves(l.master_addr);
  if (l.nnodes > 1 && l.master_port == 0) {
    throw InvalidArgument(fmt::format(
        "--nnodes {} without --master-port: every node must dial the same port of node 0",
        l.nnodes));
  }
  if (!l.job_token.empty() && !l.run_id.empty())
    throw InvalidArgument("--job-token and --run-id: expected one of them, not both");
  if (!l.job_token.empty()) validate_token(l.job_token, "--job-token");
}

std::string launch_job_token(const LaunchLayout& l, const char* env_token) {
  if (!l.job_token.empty()) return l.job_token;
  if (!l.run_id.empty()) return job_token_from_run_id(l.run_id);
  if (env_token != nullptr && *env_token != '\0') {
    validate_token(env_token, "COMPOPT_JOB_TOKEN");
    return env_token;
  }
  if (l.nnodes > 1) {
    throw InvalidArgument(fmt::format(
        "--nnodes {} without a shared job token: pass --run-id <id> (the same on every node) "
        "or set COMPOPT_JOB_TOKEN",
        l.nnodes));
  }
  return random_job_token();
}

RankEnvironment rank_environment(const LaunchLayout& l, int local, uint16_t master_port,
                                 const std::string& token) {
  const std::string node = std::to_string(l.node_rank);
  return {.set = {{"RANK", std::to_string(l.node_rank * l.nproc + local)},
                  {"LOCAL_RANK", std::to_string(local)},
                  {"WORLD_SIZE", std::to_string(l.nnodes * l.nproc)},
                  {"LOCAL_WORLD_SIZE", std::to_string(l.nproc)},
                  {"GROUP_RANK", node},
                  {"NODE_RANK", node},
                  {"MASTER_ADDR", l.master_addr},
                  {"MASTER_PORT", std::to_string(master_port)},
                  {"COMPOPT_JOB_TOKEN", token}},
          .unset = {"TORCHELASTIC_RUN_ID"}};
}

}  // namespace compopt::cli
