#pragma once
// World: the Python-facing handle of this process's WorldSession (world_session.h). Everything
// that communicates (optimizers, collectives) takes a World and asks it for the communicator,
// holding a World::Use for the duration of the call.
#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "python/src/world_session.h"

namespace compopt::python {

class World {
 public:
  // Joins the world of backend `backend` (real_backend/backend_registry.h) with `ranks` > 0
  // in-process ranks (only 1 makes sense from one Python thread) or 0: this process is one
  // launched rank; `gpus_per_node` > 0 puts rank r on node r / gpus_per_node (0: the backend's
  // layout). Throws InvalidArgument for an unknown or unavailable backend, and while this
  // process is already a launched rank of another open World (a second rendezvous would wait
  // for peers that never come).
  World(const std::string& backend, int ranks, std::optional<double> op_timeout_s,
        int gpus_per_node);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // One call's hold on the communicator (a collective, an optimizer step). The Communicator is
  // not thread-safe and the GIL is released while it runs: a second thread that calls while a
  // Use is held gets InvalidArgument instead of interleaving messages with the first.
  class Use {
   public:
    explicit Use(World& world) : world_(world), comm_(world.acquire()) {}
    ~Use() { world_.busy_ = false; }
    Use(const Use&) = delete;
    Use& operator=(const Use&) = delete;
    Communicator& comm() { return comm_; }

   private:
    World& world_;
    Communicator& comm_;
  };

  const std::string& backend() const { return backend_; }
  Communicator& comm() { return session_->comm(); }
  int rank() { return comm().rank(); }
  int size() { return comm().size(); }
  int node() { return comm().node(); }
  int num_nodes() { return comm().num_nodes(); }
  bool open() const { return session_->open(); }
  void close(const std::optional<std::string>& failure);

 private:
  void release();           // gives up the launched rank, if held
  Communicator& acquire();  // marks the world busy (Use), or throws when it already is

  std::string backend_;
  bool holds_launched_rank_ = false;  // this process's one launched rank, until closed
  std::unique_ptr<WorldSession> session_;
  std::atomic<bool> busy_ = false;
};

}  // namespace compopt::python
