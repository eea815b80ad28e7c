#include "sim/collective_prediction.h"

#include <fmt/format.h>

#include "core/util/error.h"
#include "sim/scenario.h"

namespace compopt::sim {

net::WorkloadSpec allreduce_workload(double bytes) {
  if (!(bytes >= 4))
    throw InvalidArgument(
        fmt::format("allreduce of {} bytes: expected at least one fp32 element (4 bytes)", bytes));
  net::WorkloadSpec w;
  w.name = "nccl-tests-allreduce";
  w.parameters = static_cast<uint64_t>(bytes / 4);
  w.gradient_precision = net::Precision::kFp32;
  w.compute_precision = net::Precision::kFp32;
  w.forward_flops_per_sample = 1;  // a workload needs FLOPs; compute is not compared
  w.source = "nccl-tests all_reduce_perf, fp32 sum";
  return w;
}

AllreducePrediction predict_allreduce(const net::ClusterSpec& cluster, double bytes) {
  Scenario s;
  s.cluster_spec = cluster;
  s.cluster = cluster.name;
  s.workload_spec = allreduce_workload(bytes);
  s.optimizer = "adam";
  s.overlap = OverlapMode::kOff;  // nccl-tests times the allreduce alone
  const StageTiming t = simulate_step(resolve_scenario(s)).front();
  return {t.comm_s, t.algorithm};
}

Band allreduce_network_band(const net::ClusterSpec& cluster, double bytes, double seconds) {
  return network_band(cluster, seconds, [bytes](const net::ClusterSpec& c) {
    return predict_allreduce(c, bytes).seconds;
  });
}

std::string describe_cluster_network(const net::ClusterSpec& c) {
  return fmt::format(
      "{} x {} {} on {} {:.0f} Gbit/s; {} x {:.0f} Gbit/s {} NIC{} ({:.0f} us){}", c.nodes,
      c.gpus_per_node, c.gpu.name, net::intra_node_fabric_name(c.intra_node_fabric),
      c.intra_node_gbps, c.nics_per_node, c.inter_node_gbps, c.inter_node_transport.name,
      c.nics_per_node > 1 ? "s on rails" : "", 1e6 * c.inter_node_latency_s,
      c.inter_node_transport.streams_per_peer > 1
          ? fmt::format("; {} streams per peer", c.inter_node_transport.streams_per_peer)
          : "");
}

}  // namespace compopt::sim
