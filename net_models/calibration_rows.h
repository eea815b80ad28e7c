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

}  // namespace compopt::net
