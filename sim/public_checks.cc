#include "sim/public_checks.h"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "core/util/error.h"
#include "net_models/cluster_fabric.h"
#include "net_models/transport_profile.h"
#include "sim/allreduce_algorithm.h"
#include "sim/collective_prediction.h"
#include "sim/input_ranges.h"

namespace compopt::sim {
namespace {

// Node-to-node latency by transport: the calibrated presets' figures (cluster_presets.cc:
// 50 us for Ethernet/TCP, 2 us for InfiniBand), not fitted to the public cases. EFA takes the
// InfiniBand figure: no public EFA latency was found; on the 1 GiB rows it moves the time by
// well under 0.1%.
constexpr std::array<std::pair<std::string_view, double>, 3> kTransportLatencyS = {{
    {"tcp", 50e-6},
    {"rdma", 2e-6},
    {"efa", 2e-6},
}};

double transport_latency_s(std::string_view transport) {
  for (const auto& [name, latency_s] : kTransportLatencyS)
    if (name == transport) return latency_s;
  throw InvalidArgument(fmt::format("transport '{}', expected tcp, rdma or efa", transport));
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

PublicCheck predict_public_check(const net::NcclTestsRow& row) {
  const net::ClusterSpec cluster = public_check_cluster(row);
  const AllreducePrediction p = predict_allreduce(cluster, row.bytes);
  PublicCheck check;
  check.cluster = describe_cluster_network(cluster);
  check.algorithm = p.algorithm;
  check.predicted_s = p.seconds;
  const Band band = allreduce_network_band(cluster, row.bytes, p.seconds);
  check.predicted_low_s = band.low;
  check.predicted_high_s = band.high;
  check.predicted_busbw_bytes_s = bus_bandwidth(row.bytes, p.seconds, row.ranks());
  check.published_s = row.published_s();
  check.published_busbw_bytes_s = row.busbw_bytes_s();
  check.error_pct = 100.0 * (check.predicted_s - check.published_s) / check.published_s;
  return check;
}

}  // namespace compopt::sim
