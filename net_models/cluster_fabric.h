#pragma once
// The intra-node fabric of a cluster node (PCIe, NVLink, NVSwitch) and the per-GPU link
// it gives each GPU generation, from public datasheets (docs/simulator.md, "Intra-node
// fabric"). The simulator gives every GPU one full-duplex link to its node's switch; the
// fabric only chooses that link's default rate and latency when a config leaves them out.

#include <string>
#include <string_view>

#include "net_models/gpu_spec.h"

namespace compopt::net {

enum class IntraNodeFabric { kPcie, kNvlink, kNvswitch };

// Parses "pcie" | "nvlink" | "nvswitch"; throws InvalidArgument otherwise.
IntraNodeFabric parse_intra_node_fabric(std::string_view name);
std::string_view intra_node_fabric_name(IntraNodeFabric fabric);

struct FabricLink {
  double gbps = 0;       // per GPU and direction
  double latency_s = 0;  // GPU to GPU through the node
  // The share of `gbps` NCCL's collectives reach: NCCL's own per-link bandwidth figure (its
  // topology model, src/graph/topo.h) over the nominal rate, e.g. 20 of 25 GB/s per NVLink.
  double efficiency = 1;
  std::string source;  // the generation and datasheet figure, e.g. "NVLink 4.0: ..."
};

// The per-GPU link of `fabric` for `gpu` (matched by the start of the GPU's name: V100, A100,
// A800, H100, H200, H800, H20, B200, GB200), with NCCL's efficiency on it. Throws InvalidArgument
// naming the GPU when no public figure is known.
FabricLink fabric_link(IntraNodeFabric fabric, const GpuSpec& gpu);

}  // namespace compopt::net
