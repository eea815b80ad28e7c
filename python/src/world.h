#pragma once
// World: the Python-facing handle of this process's WorldSession (world_session.h). Everything
// that communicates (optimizers, collectives) takes a World and asks it for the communicator.
#include <memory>
#include <optional>
#include <string>

#include "python/src/world_session.h"

namespace compopt::python {

class World {
 public:
  // Joins the world of backend `backend` (real_backend/backend_registry.h) with `ranks` > 0
  // in-process ranks (only 1 makes sense from one Python thread) or 0: this process is one
  // launched rank. Throws InvalidArgument for an unknown or unavailable backend.
  World(const std::string& backend, int ranks, std::optional<double> op_timeout_s);

  const std::string& backend() const { return backend_; }
  Communicator& comm() { return session_->comm(); }
  int rank() { return comm().rank(); }
  int size() { return comm().size(); }
  int node() { return comm().node(); }
  int num_nodes() { return comm().num_nodes(); }
  bool open() const { return session_->open(); }
  void close(const std::optional<std::string>& failure) { session_->close(failure); }

 private:
  std::string backend_;
  std::unique_ptr<WorldSession> session_;
};

}  // namespace compopt::python
