#include "experiments/scenario/cluster_table.h"

#include <fmt/format.h>

#include <climits>
#include <functional>
#include <vector>

#include "core/util/error.h"
#include "core/util/file_io.h"
#include "core/util/io_error.h"
#include "experiments/scenario/toml_values.h"
#include "net_models/cluster_presets.h"
#include "net_models/nccl_version.h"
#include "sim/allreduce_algorithm.h"

namespace compopt::cli {
namespace {

using net::ClusterSpec;
using net::GpuSpec;

// [cluster.gpu]: a GPU preset (preset key, default the cluster's GPU) with fields replaced.
const std::vector<std::pair<const char*, double GpuSpec::*>> kGpuNumbers = {
    {"fp32_tflops", &GpuSpec::fp32_tflops},
    {"tf32_tflops", &GpuSpec::tf32_tflops},
    {"fp16_tflops", &GpuSpec::fp16_tflops},
    {"bf16_tflops", &GpuSpec::bf16_tflops},
    {"fp8_tflops", &GpuSpec::fp8_tflops},
    {"hbm_gb", &GpuSpec::hbm_gb},
    {"hbm_gbps", &GpuSpec::hbm_gbps},
    {"max_utilization", &GpuSpec::max_utilization},
    {"tensor_max_utilization", &GpuSpec::tensor_max_utilization},
    {"layer_overhead_s", &GpuSpec::layer_overhead_s}};

// A utilisation given in the config replaces the preset's curve and its source: max_utilization
// alone applies to every precision (the preset's tensor-core figure is dropped).
void note_config_utilization(GpuSpec& gpu, const toml::table& table) {
  constexpr const char* kSource = "the cluster config ([cluster.gpu])";
  if (table.contains("max_utilization") || table.contains("layer_overhead_s"))
    gpu.calibration = kSource;
  if (table.contains("max_utilization") && !table.contains("tensor_max_utilization"))
    gpu.tensor_max_utilization = 0;
  if (table.contains("tensor_max_utilization") || table.contains("layer_overhead_s"))
    gpu.tensor_calibration = kSource;
}

GpuSpec gpu_of(const toml::node& node, const GpuSpec& base) {
  if (node.is_string()) return net::gpu_preset(text_of(node, "cluster.gpu"));
  const toml::table* table = node.as_table();
  if (table == nullptr) {
    throw InvalidArgument(
        fmt::format("cluster.gpu {}: expected a GPU name or a [cluster.gpu] table", where(node)));
  }
  std::set<std::string> known = {"preset", "name"};
  for (const auto& [key, field] : kGpuNumbers) known.insert(key);
  check_table_keys(*table, known, "cluster.gpu");
  GpuSpec gpu = base;
  if (const toml::node* p = table->get("preset"))
    gpu = net::gpu_preset(text_of(*p, "cluster.gpu.preset"));
  if (const toml::node* n = table->get("name")) gpu.name = text_of(*n, "cluster.gpu.name");
  for (const auto& [key, field] : kGpuNumbers) {
    if (const toml::node* n = table->get(key))
      gpu.*field = number_of(*n, std::string("cluster.gpu.") + key);
  }
  note_config_utilization(gpu, *table);
  gpu.validate();
  return gpu;
}

std::vector<int> dims_of(const toml::node& node, const std::string& key) {
  const toml::array* array = node.as_array();
  if (array == nullptr)
    throw InvalidArgument(fmt::format("{} {}: expected an array of integers", key, where(node)));
  std::vector<int> dims;
  for (const toml::node& item : *array) dims.push_back(integer_of(item, key));
  return dims;
}

using Setter = std::function<void(ClusterSpec&, const toml::node&, const std::string&)>;

Setter number_field(double ClusterSpec::*field) {
  return [field](ClusterSpec& c, const toml::node& n, const std::string& k) {
    c.*field = number_of(n, k);
  };
}

// A spread factor given in the config: its source becomes the config unless it names one.
Setter spread_field(double ClusterSpec::*field) {
  return [field](ClusterSpec& c, const toml::node& n, const std::string& k) {
    c.*field = number_of(n, k);
    c.spread_source = "the cluster config";
  };
}

Setter count_field(int ClusterSpec::*field) {
  return [field](ClusterSpec& c, const toml::node& n, const std::string& k) {
    c.*field = integer_of(n, k);
  };
}

// One key of [cluster] and how it sets the spec, applied in this order: the GPU first, then
// the fabric (whose link and transport depend on the GPU and fabric), then the figures that
// may replace them.
struct ClusterKey {
  std::string name;
  Setter set;
};

using TransportMember = net::TransportProfile ClusterSpec::*;

// `<side>_transport` (a registry name) and `<side>_<field>` replacing one field of it.
void add_transport_keys(std::vector<ClusterKey>& keys, const std::string& side,
                        TransportMember member) {
  keys.push_back(
      {side + "_transport", [member](ClusterSpec& c, const toml::node& n, const std::string& k) {
         try {
           c.*member = net::transport_profile(text_of(n, k));
         } catch (const InvalidArgument& e) {
           throw InvalidArgument(fmt::format("{}: {}", k, e.what()));
         }
       }});
  for (const net::TransportField& field : net::transport_fields()) {
    keys.push_back({side + "_" + field.name,
                    [member, field](ClusterSpec& c, const toml::node& n, const std::string& k) {
                      field.set(c.*member, field.integer ? integer_of(n, k) : number_of(n, k));
                    }});
  }
}

// intra_node_fabric: sets the GPU link's rate, latency, NCCL efficiency and transport from
// the fabric's public figures (net_models/cluster_fabric.h); keys after it may replace them.
void read_intra_node_fabric(ClusterSpec& c, const toml::node& n, const std::string& k) {
  net::use_intra_node_fabric(c, net::parse_intra_node_fabric(text_of(n, k)));
}

// nccl_version: a quoted string (net_models/nccl_version.h); 2.10 as a TOML number would
// read as 2.1, so numbers are refused with the quoting to use.
void read_nccl_version(ClusterSpec& c, const toml::node& n, const std::string& k) {
  if (!n.is_string()) {
    throw InvalidArgument(
        fmt::format("{0}: expected a version string in quotes, e.g. {0} = \"2.4\" (with --set: "
                    "'{0}=\"2.4\"')",
                    k));
  }
  c.nccl_version = text_of(n, k);
  net::parse_nccl_version(c.nccl_version);
}

std::vector<ClusterKey> make_cluster_keys() {
  std::vector<ClusterKey> keys = {
      {"name",
       [](ClusterSpec& c, const toml::node& n, const std::string& k) { c.name = text_of(n, k); }},
      {"gpu",
       [](ClusterSpec& c, const toml::node& n, const std::string&) { c.gpu = gpu_of(n, c.gpu); }},
      {"intra_node_fabric", read_intra_node_fabric},
      {"nodes", count_field(&ClusterSpec::nodes)},
      {"gpus_per_node",
       [](ClusterSpec& c, const toml::node& n, const std::string& k) {
         if (const int v = integer_of(n, k); v != 0) c.gpus_per_node = v;
       }},
      {"intra_node_gbps", number_field(&ClusterSpec::intra_node_gbps)},
      {"intra_node_latency_s", number_field(&ClusterSpec::intra_node_latency_s)},
      {"intra_node_efficiency", number_field(&ClusterSpec::intra_node_efficiency)},
      {"nics_per_node", count_field(&ClusterSpec::nics_per_node)},
      {"rail_optimized", [](ClusterSpec& c, const toml::node& n,
                            const std::string& k) { c.rail_optimized = bool_of(n, k); }},
      {"inter_node_gbps", number_field(&ClusterSpec::inter_node_gbps)},
      {"inter_node_latency_s", number_field(&ClusterSpec::inter_node_latency_s)},
      {"inter_node_efficiency", number_field(&ClusterSpec::inter_node_efficiency)},
      {"topology", [](ClusterSpec& c, const toml::node& n,
                      const std::string& k) { c.topology = net::parse_topology(text_of(n, k)); }},
      {"nodes_per_switch", count_field(&ClusterSpec::nodes_per_switch)},
      {"uplink_gbps", number_field(&ClusterSpec::uplink_gbps)},
      {"oversubscription", number_field(&ClusterSpec::oversubscription)},
      {"torus_dims", [](ClusterSpec& c, const toml::node& n,
                        const std::string& k) { c.torus_dims = dims_of(n, k); }},
      {"dragonfly_groups", count_field(&ClusterSpec::dragonfly_groups)},
      {"network_model", [](ClusterSpec& c, const toml::node& n,
                           const std::string& k) { c.network_model = text_of(n, k); }},
      {"latency_factor", number_field(&ClusterSpec::latency_factor)},
      {"bandwidth_factor", number_field(&ClusterSpec::bandwidth_factor)},
      {"inter_node_spread_low", spread_field(&ClusterSpec::inter_node_spread_low)},
      {"inter_node_spread_high", spread_field(&ClusterSpec::inter_node_spread_high)},
      {"intra_node_spread_low", spread_field(&ClusterSpec::intra_node_spread_low)},
      {"intra_node_spread_high", spread_field(&ClusterSpec::intra_node_spread_high)},
      {"spread_source", [](ClusterSpec& c, const toml::node& n,
                           const std::string& k) { c.spread_source = text_of(n, k); }},
      {"platform", [](ClusterSpec& c, const toml::node& n,
                      const std::string& k) { c.platform_file = text_of(n, k); }},
      {"allreduce_algorithm",
       [](ClusterSpec& c, const toml::node& n, const std::string& k) {
         c.allreduce_algorithm = text_of(n, k);
         sim::check_allreduce_algorithm(c.allreduce_algorithm);
       }},
      {"nccl_version", read_nccl_version},
  };
  add_transport_keys(keys, "inter_node", &ClusterSpec::inter_node_transport);
  add_transport_keys(keys, "intra_node", &ClusterSpec::intra_node_transport);
  return keys;
}

const std::vector<ClusterKey>& cluster_keys() {
  static const std::vector<ClusterKey> keys = make_cluster_keys();
  return keys;
}

// The base spec: `preset`, else `name` when it is a preset, else ClusterSpec's defaults (a
// new cluster, efficiencies 1).
ClusterSpec base_of(const toml::table& table) {
  if (const toml::node* preset = table.get("preset")) {
    return net::cluster_preset(text_of(*preset, "cluster.preset"));
  }
  const toml::node* name = table.get("name");
  if (name != nullptr && net::cluster_registry().contains(text_of(*name, "cluster.name"))) {
    return net::cluster_preset(text_of(*name, "cluster.name"));
  }
  return ClusterSpec{};
}

}  // namespace

const std::set<std::string>& cluster_config_keys() {
  static const std::set<std::string> keys = [] {
    std::set<std::string> out = {"preset"};
    for (const ClusterKey& k : cluster_keys()) out.insert(k.name);
    return out;
  }();
  return keys;
}

std::string cluster_origin(const ClusterSpec& cluster, bool described) {
  if (cluster.preset.empty()) {
    return fmt::format(
        "cluster: '{}' described by its keys, from the plain defaults (no preset, nothing fitted: "
        "NIC efficiency {:.4g}, GPU-link efficiency {:.4g}; docs/simulator.md \"Describe any "
        "cluster\")",
        cluster.name, cluster.inter_node_efficiency, cluster.intra_node_efficiency);
  }
  if (!described) return fmt::format("cluster: preset {}", cluster.preset);
  return fmt::format(
      "cluster: '{}' built on preset {} (its values, fitted efficiencies included, where no key "
      "replaces them: NIC efficiency {:.4g}, GPU-link efficiency {:.4g})",
      cluster.name, cluster.preset, cluster.inter_node_efficiency, cluster.intra_node_efficiency);
}

ClusterSpec cluster_from_config(const toml::table& cluster_table) {
  check_table_keys(cluster_table, cluster_config_keys(), "cluster");
  ClusterSpec spec = base_of(cluster_table);
  for (const ClusterKey& key : cluster_keys()) {
    if (const toml::node* n = cluster_table.get(key.name))
      key.set(spec, *n, std::string("cluster.") + key.name);
  }
  spec.validate();
  return spec;
}

ClusterSpec cluster_from_file(const std::string& path) {
  std::string text;
  try {
    text = read_text_file(path);
  } catch (const IoError& e) {
    throw InvalidArgument(fmt::format("cluster file '{}': {}", path, e.what()));
  }
  const toml::table root = parse_toml_document(text, path, "cluster file");
  const toml::table* table = root["cluster"].as_table();
  if (table == nullptr)
    throw InvalidArgument(fmt::format("cluster file '{}': no [cluster] table", path));
  try {
    return cluster_from_config(*table);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(fmt::format("cluster file '{}': {}", path, e.what()));
  }
}

}  // namespace compopt::cli
