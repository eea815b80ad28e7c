#pragma once
// One row of the step simulator (step_simulator.h): the timing of one optimizer stage's step,
// and its JSON form. The JSON is how a timing leaves the forked process it was simulated in
// (experiments/scenario/forked_simulation.h), so it is lossless: every field, each double
// exactly (finite values as JSON numbers, which round-trip; inf and nan as the strings "inf",
// "-inf", "nan"). Reading JSON that lacks a field (nlohmann::json::out_of_range, naming it) or
// has one of the wrong type throws.

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace compopt::sim {

struct StageTiming {
  std::string stage;
  double forward_s = 0, backward_compute_s = 0;
  double comm_s = 0;  // allreduce time not hidden behind backward compute
  double compress_s = 0, step_s = 0;
  double step_time_s = 0;
  double throughput_samples_s = 0;
  double bytes_per_gpu = 0;        // modeled bytes sent by the busiest GPU in the allreduce
  double inter_node_bytes = 0;     // modeled bytes leaving each node (mean over nodes)
  double compute_utilization = 0;  // achieved fraction of the GPU's peak in forward/backward
  // The allreduce algorithm charged (allreduce_algorithm.h: "ring", "tree"; with overlap,
  // a bucket's), or the compressed scheme ("compressed-flat", "compressed-hierarchical").
  std::string algorithm;
  // Collectives the stage's vector went out in: 1 after backward, else the buckets behind
  // backward (step_simulator.h).
  int buckets = 0;
  double allreduce_pct() const { return step_time_s > 0 ? 100.0 * comm_s / step_time_s : 0; }
};

void to_json(nlohmann::json& j, const StageTiming& t);
void from_json(const nlohmann::json& j, StageTiming& t);

}  // namespace compopt::sim
