#pragma once
// Named phases of a collective on one rank's clock, for traces of a simulated step
// (sim/step_trace.h). Collective code marks a phase with a PhaseScope; it records
// a span only while a PhaseLog is attached to the rank (Communicator::set_phase_log,
// shared by the world communicator and its splits), otherwise it costs one null
// check. Scopes nest: a span's depth counts the scopes open around it, and a parent
// is recorded after its children.

#include <string>
#include <utility>
#include <vector>

namespace compopt {

class Communicator;

struct PhaseSpan {
  std::string name;
  int depth = 0;  // 0: a top-level phase of the collective
  double start_s = 0, end_s = 0;
};

class PhaseLog {
 public:
  void add(PhaseSpan span) { spans_.push_back(std::move(span)); }
  // Moves the end of the last span (there must be one) to `end_s`.
  void extend_last(double end_s) { spans_.back().end_s = end_s; }
  const std::vector<PhaseSpan>& spans() const { return spans_; }
  // Scopes open now; PhaseScope keeps it.
  int& depth() { return depth_; }

 private:
  std::vector<PhaseSpan> spans_;
  int depth_ = 0;
};

// Records [now at construction, now at destruction] as phase `name` of `comm`'s rank.
class PhaseScope {
 public:
  PhaseScope(const Communicator& comm, const char* name);
  ~PhaseScope();
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;

 private:
  const Communicator& comm_;
  PhaseLog* log_;
  const char* name_;
  double start_s_ = 0;
};

}  // namespace compopt
