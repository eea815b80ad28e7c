#include "real_backend/tcp/tcp_options.h"

#include <fmt/format.h>
#include <unistd.h>

#include <string_view>

#include "core/util/env.h"
#include "core/util/error.h"

namespace compopt::tcp {

namespace {

// Under torchrun its agent's store holds MASTER_PORT (TORCHELASTIC_USE_AGENT_STORE=True, the
// default static rendezvous), so compopt's rank 0 listens on the next port; when torchrun says
// its workers do not share its store (False: --standalone and other c10d rendezvous on torch
// 1.13), MASTER_PORT is a port it found free and is used as it is. Every rank derives the same.
uint16_t rendezvous_port(const char* master_port, bool under_torchrun) {
  const long port = parse_env_integer("MASTER_PORT", master_port, 1, 65535);
  const char* agent_store = env_value("TORCHELASTIC_USE_AGENT_STORE");
  if (!under_torchrun || (agent_store != nullptr && std::string_view(agent_store) == "False"))
    return static_cast<uint16_t>(port);
  if (port == 65535) {
    throw InvalidArgument(
        "MASTER_PORT='65535' under torchrun: compopt's rank 0 listens on MASTER_PORT + 1 "
        "(torchrun's store holds MASTER_PORT), expected at most 65534");
  }
  return static_cast<uint16_t>(port + 1);
}

// A job token from torchrun's run id, for jobs started without COMPOPT_JOB_TOKEN. The run id
// "none" is torchrun's default without --rdzv-id or --standalone: public, so rank 0 says so.
std::string token_from_run_id(const char* run_id, const TcpOptions& o) {
  if (std::string_view(run_id) == "none" && o.rank == 0 && !o.quiet) {
    fmt::print(stderr,
               "compopt tcp: warning: job token derived from torchrun's default run id 'none', "
               "which anyone can guess; pass torchrun --rdzv-id <secret> or --standalone, or set "
               "COMPOPT_JOB_TOKEN\n");
  }
  return job_token_from_run_id(run_id);
}

}  // namespace

TcpOptions tcp_options_from_env(TcpOptions o) {
  const char* torchrun_run_id = env_value("TORCHELASTIC_RUN_ID");
  if (const char* v = env_value("RANK"))
    o.rank = static_cast<int>(parse_env_integer("RANK", v, 0, 1 << 20));
  if (const char* v = env_value("WORLD_SIZE"))
    o.world_size = static_cast<int>(parse_env_integer("WORLD_SIZE", v, 1, 1 << 20));
  if (const char* v = env_value("MASTER_ADDR")) o.master_addr = v;
  if (const char* v = env_value("MASTER_PORT"))
    o.master_port = rendezvous_port(v, torchrun_run_id != nullptr);
  if (const char* v = env_value("COMPOPT_JOB_TOKEN")) {
    o.token = v;
  } else if (torchrun_run_id != nullptr) {
    o.token = token_from_run_id(torchrun_run_id, o);
  }
  if (const char* v = env_value("COMPOPT_LISTEN_ADDR")) o.listen_addr = v;
  if (const char* v = env_value("COMPOPT_ADVERTISE_ADDR")) o.advertise_addr = v;
  if (const char* v = env_value("COMPOPT_NODE_NAME")) o.node_name = v;
  if (const char* v = env_value("COMPOPT_TCP_TIMEOUT_S")) {
    o.op_timeout_s = static_cast<double>(parse_env_integer("COMPOPT_TCP_TIMEOUT_S", v, 1, 86400));
  }
  if (const char* v = env_value("COMPOPT_TCP_PIPELINE_BYTES")) {
    o.pipeline_bytes =
        static_cast<uint64_t>(parse_env_integer("COMPOPT_TCP_PIPELINE_BYTES", v, 0, 1L << 30));
  }
  return o;
}

void validate(const TcpOptions& o) {
  if (o.world_size < 1)
    throw InvalidArgument(
        fmt::format("tcp: world size {}, expected >= 1 (WORLD_SIZE)", o.world_size));
  if (o.rank < 0 || o.rank >= o.world_size) {
    throw InvalidArgument(
        fmt::format("tcp: rank {} out of range, expected 0..{} (RANK)", o.rank, o.world_size - 1));
  }
  if (o.world_size > 1 && o.master_port == 0 && o.rank != 0) {
    throw InvalidArgument("tcp: master port 0, expected the port rank 0 listens on (MASTER_PORT)");
  }
  if (o.token.size() < 16) {
    throw InvalidArgument(
        fmt::format("tcp: job token of {} characters, expected at least 16 (COMPOPT_JOB_TOKEN)",
                    o.token.size()));
  }
  if (o.token.find_first_of("\n\r") != std::string::npos)
    throw InvalidArgument("tcp: job token contains a newline");
  if (o.gpus_per_node < 0)
    throw InvalidArgument(fmt::format("tcp: gpus_per_node {}, expected >= 0", o.gpus_per_node));
  for (double t :
       {o.connect_timeout_s, o.op_timeout_s, o.peer_silence_timeout_s, o.heartbeat_interval_s}) {
    if (!(t > 0)) throw InvalidArgument(fmt::format("tcp: timeout {} s, expected > 0", t));
  }
  if (o.pipeline_bytes > o.max_message_bytes) {
    throw InvalidArgument(
        fmt::format("tcp: pipeline of {} bytes, expected at most the {} byte message limit",
                    o.pipeline_bytes, o.max_message_bytes));
  }
  if (o.heartbeat_interval_s * 2 >= o.peer_silence_timeout_s) {
    throw InvalidArgument(
        fmt::format("tcp: heartbeat interval {} s, expected below half the silence timeout {} s",
                    o.heartbeat_interval_s, o.peer_silence_timeout_s));
  }
}

}  // namespace compopt::tcp
