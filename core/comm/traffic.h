#pragma once
// Traffic counters of one world rank: bytes and messages it sent, split by the
// collective that sent them, and the bytes that crossed a node boundary.
// All communicators of a rank (the world and its splits) share one instance.
// Not thread-safe: a rank's counters are touched by that rank's thread only.

#include <cstdint>
#include <map>
#include <string>

namespace compopt {

struct TrafficTally {
  uint64_t bytes = 0;
  uint64_t messages = 0;
  uint64_t inter_node_bytes = 0;

  TrafficTally& operator+=(const TrafficTally& other);
  friend TrafficTally operator-(TrafficTally a, const TrafficTally& b);
  friend bool operator==(const TrafficTally&, const TrafficTally&) = default;
};

class TrafficCounters {
 public:
  // Label of sends made outside any collective.
  static constexpr const char* kPointToPoint = "p2p";

  void record(uint64_t bytes, bool crosses_node);
  const std::map<std::string, TrafficTally>& by_collective() const { return by_label_; }
  TrafficTally total() const;
  TrafficTally of(const std::string& label) const;
  void reset() { by_label_.clear(); }

  // The outermost active label wins: a compressed allreduce's inner all-to-all
  // is counted as "compressed_allreduce".
  class Scope {
   public:
    Scope(TrafficCounters& counters, const char* label);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    TrafficCounters& counters_;
    bool owns_;
  };

 private:
  std::map<std::string, TrafficTally> by_label_;
  const char* active_label_ = nullptr;
};

}  // namespace compopt
