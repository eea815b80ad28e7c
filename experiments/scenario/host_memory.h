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
//   comm-bench   ranks x largest size x copies of the costliest variant
//   collectives  elements x (32 B of shared double sums + ranks x 32 B)
//   profile      64 MiB + 16 KiB x gpus + 24 B x gpus^2 (SimGrid actors and routes); a sweep
//                holds `jobs` such processes at once
// The task's data is loaded before the estimate and is therefore already outside the budget.

#include <cstddef>
#include <string>
#include <vector>

#include "core/util/memory_budget.h"

namespace compopt::cli {

// Float vectors of the parameter length an optimizer keeps per rank; error feedback counts
// as two (worker, and server chunk with its message buffer). Unknown names get the largest.
int optimizer_state_vectors(const std::string& optimizer);

double train_peak_bytes(int ranks, size_t parameters, const std::string& optimizer);
// Copies of one message each rank holds at once for a comm-bench variant (largest if unknown).
int comm_bench_copies(const std::string& variant);
double comm_bench_peak_bytes(int ranks, double largest_size_mb,
                             const std::vector<std::string>& variants);
double collectives_peak_bytes(int ranks, size_t elements);
double simulation_peak_bytes(int gpus);

void check_train_memory(int ranks, size_t parameters, const std::string& optimizer,
                        const MemoryBudget& budget);
void check_comm_bench_memory(int ranks, const std::vector<double>& sizes_mb,
                             const std::vector<std::string>& variants, const MemoryBudget& budget);
void check_collectives_memory(int ranks, size_t elements, const MemoryBudget& budget);
// `jobs` simulations of up to `gpus` GPUs at once; `key` names what sets the GPU count.
void check_simulation_memory(int gpus, int jobs, const std::string& key,
                             const MemoryBudget& budget);

}  // namespace compopt::cli
