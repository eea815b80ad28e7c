#include "python/src/world.h"

#include <pybind11/pybind11.h>

#include <mutex>

#include "core/util/error.h"
#include "real_backend/backend_registry.h"

namespace compopt::python {
namespace {

std::mutex launched_mutex;
bool launched_open = false;  // some World holds this process's launched rank

void claim_launched_rank(const std::string& backend) {
  const std::lock_guard lock(launched_mutex);
  if (launched_open) {
    throw InvalidArgument("compopt world '" + backend +
                          "': this process is already a launched rank of an open world; close "
                          "it first (compopt.init() returns the open one)");
  }
  launched_open = true;
}

void release_launched_rank() {
  const std::lock_guard lock(launched_mutex);
  launched_open = false;
}

}  // namespace

World::World(const std::string& backend, int ranks, std::optional<double> op_timeout_s,
             int gpus_per_node)
    : backend_(backend) {
  const BackendEntry& entry = backend_registry().get(backend);
  WorldOptions options;
  options.ranks = ranks;
  options.gpus_per_node = gpus_per_node;
  options.op_timeout_s = op_timeout_s;
  if (ranks == 0) claim_launched_rank(backend);
  holds_launched_rank_ = ranks == 0;
  try {
    const pybind11::gil_scoped_release release;
    session_ = std::make_unique<WorldSession>(entry, options);
  } catch (...) {
    release();
    throw;
  }
}

World::~World() {
  session_.reset();  // closes when still open
  release();
}

void World::close(const std::optional<std::string>& failure) {
  try {
    session_->close(failure);
  } catch (...) {
    release();
    throw;
  }
  release();
}

Communicator& World::acquire() {
  if (busy_.exchange(true)) {
    throw InvalidArgument(
        "compopt world: in use by another thread; a world takes one call at a time, every rank "
        "calling in the same order");
  }
  try {
    return comm();
  } catch (...) {
    busy_ = false;
    throw;
  }
}

void World::release() {
  if (holds_launched_rank_) release_launched_rank();
  holds_launched_rank_ = false;
}

}  // namespace compopt::python
