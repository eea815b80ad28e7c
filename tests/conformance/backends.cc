#include "tests/conformance/backends.h"

#include "core/comm/local/local_world.h"
#ifdef COMPOPT_HAVE_TCP
#include "real_backend/tcp/tcp_world.h"
#endif
#ifdef COMPOPT_HAVE_SIM
#include "net_models/cluster_spec.h"
#include "sim/sim_world.h"
#endif
#ifdef COMPOPT_HAVE_HYBRID
#include <stdexcept>

#include "real_backend/cuda/gpu_compressed_allreduce.h"
#include "real_backend/cuda/gpu_hierarchical_allreduce.h"
#include "real_backend/cuda/hybrid_world.h"
#endif

namespace compopt::testing {

namespace {

#ifdef COMPOPT_HAVE_HYBRID
cuda::GpuContext& hybrid_rank_gpu() {
  if (cuda::rank_gpu() == nullptr)
    throw std::logic_error("hybrid conformance: compressed call outside a hybrid rank");
  return *cuda::rank_gpu();
}

// TCP ranks as threads sharing the GPU; sign and binary compressed collectives on the GPU.
Backend hybrid_backend() {
  Backend b{"hybrid",
            [](int ranks, int ranks_per_node, const std::function<void(Communicator&)>& fn) {
              tcp::TcpOptions options;
              options.op_timeout_s = 20.0;
              options.connect_timeout_s = 20.0;
              options.linger_s = 5.0;
              options.quiet = true;
              cuda::run_hybrid_threads(
                  ranks, ranks_per_node, [&](Communicator& comm, cuda::GpuContext&) { fn(comm); },
                  options);
            }};
  b.compressed_allreduce = [](Communicator& comm, std::span<float> data, const Compressor& c,
                              CompressedAllreduceState& state, RandomKey key) {
    if (cuda::codec_for(c)) {
      cuda::compressed_allreduce_mean(hybrid_rank_gpu(), comm, data, c, state, key);
    } else {
      compressed_allreduce_mean(comm, data, c, state, key);
    }
  };
  b.hierarchical_allreduce = [](HierarchicalGroups& groups, std::span<float> data,
                                const Compressor& c, CompressedAllreduceState& state, RandomKey key,
                                const ShardTransform& transform) {
    if (cuda::codec_for(c)) {
      cuda::hierarchical_compressed_allreduce_mean(hybrid_rank_gpu(), groups, data, c, state, key,
                                                   transform);
    } else {
      hierarchical_compressed_allreduce_mean(groups, data, c, state, key, transform);
    }
  };
  return b;
}
#endif

// Appends the GPU backends that can run here: hybrid when CUDA is built and a device is present
// (without one the suite lists no hybrid tests; compopt_cuda_tests says why GPU tests skip).
std::vector<Backend> with_gpu_backends(std::vector<Backend> backends) {
#ifdef COMPOPT_HAVE_HYBRID
  if (cuda::device_count() > 0) backends.push_back(hybrid_backend());
#endif
  return backends;
}

}  // namespace

const std::vector<Backend>& conformance_backends() {
  static const std::vector<Backend> backends = with_gpu_backends({
      {"local",
       [](int ranks, int ranks_per_node, const std::function<void(Communicator&)>& fn) {
         // Short timeout: a conformance failure must fail fast, not hang.
         LocalWorld world(
             {.ranks = ranks, .ranks_per_node = ranks_per_node, .recv_timeout_s = 20.0});
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
         // Each rank a thread with its own TcpTransport over loopback sockets. Pieces of
         // 20 bytes: the suite's element counts exercise the pipelined ring (ring_shift.h).
         tcp::TcpOptions options;
         options.pipeline_bytes = 20;
         options.op_timeout_s = 20.0;
         options.connect_timeout_s = 20.0;
         options.linger_s = 5.0;
         options.quiet = true;
         tcp::run_tcp_threads(ranks, ranks_per_node, fn, options);
       }},
#endif
  });
  return backends;
}

}  // namespace compopt::testing
