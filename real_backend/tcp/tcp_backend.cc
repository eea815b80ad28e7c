#include "real_backend/tcp/tcp_backend.h"

#include <fmt/format.h>

#include "core/util/error.h"
#include "real_backend/tcp/tcp_world.h"

namespace compopt::tcp {
namespace {

class TcpBackend : public Backend {
 public:
  std::string available() const override { return ""; }

  void check_host(const WorldOptions& options) const override {
    if (options.ranks > 0) ensure_in_process_file_limit(options.ranks);
  }

  void run(const WorldOptions& options, const WorldFn& fn) const override {
    const TcpOptions tcp = tcp_options_for(options);
    if (options.ranks > 0) {
      run_tcp_threads(options.ranks, options.gpus_per_node, fn, tcp);
    } else {
      run_tcp_rank(tcp, fn);
    }
  }
};

}  // namespace

TcpOptions tcp_options_for(const WorldOptions& options) {
  TcpOptions tcp = options.ranks > 0 ? TcpOptions{} : tcp_options_from_env();
  if (options.gpus_per_node > 0) tcp.gpus_per_node = options.gpus_per_node;
  if (options.op_timeout_s) tcp.op_timeout_s = *options.op_timeout_s;
  if (options.connect_timeout_s) tcp.connect_timeout_s = *options.connect_timeout_s;
  if (options.pipeline_bytes) tcp.pipeline_bytes = *options.pipeline_bytes;
  if (options.linger_s) tcp.linger_s = *options.linger_s;
  tcp.quiet = tcp.quiet || options.quiet;
  if (!options.extras.empty()) {
    throw InvalidArgument(fmt::format("TCP world: unknown setting '{}', expected none",
                                      options.extras.begin()->first));
  }
  return tcp;
}

void register_tcp_backend(BackendRegistry& registry) {
  BackendEntry entry;
  entry.name = "tcp";
  entry.help = "one rank per process over TCP sockets (compopt launch), or in-process ranks";
  entry.traits = {.in_process = true, .launched = true, .trains = true};
  entry.backend = std::make_shared<TcpBackend>();
  registry.add(std::move(entry));
}

}  // namespace compopt::tcp
