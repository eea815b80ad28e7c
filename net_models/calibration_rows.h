#pragma once
// The 13 rows of reference/onebit_adam_profile.csv (1-bit Adam, Tang et al.,
// ICML 2021, Table 1: BERT-Large seq 128, baseline Adam, fp16 gradients), the
// calibration targets of the network model (docs/calibration.md). Times in ms.

#include <string>
#include <vector>

namespace compopt::net {

struct ProfileRow {
  std::string cluster;  // preset name
  int nodes, gpus, batch_per_gpu, grad_accum;
  double forward_ms, allreduce_ms, backward_else_ms, step_ms, allreduce_pct;
};

const std::vector<ProfileRow>& onebit_adam_profile_rows();

// The 9 rows of reference/birder_single_node.csv (Birder, Peng et al., NeurIPS
// 2023, Tables 1 and 2, single node of 8 A100-80GB): throughput in samples/s.
// The baseline rows (sgdm, bertadam) set the A100 workload presets' compute;
// the compressed rows are not fitted (docs/simulator.md).
struct ThroughputRow {
  std::string workload;   // preset name
  std::string optimizer;  // step simulator name
  int gpus, batch_per_gpu;
  double throughput_samples_s;
};

const std::vector<ThroughputRow>& birder_single_node_rows();

}  // namespace compopt::net
