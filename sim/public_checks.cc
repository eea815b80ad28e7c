#include "sim/public_checks.h"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "core/util/error.h"
#include "net_models/cluster_fabric.h"
#include "net_models/transport_profile.h"
#include "sim/allreduce_algorithm.h"
#include "sim/scenario.h"

namespace compopt::sim {
namespace {

// Node-to-node latency by transport: the calibrated presets' figures (cluster_presets.cc:
// 50 us for Ethernet/TCP, 2 us for InfiniBand), not fitted to the public cases.
constexpr std::array<std::pair<std::string_view, double>, 2> kTransportLatencyS = {{
    {"tcp", 50e-6},
    {"rdma", 2e-6},
}};

double transport_latency_s(std::string_view transport) {
  for (const auto& [name, latency_s] : kTransportLatencyS)
    if (name == transport) return latency_s;
  throw InvalidArgument(fmt::format("transport '{}', expected tcp or rdma", transport));
}

// The fp32 gradient of `bytes` per rank, as a workload whose only cost that matters is its
// baseline allreduce (the compute and step times are not compared).
net::WorkloadSpec allreduce_workload(double bytes) {
  net::WorkloadSpec w;
  w.name = "nccl-tests-allreduce";
  w.parameters = static_cast<uint64_t>(bytes / 4);
  w.gradient_precision = net::Precision::kFp32;
  w.compute_precision = net::Precision::kFp32;
  w.forward_flops_per_sample = 1;  // a workload needs FLOPs; compute is not compared
  w.source = "nccl-tests all_reduce_perf, fp32 sum";
  return w;
}

std::string describe(const net::ClusterSpec& c) {
  return fmt::format(
      "{} x {} {} on {} {:.0f} Gbit/s; {} x {:.0f} Gbit/s {} NIC{} ({:.0f} us){}", c.nodes,
      c.gpus_per_node, c.gpu.name, net::intra_node_fabric_name(c.intra_node_fabric),
      c.intra_node_gbps, c.nics_per_node, c.inter_node_gbps, c.inter_node_transport.name,
      c.nics_per_node > 1 ? "s on rails" : "", 1e6 * c.inter_node_latency_s,
      c.inter_node_transport.streams_per_peer > 1
          ? fmt::format("; {} streams per peer", c.inter_node_transport.streams_per_peer)
          : "");
}

// The numeric part of a printed NCCL version ("2.4.7ms0", a vendor build, gives "2.4.7"),
// which sets the cluster's algorithm choice (allreduce_selection.h); "" stays a current NCCL.
std::string numeric_version(const std::string& printed) {
  const size_t end = printed.find_first_not_of("0123456789.");
  std::string version = printed.substr(0, end);
  while (!version.empty() && version.back() == '.') version.pop_back();
  return version;
}

}  // namespace

double bus_bandwidth(double bytes, double seconds, int ranks) {
  return bytes / seconds * net::allreduce_bus_factor(ranks);
}

net::ClusterSpec public_check_cluster(const net::NcclTestsRow& row) {
  net::ClusterSpec c;
  c.name = row.case_name;
  c.nodes = row.nodes;
  c.gpus_per_node = row.gpus_per_node;
  c.gpu = net::gpu_preset(row.gpu);
  net::use_intra_node_fabric(c, net::parse_intra_node_fabric(row.intra_node_fabric));
  c.nics_per_node = row.nics_per_node;
  c.rail_optimized = row.nics_per_node > 1;
  c.inter_node_gbps = row.nic_gbps;
  c.inter_node_latency_s = transport_latency_s(row.transport);
  c.inter_node_transport = net::transport_profile(row.transport);
  c.inter_node_transport.streams_per_peer = row.streams_per_peer;
  check_allreduce_algorithm(row.algorithm);
  c.allreduce_algorithm = row.algorithm;
  c.nccl_version = numeric_version(row.nccl_version);
  c.validate();
  return c;
}

double nccl_tests_allreduce_s(const net::ClusterSpec& cluster, double bytes,
                              std::string* algorithm) {
  Scenario s;
  s.cluster_spec = cluster;
  s.cluster = cluster.name;
  s.workload_spec = allreduce_workload(bytes);
  s.optimizer = "adam";
  s.overlap = OverlapMode::kOff;  // nccl-tests times the allreduce alone
  const StageTiming t = simulate_step(resolve_scenario(s)).front();
  if (algorithm != nullptr) *algorithm = t.algorithm;
  return t.comm_s;
}

PublicCheck predict_public_check(const net::NcclTestsRow& row) {
  const net::ClusterSpec cluster = public_check_cluster(row);
  PublicCheck check;
  check.cluster = describe(cluster);
  check.predicted_s = nccl_tests_allreduce_s(cluster, row.bytes, &check.algorithm);
  check.predicted_busbw_bytes_s = bus_bandwidth(row.bytes, check.predicted_s, row.ranks());
  check.published_s = row.published_s();
  check.published_busbw_bytes_s = row.busbw_bytes_s();
  check.error_pct = 100.0 * (check.predicted_s - check.published_s) / check.published_s;
  return check;
}

}  // namespace compopt::sim
