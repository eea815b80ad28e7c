#include "core/comm/traffic.h"

namespace compopt {

TrafficTally& TrafficTally::operator+=(const TrafficTally& other) {
  bytes += other.bytes;
  messages += other.messages;
  inter_node_bytes += other.inter_node_bytes;
  return *this;
}

TrafficTally operator-(TrafficTally a, const TrafficTally& b) {
  a.bytes -= b.bytes;
  a.messages -= b.messages;
  a.inter_node_bytes -= b.inter_node_bytes;
  return a;
}

void TrafficCounters::record(uint64_t bytes, bool crosses_node) {
  TrafficTally& tally = by_label_[active_label_ ? active_label_ : kPointToPoint];
  tally.bytes += bytes;
  tally.messages += 1;
  if (crosses_node) tally.inter_node_bytes += bytes;
}

TrafficTally TrafficCounters::total() const {
  TrafficTally sum;
  for (const auto& [label, tally] : by_label_) sum += tally;
  return sum;
}

TrafficTally TrafficCounters::of(const std::string& label) const {
  const auto it = by_label_.find(label);
  return it == by_label_.end() ? TrafficTally{} : it->second;
}

TrafficCounters::Scope::Scope(TrafficCounters& counters, const char* label)
    : counters_(counters), owns_(counters.active_label_ == nullptr) {
  if (owns_) counters_.active_label_ = label;
}

TrafficCounters::Scope::~Scope() {
  if (owns_) counters_.active_label_ = nullptr;
}

}  // namespace compopt
