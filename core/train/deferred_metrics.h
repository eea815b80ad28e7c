#pragma once
// DeferredMetrics: the training loop's per-step metric collectives batched over several steps
// (TrainOptions::metrics_every > 1). Each rank keeps its steps' train losses and cumulative
// optimizer byte counters; flush() gathers them in one allgather (under kMetricsTrafficLabel)
// and gives every rank exactly the values the per-step collectives give: the train loss as the
// fp32 ring allreduce (ReduceOp::kMean) of a one-element vector computes it (ring_mean_of_one),
// the byte counters summed over ranks and divided by the rank count.

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "core/comm/communicator.h"

namespace compopt {

// The mean that the fp32 ring allreduce with ReduceOp::kMean gives a one-element vector holding
// values[r] on rank r (core/comm/collectives/ring_allreduce.h: block 0 summed in the order
// 1, 2, ..., n-1, 0, then divided by n in float).
float ring_mean_of_one(std::span<const float> values);

// A step's rank means for its StepRecord.
struct StepMeans {
  float train_loss = 0;
  double bytes_sent = 0, bytes_sent_inter_node = 0;
};

// The means of one step from every rank's {bytes, inter-node bytes} (2 per rank, rank order).
StepMeans step_means(float train_loss, std::span<const uint64_t> all_sent);

class DeferredMetrics {
 public:
  // This rank's train loss and cumulative {bytes, inter-node bytes} of its next step.
  void add(float loss, const std::array<uint64_t, 2>& sent);
  // The collective (every rank at the same steps): the means of the steps added since the last
  // flush, in step order; starts a new batch.
  std::vector<StepMeans> flush(Communicator& comm);

 private:
  struct Entry {
    float loss = 0;
    uint32_t unused = 0;  // keeps the counters 8-byte aligned on the wire
    uint64_t bytes = 0, inter_node_bytes = 0;
  };
  std::vector<Entry> entries_;
};

}  // namespace compopt
