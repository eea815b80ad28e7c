#pragma once
// The published rows the simulator is calibrated and compared against, parsed once from the
// tables of data/published/ that are embedded in the binary (published_tables.h).
// - onebit_adam_profile.csv: 1-bit Adam (Tang et al., ICML 2021), Table 1: BERT-Large
//   seq 128, baseline Adam, fp16 gradients; 13 rows, the calibration targets of the network
//   model (docs/calibration.md). Times in ms.
// - birder_single_node.csv: Birder (Peng et al., NeurIPS 2023), Tables 1 and 2, one node of
//   8 A100-80GB; 9 rows of throughput in samples/s. The baseline rows (sgdm, bertadam) set
//   the A100 workload presets' compute; the compressed rows are not fitted
//   (docs/simulator.md).
// Thread-safe (function-local statics).

#include <string>
#include <string_view>
#include <vector>

namespace compopt::net {

struct ProfileRow {
  std::string cluster;  // preset name
  int nodes, gpus, batch_per_gpu, grad_accum;
  double forward_ms, allreduce_ms, backward_else_ms, step_ms, allreduce_pct;
};

const std::vector<ProfileRow>& onebit_adam_profile_rows();

struct ThroughputRow {
  std::string workload;   // preset name
  std::string optimizer;  // step simulator name
  int gpus, batch_per_gpu;
  double throughput_samples_s;
};

const std::vector<ThroughputRow>& birder_single_node_rows();

// Parsers of the two tables' text, for the functions above and for tests; `source` names the
// text in error messages. Throw InvalidArgument on a missing column, a malformed number or
// (profile) a network without a cluster preset.
std::vector<ProfileRow> parse_profile_rows(std::string_view csv, std::string_view source);
std::vector<ThroughputRow> parse_throughput_rows(std::string_view csv, std::string_view source);

}  // namespace compopt::net
