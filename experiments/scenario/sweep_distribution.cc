#include "experiments/scenario/sweep_distribution.h"

#include <fmt/format.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>

#include "core/comm/communicator.h"
#include "core/util/env.h"
#include "core/util/error.h"
#include "experiments/scenario/forked_jobs.h"
#include "real_backend/backend_registry.h"

namespace compopt::cli {
namespace {

// The variables an MPI launcher sets for every rank it starts.
struct LauncherVariables {
  const char* size;
  const char* rank;
  const char* local_size;  // ranks on this machine
};

constexpr LauncherVariables kLaunchers[] = {
    {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},  // Open MPI
    {"PMI_SIZE", "PMI_RANK", "MPI_LOCALNRANKS"},  // MPICH, Intel MPI (Hydra)
};

constexpr long kMaxRanks = 1L << 20;
constexpr int kResultsTag = 1;

void send_text(Communicator& comm, int dst, const std::string& text) {
  const uint64_t size = text.size();
  comm.send(dst, kResultsTag, std::as_bytes(std::span(&size, 1)));
  comm.send(dst, kResultsTag, std::as_bytes(std::span(text)));
}

std::string recv_text(Communicator& comm, int src) {
  uint64_t size = 0;
  comm.recv(src, kResultsTag, std::as_writable_bytes(std::span(&size, 1)));
  std::string text(size, '\0');
  comm.recv(src, kResultsTag, std::as_writable_bytes(std::span(text)));
  return text;
}

}  // namespace

SweepWorld sweep_world_from_env() {
  for (const LauncherVariables& v : kLaunchers) {
    const char* size = env_value(v.size);
    if (size == nullptr) continue;
    SweepWorld world;
    world.source = v.size;
    world.size = static_cast<int>(parse_env_integer(v.size, size, 1, kMaxRanks));
    const char* rank = env_value(v.rank);
    if (rank == nullptr)
      throw InvalidArgument(fmt::format("{} is set but {} is not: expected both", v.size, v.rank));
    world.rank = static_cast<int>(parse_env_integer(v.rank, rank, 0, world.size - 1));
    if (const char* local = env_value(v.local_size))
      world.local_size = static_cast<int>(parse_env_integer(v.local_size, local, 1, world.size));
    return world;
  }
  return {};
}

void check_sweep_world(const SweepWorld& world) {
  if (world.size <= 1) return;
  const std::string why = backend_registry().get("mpi").available();
  if (!why.empty()) {
    throw InvalidArgument(fmt::format(
        "sweep started by an MPI launcher ({}={}) needs a compopt built with MPI, but backend "
        "'mpi' is {}; run `compopt sweep` without mpirun, or rebuild where MPI is installed",
        world.source, world.size, why));
  }
}

std::vector<size_t> scenarios_of_rank(size_t count, const SweepWorld& world) {
  std::vector<size_t> mine;
  for (size_t i = static_cast<size_t>(world.rank); i < count; i += static_cast<size_t>(world.size))
    mine.push_back(i);
  return mine;
}

int jobs_per_rank(int requested, const SweepWorld& world) {
  if (requested > 0) return requested;
  return std::max(1, parallel_jobs(0) / std::max(1, world.local_size));
}

std::vector<std::string> gather_results(const SweepWorld& world, size_t count,
                                        const std::vector<std::string>& mine) {
  std::vector<std::string> all;
  backend_registry().get("mpi").run({}, [&](Communicator& comm) {
    if (comm.rank() != world.rank || comm.size() != world.size) {
      throw CommError(fmt::format("MPI says rank {} of {}, but {} said rank {} of {}", comm.rank(),
                                  comm.size(), world.source, world.rank, world.size));
    }
    if (comm.rank() != 0) {
      send_text(comm, 0, nlohmann::json(mine).dump());
      return;
    }
    all.resize(count);
    for (int r = 0; r < comm.size(); ++r) {
      const SweepWorld of_r{.rank = r, .size = world.size, .local_size = 1, .source = {}};
      const std::vector<std::string> theirs =
          r == 0 ? mine : nlohmann::json::parse(recv_text(comm, r)).get<std::vector<std::string>>();
      const std::vector<size_t> indexes = scenarios_of_rank(count, of_r);
      if (theirs.size() != indexes.size()) {
        throw CommError(fmt::format("rank {} sent {} scenario results, expected {}", r,
                                    theirs.size(), indexes.size()));
      }
      for (size_t k = 0; k < indexes.size(); ++k) all[indexes[k]] = theirs[k];
    }
  });
  return all;
}

}  // namespace compopt::cli
