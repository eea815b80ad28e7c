#pragma once
// Local backend: n ranks as threads of one process, exchanging messages through
// shared mailboxes. Exact and deterministic (collectives fix their reduction
// order); the default for tests and convergence experiments.
//
// LocalWorld::run starts one thread per rank, each with its own world
// Communicator, and joins them. If any rank throws, the others are woken with a
// CommError naming it, and run() rethrows the first root-cause exception.
// A recv that waits longer than `recv_timeout_s` fails instead of hanging.

#include <functional>
#include <memory>
#include <vector>

#include "core/comm/communicator.h"

namespace compopt {

struct LocalWorldOptions {
  int ranks = 1;
  int gpus_per_node = 0;  // 0: all ranks on one node; else node = rank / gpus_per_node
  double recv_timeout_s = 120.0;
  size_t pipeline_bytes = 0;  // Transport::pipeline_bytes() of every rank (0: whole blocks)
};

class LocalWorld {
 public:
  // Throws InvalidArgument for ranks < 1 or gpus_per_node < 0.
  explicit LocalWorld(LocalWorldOptions options);
  ~LocalWorld();

  // Runs fn on every rank concurrently; returns when all finished.
  void run(const std::function<void(Communicator&)>& fn);

  int ranks() const { return options_.ranks; }

  class Impl;  // shared mailboxes of one run (defined in local_world.cc)

 private:
  LocalWorldOptions options_;
  std::unique_ptr<Impl> impl_;
};

// Convenience: LocalWorld({ranks, gpus_per_node}).run(fn).
void run_local(int ranks, const std::function<void(Communicator&)>& fn, int gpus_per_node = 0);

}  // namespace compopt
