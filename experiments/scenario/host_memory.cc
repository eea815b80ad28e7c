#include "experiments/scenario/host_memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/optim/optimizer_registry.h"
#include "sim/collapsed_rounds.h"
#include "sim/proxy_wire.h"
#include "sim/round_timing.h"

namespace compopt::cli {
namespace {

constexpr double kFloat = 4.0;
constexpr int kEfVectors = 2;  // worker error feedback + server chunk and its messages
// Parameters and gradients; two collective message buffers and the worker's activations.
constexpr int kTrainVectors = 2;
constexpr int kTrainTransients = 3;

const std::map<std::string, int>& optimizer_vectors() {
  static const std::map<std::string, int> table = {
      {"sgd", 1},                       // g
      {"momentum-sgd", 2},              // m, g
      {"adam", 3},                      // m, v, g
      {"lamb", 3},                      // m, v, g
      {"onebit-adam", 3 + kEfVectors},  // m, v, buffer + error feedback
      {"onebit-adam-32bit", 3 + kEfVectors},
      {"naive-onebit-adam", 3 + kEfVectors},
      {"onebit-lamb", 5 + kEfVectors},  // m, v, fresh v, previous m, buffer + error feedback
      {"birder", 4 + kEfVectors},       // q, m, b_hat, b + error feedback
      {"birder-hierarchical", 4 + kEfVectors},
      {"ef-momentum-sgd", 2 + kEfVectors},  // m, u + error feedback
      {"doublesqueeze", 2 + kEfVectors},    // m, g + error feedback
      {"local-sgd", 2},                     // m, direction
      {"local-momentum-sgd", 2},
      {"diloco", 5},  // m, v, anchor, outer momentum, outer gradient in flight
      {"streaming-diloco", 5 + kEfVectors},
  };
  return table;
}

int lookup_or_largest(const std::map<std::string, int>& table, const std::string& name) {
  const auto it = table.find(name);
  if (it != table.end()) return it->second;
  int largest = 0;
  for (const auto& [key, value] : table) largest = std::max(largest, value);
  return largest;
}

const char* kOverride = "COMPOPT_MEMORY_LIMIT_MB sets another budget";

// Bytes per GPU and per GPU squared of each path (measured with /usr/bin/time -v,
// docs/robustness.md "Limits on input"; rounded up).
struct PathCost {
  double per_gpu, per_gpu_squared;
  const char* note;  // how the GPUs are simulated, for messages
};
PathCost cost_of(SimulationPath path) {
  constexpr double kKiB = 1024;
  switch (path) {
    case SimulationPath::kCollapsed:
      return {kKiB, 0, ""};
    case SimulationPath::kRoundsEveryRank:
      return {16 * kKiB, 48, " one actor per GPU (the cluster's rounds do not collapse)"};
    case SimulationPath::kFullEveryRank:
      return {16 * kKiB, 2 * kKiB,
              " one actor per GPU running the collective in full (no round timing there)"};
  }
  return {16 * kKiB, 2 * kKiB, ""};
}

constexpr double kSimulationBaseBytes = 64.0 * (1 << 20);  // the process and SimGrid

}  // namespace

int optimizer_state_vectors(const std::string& optimizer) {
  return lookup_or_largest(optimizer_vectors(), optimizer);
}

double train_peak_bytes(int ranks, size_t parameters, const std::string& optimizer) {
  const int vectors = kTrainVectors + optimizer_state_vectors(optimizer) + kTrainTransients;
  return ranks * kFloat * static_cast<double>(parameters) * vectors;
}

double comm_bench_peak_bytes(int ranks, double largest_size_mb, int copies) {
  return ranks * largest_size_mb * 1e6 * copies;
}

double collectives_peak_bytes(int ranks, size_t elements) {
  // Shared: exact and reduced sums of all steps and of the first step (4 doubles). Per rank:
  // the vector, its double sum over steps, error feedback and message buffers.
  constexpr double kShared = 32, kPerRank = 32;
  return static_cast<double>(elements) * (kShared + ranks * kPerRank);
}

SimulationPath simulation_path(const sim::StepConfig& config) {
  if (sim::collapsible(config.cluster) && !config.full_collectives)
    return SimulationPath::kCollapsed;
  SimulationPath path = SimulationPath::kRoundsEveryRank;
  for (const StageSpec& stage : optimizer_registry().get(config.optimizer).stages) {
    if (config.full_collectives ||
        !sim::timed_by_rounds(sim::scheme_of(stage.pattern), config.cluster))
      path = SimulationPath::kFullEveryRank;
  }
  return path;
}

double simulation_peak_bytes(const sim::StepConfig& config) {
  const PathCost cost = cost_of(simulation_path(config));
  const double g = config.cluster.gpus();
  return kSimulationBaseBytes + cost.per_gpu * g + cost.per_gpu_squared * g * g;
}

void check_train_memory(int ranks, size_t parameters, const std::string& optimizer,
                        const MemoryBudget& budget) {
  budget.require(train_peak_bytes(ranks, parameters, optimizer),
                 fmt::format("run.ranks = {} ranks x {} parameters ({}: {} float vectors per rank)",
                             ranks, parameters, optimizer,
                             kTrainVectors + optimizer_state_vectors(optimizer) + kTrainTransients),
                 fmt::format("lower run.ranks or the task's size (task.hidden, task.dimension); {}",
                             kOverride));
}

void check_comm_bench_memory(int ranks, const std::vector<double>& sizes_mb, int copies,
                             const MemoryBudget& budget) {
  const double largest = *std::max_element(sizes_mb.begin(), sizes_mb.end());
  budget.require(
      comm_bench_peak_bytes(ranks, largest, copies),
      fmt::format("--sizes {} x --ranks {} (copies of each message per rank)", largest, ranks),
      fmt::format("lower --sizes or --ranks; {}", kOverride));
}

void check_collectives_memory(int ranks, size_t elements, const MemoryBudget& budget) {
  budget.require(collectives_peak_bytes(ranks, elements),
                 fmt::format("--elements {} x --ranks {}", elements, ranks),
                 fmt::format("lower --elements or --ranks; {}", kOverride));
}

void check_simulation_memory(const std::vector<sim::Scenario>& scenarios, int jobs,
                             const std::string& key, const MemoryBudget& budget) {
  double peak = 0;
  sim::StepConfig costliest;
  for (const sim::Scenario& s : scenarios) {
    const sim::StepConfig config = sim::resolve_scenario(s);
    const double bytes = simulation_peak_bytes(config);
    if (bytes > peak) {
      peak = bytes;
      costliest = config;
    }
  }
  budget.require(
      jobs * peak,
      fmt::format("{} = {} GPUs simulated{}, {} at a time", key, costliest.cluster.gpus(),
                  cost_of(simulation_path(costliest)).note, jobs),
      fmt::format("lower {} or the number of jobs; {}", key, kOverride));
}

}  // namespace compopt::cli
