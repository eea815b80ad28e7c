#include "net_models/cluster_fabric.h"

#include <fmt/format.h>

#include <array>

#include "core/util/error.h"

namespace compopt::net {

namespace {

struct FabricName {
  IntraNodeFabric fabric;
  std::string_view name;
};
constexpr std::array<FabricName, 3> kFabricNames = {{{IntraNodeFabric::kPcie, "pcie"},
                                                     {IntraNodeFabric::kNvlink, "nvlink"},
                                                     {IntraNodeFabric::kNvswitch, "nvswitch"}}};

// Per-direction bandwidth of one GPU, Gbit/s. PCIe x16 (PCI-SIG): 3.0 = 15.75 GB/s,
// 4.0 = 31.5 GB/s, 5.0 = 63 GB/s. NVLink (NVIDIA V100, A100, H100 and B200 datasheets):
// 2.0 = 6 links x 25 GB/s (V100 SXM2, 300 GB/s both directions), 3.0 = 12 x 25 GB/s
// (A100 SXM4, 600 GB/s), 4.0 = 18 x 25 GB/s (H100/H200/H20 SXM, 900 GB/s), 5.0 = 18 x 50 GB/s
// (B200, GB200: 1.8 TB/s). The export variants A800 and H800 keep 400 GB/s both directions
// (docs/calibration.md, "GPU presets"): 8 links of their generation. B200 systems attach GPUs
// to their hosts and NICs over PCIe 5.0.
struct Generation {
  std::string_view gpu_prefix;  // matched in order: H200 before H20
  int pcie, nvlink;             // generations
  int nvlink_links;             // per GPU
};
constexpr std::array<Generation, 9> kGenerations = {{{"V100", 3, 2, 6},
                                                     {"A100", 4, 3, 12},
                                                     {"A800", 4, 3, 8},
                                                     {"H100", 5, 4, 18},
                                                     {"H200", 5, 4, 18},
                                                     {"H800", 5, 4, 8},
                                                     {"H20", 5, 4, 18},
                                                     {"B200", 5, 5, 18},
                                                     {"GB200", 5, 5, 18}}};
constexpr std::array<double, 6> kPcieGbps = {0, 0, 0, 126, 252, 504};  // by generation
// One NVLink's rate per direction, GB/s, by generation.
constexpr std::array<double, 6> kNvlinkLinkGBs = {0, 0, 25, 25, 25, 50};
// What NCCL's topology model assumes one link moves (NVIDIA/nccl src/graph/topo.h: NVLink
// 20 GB/s on SM70 and SM80, 20.6 on SM90, 40.1 on SM100, against 25, 25, 25 and 50 GB/s
// nominal; PCIe 12 GB/s per x16 at 8 GT/s, doubling per generation with the GT/s table of
// src/graph/topo.cc, against 15.75 GB/s): the payload share after NVLink's and PCIe's
// packet headers and NCCL's protocol, by generation.
constexpr std::array<double, 6> kNvlinkNcclEfficiency = {0,         0,         20.0 / 25,
                                                         20.0 / 25, 20.6 / 25, 40.1 / 50};
constexpr double kPcieNcclEfficiency = 12.0 / 15.75;
// Typical GPU-to-GPU latencies, as in the calibrated presets (docs/calibration.md): they
// change bandwidth-bound collectives by well under 1%.
constexpr double kPcieLatency = 10e-6, kNvlinkLatency = 5e-6;

}  // namespace

IntraNodeFabric parse_intra_node_fabric(std::string_view name) {
  for (const FabricName& f : kFabricNames) {
    if (f.name == name) return f.fabric;
  }
  throw InvalidArgument(
      fmt::format("intra_node_fabric '{}': expected pcie, nvlink or nvswitch", name));
}

std::string_view intra_node_fabric_name(IntraNodeFabric fabric) {
  for (const FabricName& f : kFabricNames) {
    if (f.fabric == fabric) return f.name;
  }
  return "unknown";
}

FabricLink fabric_link(IntraNodeFabric fabric, const GpuSpec& gpu) {
  for (const Generation& g : kGenerations) {
    if (gpu.name.rfind(g.gpu_prefix, 0) != 0) continue;
    if (fabric == IntraNodeFabric::kPcie) {
      const double gbps = kPcieGbps[static_cast<size_t>(g.pcie)];
      return {gbps, kPcieLatency, kPcieNcclEfficiency,
              fmt::format("PCIe {}.0 x16: {:g} GB/s per direction; NCCL reaches {:.3f} of it",
                          g.pcie, gbps / 8, kPcieNcclEfficiency)};
    }
    const auto gen = static_cast<size_t>(g.nvlink);
    return {g.nvlink_links * kNvlinkLinkGBs[gen] * 8, kNvlinkLatency, kNvlinkNcclEfficiency[gen],
            fmt::format("NVLink {}.0: {} x {:g} GB/s per direction; NCCL reaches {:.3f} of it",
                        g.nvlink, g.nvlink_links, kNvlinkLinkGBs[gen], kNvlinkNcclEfficiency[gen])};
  }
  throw InvalidArgument(fmt::format(
      "intra_node_fabric {}: no public link figure for GPU '{}' (known: V100, A100, A800, "
      "H100, H200, H800, H20, B200, GB200); set intra_node_gbps and intra_node_latency_s",
      intra_node_fabric_name(fabric), gpu.name));
}

}  // namespace compopt::net
