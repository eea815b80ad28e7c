#include "experiments/train/train_world.h"

#include <fmt/format.h>

#include <vector>

#include "core/util/env.h"
#include "core/util/error.h"

namespace compopt::cli {
namespace {

struct LauncherEnv {
  const char* backend;
  // Alternatives in order of preference: {rank variable, size variable}.
  std::vector<std::pair<const char*, const char*>> variables;
  bool in_process;  // without the variables the backend runs threads
  const char* start;
};

const std::vector<LauncherEnv>& launcher_envs() {
  static const std::vector<LauncherEnv> envs = {
      {"tcp", {{"RANK", "WORLD_SIZE"}}, true, "compopt launch -n N -- train ..."},
      {"hybrid", {{"RANK", "WORLD_SIZE"}}, true, "compopt launch -n N -- train ..."},
      {"nccl", {{"RANK", "WORLD_SIZE"}}, false, "compopt launch -n N -- train ..."},
      {"mpi",
       {{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}, {"PMI_RANK", "PMI_SIZE"}},
       false,
       "mpirun -n N compopt train ..."},
  };
  return envs;
}

}  // namespace

std::optional<LaunchedRank> launched_rank(const std::string& backend) {
  for (const LauncherEnv& e : launcher_envs()) {
    if (backend != e.backend) continue;
    for (const auto& [rank_var, size_var] : e.variables) {
      const char* rank = env_value(rank_var);
      const char* size = env_value(size_var);
      if (rank == nullptr || size == nullptr) continue;
      LaunchedRank out;
      out.world_size = static_cast<int>(parse_env_integer(size_var, size, 1, 4096));
      out.rank = static_cast<int>(parse_env_integer(rank_var, rank, 0, out.world_size - 1));
      return out;
    }
    if (e.in_process) return std::nullopt;
    throw InvalidArgument(fmt::format(
        "run.backend = '{}' runs one rank per process: start every rank with {} (no launcher "
        "environment found: {} unset)",
        backend, e.start, e.variables.front().second));
  }
  // An in-process backend started by a launcher would train the whole run in every process.
  const char* world = env_value("WORLD_SIZE");
  if (world != nullptr && parse_env_integer("WORLD_SIZE", world, 1, 1 << 20) > 1) {
    throw InvalidArgument(fmt::format(
        "run.backend = '{}' trains every rank inside one process, but this process was started "
        "as one of WORLD_SIZE={} (compopt launch): use run.backend = 'tcp' to train across the "
        "launched processes",
        backend, world));
  }
  return std::nullopt;
}

}  // namespace compopt::cli
