#include "experiments/cli/registry_tables.h"

#include <fmt/format.h>

#include "core/optim/optimizer_registry.h"
#include "experiments/reproduce/markdown_table.h"
#include "experiments/reproduce/study.h"
#include "net_models/cluster_presets.h"
#include "net_models/gpu_spec.h"
#include "net_models/workload.h"
#include "sim/implementation_profile.h"

namespace compopt::cli {
namespace {

using reproduce::MarkdownTable;

std::string code_list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "`" : ", `") + n + "`";
  return out.empty() ? "—" : out;
}

std::string workloads_markdown() {
  MarkdownTable table({"preset", "aliases", "parameters", "layers", "tensors", "GFLOP/sample fwd",
                       "compute", "gradient", "default batch/GPU", "what it models"});
  for (const net::WorkloadEntry& e : net::workload_registry().entries()) {
    const net::WorkloadSpec& w = e.spec;
    table.add({"`" + e.name + "`", code_list(e.aliases),
               fmt::format("{:.1f} M", static_cast<double>(w.parameters) / 1e6),
               std::to_string(w.layers), std::to_string(w.tensors),
               fmt::format("{:.1f}", w.forward_flops_per_sample / 1e9),
               std::string(net::precision_name(w.compute_precision)),
               std::string(net::precision_name(w.gradient_precision)),
               std::to_string(w.default_batch_per_gpu), e.help});
  }
  return table.str();
}

std::string clusters_markdown() {
  MarkdownTable table({"preset", "GPU", "nodes", "GPUs/node", "GPU link Gbit/s", "NIC Gbit/s",
                       "topology", "fabric", "NICs/node", "what it models"});
  for (const net::ClusterEntry& e : net::cluster_registry().entries()) {
    const net::ClusterSpec& c = e.spec;
    table.add({"`" + e.name + "`", c.gpu.name, std::to_string(c.nodes),
               std::to_string(c.gpus_per_node), fmt::format("{:g}", c.intra_node_gbps),
               fmt::format("{:g}", c.inter_node_gbps), std::string(net::topology_name(c.topology)),
               std::string(net::intra_node_fabric_name(c.intra_node_fabric)),
               fmt::format("{}{}", c.nics_per_node, c.rail_optimized ? " (rails)" : ""), e.help});
  }
  return table.str();
}

std::string gpus_markdown() {
  MarkdownTable table({"GPU", "aliases", "fp32", "tf32", "fp16", "bf16", "fp8", "HBM GB",
                       "HBM GB/s", "max utilisation", "layer overhead ms", "utilisation from",
                       "fp16/bf16/fp8 max utilisation", "from"});
  auto tflops = [](double v) { return v > 0 ? fmt::format("{:g}", v) : std::string("—"); };
  for (const net::GpuEntry& e : net::gpu_registry().entries()) {
    const net::GpuSpec& g = e.spec;
    table.add({"`" + e.name + "`", code_list(e.aliases), tflops(g.fp32_tflops),
               tflops(g.tf32_tflops), tflops(g.fp16_tflops), tflops(g.bf16_tflops),
               tflops(g.fp8_tflops), fmt::format("{:g}", g.hbm_gb), fmt::format("{:g}", g.hbm_gbps),
               fmt::format("{:.4f}", g.max_utilization),
               fmt::format("{:.4f}", 1e3 * g.layer_overhead_s), g.calibration,
               g.tensor_max_utilization > 0 ? fmt::format("{:.4f}", g.tensor_max_utilization)
                                            : std::string("— (the one above)"),
               g.tensor_max_utilization > 0 ? g.tensor_calibration : std::string("—")});
  }
  return table.str();
}

std::string implementations_markdown() {
  MarkdownTable table({"profile", "aliases", "issue point", "default bucket", "ZeRO stage",
                       "compressed collectives", "what it models"});
  for (const sim::ImplementationProfile& p : sim::implementation_registry().entries()) {
    const std::string bucket = p.bucket_elements > 0
                                   ? fmt::format("{:g} elements", p.bucket_elements)
                                   : fmt::format("{:g} MiB", p.bucket_bytes / (1 << 20));
    table.add({"`" + p.name + "`", code_list(p.aliases), p.issue_text, bucket,
               std::to_string(p.zero_stage), "`" + p.compressed_collectives + "`", p.help});
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
  r.add({{"gpus", {}, "GPU types of clusters (peak FLOP/s, HBM, utilisation curve)"},
         [] { return net::gpu_registry().help_lines(); },
         gpus_markdown});
  r.add({{"implementations", {}, "implementation profiles of profile, sweep and compopt.simulate"},
         [] { return sim::implementation_registry().help_lines(); },
         implementations_markdown});
  r.add({{"studies", {}, "studies of compopt reproduce"},
         [] { return reproduce::study_registry().help_lines(); },
         studies_markdown});
  r.add({{"optimizers", {}, "optimizers of train, profile, sweep and compopt.torch"},
         [] { return optimizer_registry().help_lines(); },
         optimizer_table_markdown});
  r.add({{"optimizer-stages", {}, "what each optimizer stage communicates (docs/optimizers.md)"},
         [] { return optimizer_registry().help_lines(); },
         optimizer_stage_table_markdown});
  return r;
}

}  // namespace

const Registry<RegistryListing>& registry_listings() {
  static const Registry<RegistryListing> listings = make_listings();
  return listings;
}

}  // namespace compopt::cli
