#include "sim/backend/sim_backend.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "core/util/error.h"
#include "net_models/cluster_spec.h"
#include "sim/backend/sim_world.h"

namespace compopt::sim {
namespace {

// The settings (WorldOptions::extras) the star takes, each setting one link property.
struct Setting {
  const char* name;
  void (*apply)(net::ClusterSpec& cluster, double value);
};
constexpr Setting kSettings[] = {
    {"link_gbps", [](net::ClusterSpec& c, double v) { c.inter_node_gbps = v; }},
    {"latency_us", [](net::ClusterSpec& c, double v) { c.inter_node_latency_s = v * 1e-6; }},
    {"link_efficiency", [](net::ClusterSpec& c, double v) { c.inter_node_efficiency = v; }},
};

// The star cluster of a WorldOptions (see sim_backend.h).
net::ClusterSpec star_cluster(const WorldOptions& options) {
  net::ClusterSpec cluster;
  cluster.name = "sim-backend";
  cluster.gpus_per_node = options.gpus_per_node > 0 ? options.gpus_per_node : options.ranks;
  cluster.nodes = (options.ranks + cluster.gpus_per_node - 1) / cluster.gpus_per_node;
  for (const auto& [key, value] : options.extras) {
    const auto* setting = std::find_if(std::begin(kSettings), std::end(kSettings),
                                       [&name = key](const Setting& s) { return name == s.name; });
    if (setting == std::end(kSettings)) {
      throw InvalidArgument(
          fmt::format("backend '{}': unknown setting '{}', expected link_gbps, latency_us or "
                      "link_efficiency",
                      kSimBackendName, key));
    }
    setting->apply(cluster, value);
  }
  return cluster;
}

class SimBackend : public Backend {
 public:
  std::string available() const override { return ""; }

  void run(const WorldOptions& options, const WorldFn& fn) const override {
    const net::ClusterSpec cluster = star_cluster(options);
    run_sim(cluster, options.ranks, cluster.gpus_per_node, fn);
  }
};

}  // namespace

void register_sim_backend(BackendRegistry& registry) {
  BackendEntry entry;
  entry.name = kSimBackendName;
  entry.help = "ranks as SimGrid actors on a simulated cluster, simulated time";
  entry.traits = {.in_process = true, .launched = false, .trains = true, .simulated = true};
  entry.backend = std::make_shared<SimBackend>();
  registry.add(std::move(entry));
}

}  // namespace compopt::sim
