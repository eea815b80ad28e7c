#include "core/comm/phase_log.h"

#include "core/comm/communicator.h"

namespace compopt {

PhaseScope::PhaseScope(const Communicator& comm, const char* name)
    : comm_(comm), log_(comm.phase_log()), name_(name) {
  if (log_ == nullptr) return;
  start_s_ = comm_.now();
  ++log_->depth();
}

PhaseScope::~PhaseScope() {
  if (log_ == nullptr) return;
  const int depth = --log_->depth();
  log_->add({.name = name_, .depth = depth, .start_s = start_s_, .end_s = comm_.now()});
}

}  // namespace compopt
