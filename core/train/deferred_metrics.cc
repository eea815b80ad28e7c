#include "core/train/deferred_metrics.h"

#include "core/train/train_loop.h"

namespace compopt {

float ring_mean_of_one(std::span<const float> values) {
  const size_t n = values.size();
  float sum = values[1 % n];
  for (size_t k = 2; k <= n; ++k) sum = sum + values[k % n];
  return sum / static_cast<float>(n);
}

StepMeans step_means(float train_loss, std::span<const uint64_t> all_sent) {
  uint64_t bytes = 0, inter = 0;
  for (size_t r = 0; r + 1 < all_sent.size(); r += 2) {
    bytes += all_sent[r];
    inter += all_sent[r + 1];
  }
  const double ranks = static_cast<double>(all_sent.size()) / 2.0;
  return {train_loss, static_cast<double>(bytes) / ranks, static_cast<double>(inter) / ranks};
}

void DeferredMetrics::add(float loss, const std::array<uint64_t, 2>& sent) {
  entries_.push_back({.loss = loss, .bytes = sent[0], .inter_node_bytes = sent[1]});
}

std::vector<StepMeans> DeferredMetrics::flush(Communicator& comm) {
  const auto ranks = static_cast<size_t>(comm.size());
  const size_t steps = entries_.size();
  std::vector<Entry> all(ranks * steps);
  {
    TrafficCounters::Scope scope(comm.traffic(), kMetricsTrafficLabel);
    comm.allgather(std::as_bytes(std::span<const Entry>(entries_)),
                   std::as_writable_bytes(std::span<Entry>(all)));
  }
  entries_.clear();
  std::vector<StepMeans> out(steps);
  std::vector<float> losses(ranks);
  std::vector<uint64_t> sent(2 * ranks);
  for (size_t s = 0; s < steps; ++s) {
    for (size_t r = 0; r < ranks; ++r) {
      const Entry& e = all[r * steps + s];
      losses[r] = e.loss;
      sent[2 * r] = e.bytes;
      sent[2 * r + 1] = e.inter_node_bytes;
    }
    out[s] = step_means(ring_mean_of_one(losses), sent);
  }
  return out;
}

}  // namespace compopt
