#include "experiments/registry_tables.h"

#include <fmt/format.h>

#include "experiments/reproduce/markdown_table.h"
#include "experiments/reproduce/study.h"
#include "net_models/cluster_presets.h"
#include "net_models/workload.h"

namespace compopt::cli {
namespace {

using reproduce::MarkdownTable;

std::string code_list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "`" : ", `") + n + "`";
  return out.empty() ? "—" : out;
}

std::string workloads_markdown() {
  MarkdownTable table({"preset", "aliases", "GPU", "parameters", "tensors", "gradient bytes",
                       "default batch/GPU", "what it models"});
  for (const net::WorkloadEntry& e : net::workload_registry().entries()) {
    const net::WorkloadProfile& w = e.profile;
    table.add({"`" + e.name + "`", code_list(e.aliases), w.gpu,
               fmt::format("{:.1f} M", static_cast<double>(w.parameters) / 1e6),
               std::to_string(w.tensors), std::to_string(w.wire_bytes),
               std::to_string(w.default_batch_per_gpu), e.help});
  }
  return table.str();
}

std::string clusters_markdown() {
  MarkdownTable table({"preset", "nodes", "GPUs/node", "GPU link Gbit/s", "NIC Gbit/s", "topology",
                       "what it models"});
  for (const net::ClusterEntry& e : net::cluster_registry().entries()) {
    const net::ClusterSpec& c = e.spec;
    table.add({"`" + e.name + "`", std::to_string(c.nodes), std::to_string(c.gpus_per_node),
               fmt::format("{:g}", c.intra_node_gbps), fmt::format("{:g}", c.inter_node_gbps),
               std::string(net::topology_name(c.topology)), e.help});
  }
  return table.str();
}

std::string studies_markdown() {
  MarkdownTable table({"study (`--only`)", "report section"});
  for (const reproduce::Study& s : reproduce::study_registry().entries())
    table.add({"`" + s.name + "`", s.help});
  return table.str();
}

Registry<RegistryListing> make_listings() {
  Registry<RegistryListing> r("registry");
  r.add({{"workloads", {}, "workload presets of profile, sweep and reproduce"},
         [] { return net::workload_registry().help_lines(); },
         workloads_markdown});
  r.add({{"clusters", {}, "cluster presets of profile, sweep, reproduce and train --backend sim"},
         [] { return net::cluster_registry().help_lines(); },
         clusters_markdown});
  r.add({{"studies", {}, "studies of compopt reproduce"},
         [] { return reproduce::study_registry().help_lines(); },
         studies_markdown});
  return r;
}

}  // namespace

const Registry<RegistryListing>& registry_listings() {
  static const Registry<RegistryListing> listings = make_listings();
  return listings;
}

}  // namespace compopt::cli
