#include "real_backend/tcp/tcp_options.h"

#include <fmt/format.h>
#include <unistd.h>

#include <random>

#include "core/util/env.h"
#include "core/util/error.h"

namespace compopt::tcp {

TcpOptions tcp_options_from_env(TcpOptions o) {
  if (const char* v = env_value("RANK"))
    o.rank = static_cast<int>(parse_env_integer("RANK", v, 0, 1 << 20));
  if (const char* v = env_value("WORLD_SIZE"))
    o.world_size = static_cast<int>(parse_env_integer("WORLD_SIZE", v, 1, 1 << 20));
  if (const char* v = env_value("MASTER_ADDR")) o.master_addr = v;
  if (const char* v = env_value("MASTER_PORT"))
    o.master_port = static_cast<uint16_t>(parse_env_integer("MASTER_PORT", v, 1, 65535));
  if (const char* v = env_value("COMPOPT_JOB_TOKEN")) o.token = v;
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

std::string random_job_token() {
  std::random_device device;
  std::string token;
  for (int i = 0; i < 4; ++i) token += fmt::format("{:08x}", static_cast<uint32_t>(device()));
  return token;
}

}  // namespace compopt::tcp
