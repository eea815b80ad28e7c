#include "experiments/calibration/cluster_toml.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <utility>
#include <vector>

#include "net_models/transport_profile.h"

namespace compopt::calibration {
namespace {

using net::ClusterSpec;

// A TOML float or integer that reads back to the same double (the shortest round trip).
std::string number(double v) { return fmt::format("{}", v); }

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

const std::vector<std::pair<const char*, double ClusterSpec::*>> kNumbers = {
    {"intra_node_gbps", &ClusterSpec::intra_node_gbps},
    {"intra_node_latency_s", &ClusterSpec::intra_node_latency_s},
    {"intra_node_efficiency", &ClusterSpec::intra_node_efficiency},
    {"inter_node_gbps", &ClusterSpec::inter_node_gbps},
    {"inter_node_latency_s", &ClusterSpec::inter_node_latency_s},
    {"inter_node_efficiency", &ClusterSpec::inter_node_efficiency},
    {"uplink_gbps", &ClusterSpec::uplink_gbps},
    {"oversubscription", &ClusterSpec::oversubscription},
    {"latency_factor", &ClusterSpec::latency_factor},
    {"bandwidth_factor", &ClusterSpec::bandwidth_factor}};

const std::vector<std::pair<const char*, double ClusterSpec::*>> kSpreads = {
    {"inter_node_spread_low", &ClusterSpec::inter_node_spread_low},
    {"inter_node_spread_high", &ClusterSpec::inter_node_spread_high},
    {"intra_node_spread_low", &ClusterSpec::intra_node_spread_low},
    {"intra_node_spread_high", &ClusterSpec::intra_node_spread_high}};

const std::vector<std::pair<const char*, double net::GpuSpec::*>> kGpuNumbers = {
    {"fp32_tflops", &net::GpuSpec::fp32_tflops},
    {"tf32_tflops", &net::GpuSpec::tf32_tflops},
    {"fp16_tflops", &net::GpuSpec::fp16_tflops},
    {"bf16_tflops", &net::GpuSpec::bf16_tflops},
    {"fp8_tflops", &net::GpuSpec::fp8_tflops},
    {"hbm_gb", &net::GpuSpec::hbm_gb},
    {"hbm_gbps", &net::GpuSpec::hbm_gbps},
    {"max_utilization", &net::GpuSpec::max_utilization},
    {"tensor_max_utilization", &net::GpuSpec::tensor_max_utilization},
    {"layer_overhead_s", &net::GpuSpec::layer_overhead_s}};

void add_transport(std::string& out, const std::string& side, const net::TransportProfile& t) {
  if (net::transport_registry().contains(t.name))
    out += fmt::format("{}_transport = {}\n", side, quoted(t.name));
  for (const net::TransportField& f : net::transport_fields())
    out += fmt::format("{}_{} = {}\n", side, f.name, number(f.get(t)));
}

std::string gpu_table(const net::GpuSpec& gpu) {
  std::string out = "\n[cluster.gpu]\n";
  if (net::gpu_registry().contains(gpu.name)) out += fmt::format("preset = {}\n", quoted(gpu.name));
  out += fmt::format("name = {}\n", quoted(gpu.name));
  for (const auto& [key, field] : kGpuNumbers)
    out += fmt::format("{} = {}\n", key, number(gpu.*field));
  return out;
}

}  // namespace

std::string cluster_toml(const ClusterSpec& c, const std::string& header) {
  std::string out = header + "[cluster]\n";
  out += fmt::format("name = {}\n", quoted(c.name));
  out += fmt::format("intra_node_fabric = {}\n",
                     quoted(std::string(net::intra_node_fabric_name(c.intra_node_fabric))));
  out += fmt::format("nodes = {}\ngpus_per_node = {}\nnics_per_node = {}\n", c.nodes,
                     c.gpus_per_node, c.nics_per_node);
  out += fmt::format("rail_optimized = {}\n", c.rail_optimized);
  for (const auto& [key, field] : kNumbers) out += fmt::format("{} = {}\n", key, number(c.*field));
  out += fmt::format("topology = {}\nnodes_per_switch = {}\ndragonfly_groups = {}\n",
                     quoted(std::string(net::topology_name(c.topology))), c.nodes_per_switch,
                     c.dragonfly_groups);
  if (!c.torus_dims.empty())
    out += fmt::format("torus_dims = [{}]\n", fmt::join(c.torus_dims, ", "));
  out += fmt::format("network_model = {}\n", quoted(c.network_model));
  for (const auto& [key, field] : kSpreads)
    if (c.*field != 0) out += fmt::format("{} = {}\n", key, number(c.*field));
  if (!c.spread_source.empty()) out += fmt::format("spread_source = {}\n", quoted(c.spread_source));
  if (!c.platform_file.empty()) out += fmt::format("platform = {}\n", quoted(c.platform_file));
  out += fmt::format("allreduce_algorithm = {}\n", quoted(c.allreduce_algorithm));
  if (!c.nccl_version.empty()) out += fmt::format("nccl_version = {}\n", quoted(c.nccl_version));
  add_transport(out, "inter_node", c.inter_node_transport);
  add_transport(out, "intra_node", c.intra_node_transport);
  return out + gpu_table(c.gpu);
}

}  // namespace compopt::calibration
