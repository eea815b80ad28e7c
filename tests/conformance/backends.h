#pragma once
// The backends the conformance suite runs on. Every backend that is built
// registers here (Local always; Sim, TCP, MPI, NCCL when their libraries exist),
// so one suite checks them all against the same independent references.

#include <functional>
#include <string>
#include <vector>

#include "core/comm/communicator.h"

namespace compopt::testing {

struct Backend {
  std::string name;
  // Runs fn on `ranks` ranks (node = rank / ranks_per_node; 0 = one node) and
  // rethrows the first failure.
  std::function<void(int ranks, int ranks_per_node, const std::function<void(Communicator&)>& fn)> run;
};

const std::vector<Backend>& conformance_backends();

}  // namespace compopt::testing
