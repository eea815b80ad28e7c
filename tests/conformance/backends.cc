#include "tests/conformance/backends.h"

#include "core/comm/local/local_world.h"
#ifdef COMPOPT_HAVE_TCP
#include "real_backend/tcp/tcp_world.h"
#endif
#ifdef COMPOPT_HAVE_SIM
#include "net_models/cluster_spec.h"
#include "sim/sim_world.h"
#endif

namespace compopt::testing {

const std::vector<Backend>& conformance_backends() {
  static const std::vector<Backend> backends = {
      {"local",
       [](int ranks, int ranks_per_node, const std::function<void(Communicator&)>& fn) {
         // Short timeout: a conformance failure must fail fast, not hang.
         LocalWorld world({.ranks = ranks, .ranks_per_node = ranks_per_node, .recv_timeout_s = 20.0});
         world.run(fn);
       }},
#ifdef COMPOPT_HAVE_SIM
      {"sim",
       [](int ranks, int ranks_per_node, const std::function<void(Communicator&)>& fn) {
         // A star cluster just big enough: ceil(ranks / per_node) nodes.
         net::ClusterSpec cluster;
         cluster.name = "conformance";
         cluster.gpus_per_node = ranks_per_node > 0 ? ranks_per_node : ranks;
         cluster.nodes = (ranks + cluster.gpus_per_node - 1) / cluster.gpus_per_node;
         sim::run_sim(cluster, ranks, cluster.gpus_per_node, fn);
       }},
#endif
#ifdef COMPOPT_HAVE_TCP
      {"tcp",
       [](int ranks, int ranks_per_node, const std::function<void(Communicator&)>& fn) {
         // Each rank a thread with its own TcpTransport over loopback sockets.
         tcp::TcpOptions options;
         options.op_timeout_s = 20.0;
         options.connect_timeout_s = 20.0;
         options.linger_s = 5.0;
         options.quiet = true;
         tcp::run_tcp_threads(ranks, ranks_per_node, fn, options);
       }},
#endif
  };
  return backends;
}

}  // namespace compopt::testing
