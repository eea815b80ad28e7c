#pragma once
// The (workload, baseline, compressed optimizer) pairs that the bandwidth
// sweep and the break-even search compare, each on the cluster of the paper
// that measured it (only its inter-node bandwidth varies) and on its software, and the scenario of
// one side of a pair at a given GPU count and EFFECTIVE inter-node bandwidth:
// what collectives achieve (iperf-like), i.e. the preset's nominal NIC rate
// times its calibrated efficiency (docs/calibration.md).

#include <string>
#include <vector>

#include "sim/scenario.h"

namespace compopt::cli::reproduce {

struct CompressionPair {
  std::string workload, cluster, baseline, optimizer;
  std::string implementation;  // the paper's software (sim/implementation_profile.h)
};

const std::vector<CompressionPair>& compression_pairs();

sim::Scenario pair_scenario(const CompressionPair& pair, const std::string& optimizer, int gpus,
                            double effective_inter_node_gbps);

}  // namespace compopt::cli::reproduce
