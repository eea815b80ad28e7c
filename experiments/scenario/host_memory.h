#pragma once
// Peak-memory estimates of the commands whose ranks all live in this process (train and
// comm-bench on local/sim, collectives) or whose SimGrid model grows with the GPU count
// (profile, sweep), and checks that refuse a run which would not fit the MemoryBudget, naming
// the key or flag to lower (InvalidArgument, exit code 2, before any work or directory).
//
// The figures are upper bounds, derived per vector below and checked against the peak
// resident size measured with /usr/bin/time -v (docs/robustness.md, "Limits on input"):
//   train        ranks x 4 B x parameters x (2 + optimizer state + 3): parameters and
//                gradients, the optimizer's state vectors, two message buffers of the
//                collectives and one vector for the task worker's activations
//   comm-bench   ranks x largest size x copies of the costliest variant (each variant's
//                figure is in its entry, experiments/cli/allreduce_variants.h)
//   collectives  elements x (32 B of shared double sums + ranks x 32 B)
//   profile      by the way the step simulator times the cluster's collectives
//                (simulation_path): 64 MiB + 1 KiB x gpus where they collapse onto a
//                two-node mirror or are posted as flows by one actor (a generated star or
//                single-leaf fat-tree); else every GPU is an actor, + 16 KiB x gpus + 48 B x
//                gpus^2 when each times its rounds (the ring on a generated platform) and
//                + 2 KiB x gpus^2 when a collective runs in full on every rank with its
//                proxy vectors (compressed schemes there, any on a platform file). A sweep
//                holds `jobs` such processes at once.
// The task's data is loaded before the estimate and is therefore already outside the budget.

#include <cstddef>
#include <string>
#include <vector>

#include "core/util/memory_budget.h"
#include "sim/scenario.h"

namespace compopt::cli {

// How the step simulator runs a scenario's collectives, from cheapest to costliest in memory.
enum class SimulationPath {
  kCollapsed,        // one actor: rounds on a two-node mirror, or flows (sim/collapsed_rounds.h)
  kRoundsEveryRank,  // one actor per GPU timing its shift rounds (sim/round_timing.h)
  kFullEveryRank,    // one actor per GPU running the collective on its proxy vectors
};
SimulationPath simulation_path(const sim::StepConfig& config);

// Float vectors of the parameter length an optimizer keeps per rank; error feedback counts
// as two (worker, and server chunk with its message buffer). Unknown names get the largest.
int optimizer_state_vectors(const std::string& optimizer);

double train_peak_bytes(int ranks, size_t parameters, const std::string& optimizer);
// `copies`: of one message, each rank holding them at once (the costliest variant's).
double comm_bench_peak_bytes(int ranks, double largest_size_mb, int copies);
double collectives_peak_bytes(int ranks, size_t elements);
double simulation_peak_bytes(const sim::StepConfig& config);

void check_train_memory(int ranks, size_t parameters, const std::string& optimizer,
                        const MemoryBudget& budget);
void check_comm_bench_memory(int ranks, const std::vector<double>& sizes_mb, int copies,
                             const MemoryBudget& budget);
void check_collectives_memory(int ranks, size_t elements, const MemoryBudget& budget);
// `jobs` simulations at once, each as costly as the costliest of `scenarios` (resolved here;
// they must resolve); `key` names what sets the GPU count.
void check_simulation_memory(const std::vector<sim::Scenario>& scenarios, int jobs,
                             const std::string& key, const MemoryBudget& budget);

}  // namespace compopt::cli
