#pragma once
// The backends the conformance suite runs on: every entry of the backend registry
// (real_backend/backend_registry.h) that starts its ranks in this process and is available here
// (local, sim, tcp; hybrid with a CUDA device), so one suite checks them all, through the
// Communicator's collectives and compressed collectives, against the same independent
// references. (MPI runs the same checks under mpirun, NCCL needs one GPU per rank and sums in
// another order: tests/real_backend/.)

#include <string>
#include <vector>

#include "core/comm/backend.h"

namespace compopt::testing {

struct ConformanceBackend {
  std::string name;
  const BackendEntry* entry = nullptr;

  // Runs fn on `ranks` ranks (node = rank / gpus_per_node; 0 = one node) with short timeouts
  // (a conformance failure must fail fast, not hang) and ring pieces of 20 bytes (the suite's
  // element counts exercise the pipelined ring, ring_shift.h); rethrows the first failure.
  void run(int ranks, int gpus_per_node, const WorldFn& fn) const;
};

const std::vector<ConformanceBackend>& conformance_backends();

}  // namespace compopt::testing
