// `compopt collectives`: runs every allreduce variant (allreduce_variants.h) on the Local
// backend and reports bytes per rank, inter-node bytes, compression ratio, accuracy of one
// call and of the error-feedback average over steps, and wall time.

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <mutex>
#include <random>
#include <sstream>
#include <vector>

#include "core/comm/local/local_world.h"
#include "core/util/csv_schema.h"
#include "core/util/error.h"
#include "experiments/cli/allreduce_variants.h"
#include "experiments/cli/commands.h"
#include "experiments/run_directory/run_directory.h"
#include "experiments/scenario/host_memory.h"
#include "experiments/scenario/option_ranges.h"

namespace compopt::cli {
namespace {

// Bounds that keep a run within one machine (threads and memory); beyond them it cannot finish.
constexpr int kMaxRanks = 4096;
constexpr size_t kMaxElements = size_t{1} << 28;
constexpr size_t kMaxTotalElements = size_t{1} << 30;
// Messages between the ranks' threads in one run (collectives_messages). The local backend
// passes each through one lock, so the count, not the data, sets the time once ranks are
// many: about 175,000 messages/s on a 2-core machine (512 ranks, 16 elements, 1 step: 2.6
// million messages in 15 s), so this bound is about a minute there (docs/robustness.md).
constexpr double kMaxMessages = 1e7;
// Threads besides the ranks': the main thread, the compression pool, spare.
constexpr long kOtherThreads = 64;

struct Options {
  int ranks = 8;
  int gpus_per_node = 4;
  size_t elements = size_t{1} << 20;
  int steps = 5;
  uint64_t seed = 1;
  std::string out;
  bool overwrite = false;
};

struct Result {
  std::string name;
  uint64_t bytes_per_rank = 0, inter_node_bytes_per_node = 0;
  double one_step_error = 0, averaged_error = 0, seconds_per_call = 0;
};

std::vector<float> gradient_like(const Options& o, int rank, int step) {
  std::mt19937_64 rng(o.seed * 1000003 + static_cast<uint64_t>(rank) * 7919 +
                      static_cast<uint64_t>(step));
  std::normal_distribution<float> noise(0.0f, 1.0f);
  std::vector<float> x(o.elements);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = std::sin(0.001f * static_cast<float>(i)) + 0.5f * noise(rng);
  return x;
}

double relative_error(const std::vector<double>& got, const std::vector<double>& want) {
  double num = 0, den = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    num += (got[i] - want[i]) * (got[i] - want[i]);
    den += want[i] * want[i];
  }
  return den > 0 ? std::sqrt(num / den) : 0.0;
}

Result run_variant(const Options& o, const AllreduceVariant& v) {
  Result result{.name = v.name};
  std::vector<double> exact_sum(o.elements, 0.0), got_sum(o.elements, 0.0),
      exact_first(o.elements, 0.0), got_first(o.elements);
  std::mutex mutex;
  for (int r = 0; r < o.ranks; ++r) {
    for (int t = 0; t < o.steps; ++t) {
      const auto x = gradient_like(o, r, t);
      for (size_t i = 0; i < x.size(); ++i) {
        exact_sum[i] += x[i] / static_cast<float>(o.ranks);
        if (t == 0) exact_first[i] += x[i] / static_cast<float>(o.ranks);
      }
    }
  }
  LocalWorld world({.ranks = o.ranks, .gpus_per_node = o.gpus_per_node});
  world.run([&](Communicator& comm) {
    auto reduce = v.make(comm);
    comm.traffic().reset();
    double seconds = 0;
    std::vector<double> local_sum(o.elements, 0.0);
    for (int t = 0; t < o.steps; ++t) {
      auto x = gradient_like(o, comm.rank(), t);
      comm.barrier();
      const double start = comm.now();
      reduce(comm, x, static_cast<uint64_t>(t));
      seconds += comm.now() - start;
      for (size_t i = 0; i < x.size(); ++i) local_sum[i] += x[i];
      if (t == 0 && comm.rank() == 0) std::copy(x.begin(), x.end(), got_first.begin());
    }
    const TrafficTally tally = comm.traffic().total();
    std::lock_guard lock(mutex);
    if (comm.rank() == 0) {
      got_sum = local_sum;
      result.seconds_per_call = seconds / o.steps;
    }
    result.bytes_per_rank = std::max<uint64_t>(
        result.bytes_per_rank,
        (tally.bytes - comm.traffic().of("barrier").bytes) / static_cast<uint64_t>(o.steps));
    result.inter_node_bytes_per_node +=
        (tally.inter_node_bytes - comm.traffic().of("barrier").inter_node_bytes);
  });
  const int nodes = o.gpus_per_node > 0 ? (o.ranks + o.gpus_per_node - 1) / o.gpus_per_node : 1;
  result.inter_node_bytes_per_node /= static_cast<uint64_t>(o.steps) * static_cast<uint64_t>(nodes);
  result.one_step_error = relative_error(got_first, exact_first);
  result.averaged_error = relative_error(got_sum, exact_sum);
  return result;
}

// About how many messages a run sends: every variant moves each rank's vector through a ring
// or a scatter and gather over all ranks, 2 (ranks - 1) messages per rank and call.
double collectives_messages(const Options& o) {
  const double n = o.ranks;
  return static_cast<double>(allreduce_variants().entries().size()) * o.steps * 2 * n * (n - 1);
}

// A limit from a /proc or /sys file holding one number ("max" or unreadable: none).
long file_limit(const char* path) {
  std::ifstream in(path);
  long value = 0;
  return in >> value && value > 0 ? value : std::numeric_limits<long>::max();
}

// Threads this process may start at most: the smallest of kernel.threads-max, the soft
// RLIMIT_NPROC and the cgroup's pids.max, with the name of the one that binds.
std::pair<long, std::string> thread_limit() {
  std::pair<long, std::string> limit{file_limit("/proc/sys/kernel/threads-max"),
                                     "/proc/sys/kernel/threads-max"};
  rlimit nproc{};
  if (::getrlimit(RLIMIT_NPROC, &nproc) == 0 && nproc.rlim_cur != RLIM_INFINITY &&
      static_cast<long>(nproc.rlim_cur) < limit.first)
    limit = {static_cast<long>(nproc.rlim_cur), "ulimit -u"};
  if (const long pids = file_limit("/sys/fs/cgroup/pids.max"); pids < limit.first)
    limit = {pids, "the cgroup's pids.max"};
  return limit;
}

// Throws InvalidArgument when the run needs more threads than this host gives a process, or
// more messages than kMaxMessages.
void check_host_limits(const Options& o) {
  const auto [threads, source] = thread_limit();
  if (o.ranks + kOtherThreads > threads) {
    throw InvalidArgument(fmt::format(
        "--ranks {}: one thread per rank, and this host allows {} threads ({}); expected at most "
        "{} ranks",
        o.ranks, threads, source, std::max(0L, threads - kOtherThreads)));
  }
  if (const double messages = collectives_messages(o); messages > kMaxMessages) {
    throw InvalidArgument(fmt::format(
        "--ranks {} x --steps {}: about {:.3g} messages between the ranks' threads ({} variants x "
        "steps x 2 x ranks x (ranks - 1)), expected at most {:.3g} (about a minute of message "
        "passing); lower "
        "--ranks or --steps",
        o.ranks, o.steps, messages, allreduce_variants().entries().size(), kMaxMessages));
  }
}

// Throws InvalidArgument for options beyond the bounds above.
void check_options(const Options& o) {
  if (o.ranks < 1 || o.ranks > kMaxRanks)
    throw InvalidArgument(fmt::format("--ranks {}: expected 1..{}", o.ranks, kMaxRanks));
  if (o.gpus_per_node < 0 || (o.gpus_per_node > 0 && o.ranks % o.gpus_per_node != 0)) {
    throw InvalidArgument(
        fmt::format("--gpus-per-node {}: expected 0 (one node) or a divisor of --ranks {}",
                    o.gpus_per_node, o.ranks));
  }
  if (o.elements < 1 || o.elements > kMaxElements)
    throw InvalidArgument(fmt::format("--elements {}: expected 1..{}", o.elements, kMaxElements));
  if (o.elements * static_cast<size_t>(o.ranks) > kMaxTotalElements) {
    throw InvalidArgument(fmt::format(
        "--elements {} x --ranks {}: {} floats per vector in all, expected at most {} (memory)",
        o.elements, o.ranks, o.elements * static_cast<size_t>(o.ranks), kMaxTotalElements));
  }
}

const CsvSchema& collectives_schema() {
  static const CsvSchema schema("collectives.csv", {{"variant"},
                                                    {"ranks"},
                                                    {"gpus_per_node"},
                                                    {"elements"},
                                                    {"steps"},
                                                    {"bytes_per_rank"},
                                                    {"fp32_ring_bytes_per_rank", "{:.0f}"},
                                                    {"compression_ratio", "{:.3f}"},
                                                    {"inter_node_bytes_per_node"},
                                                    {"one_call_relative_error", "{:.6e}"},
                                                    {"averaged_relative_error", "{:.6e}"},
                                                    {"seconds_per_call", "{:.6e}"}});
  return schema;
}

// The run's description and the table's column heads.
void print_header(const Options& o) {
  fmt::print(
      "compopt collectives: {} ranks ({} per node), {} elements ({:.1f} MB fp32), {} steps, "
      "Local backend\n\n",
      o.ranks, o.gpus_per_node > 0 ? o.gpus_per_node : o.ranks, o.elements,
      4e-6 * static_cast<double>(o.elements), o.steps);
  fmt::print("{:<19} {:>14} {:>10} {:>18} {:>12} {:>14} {:>10}\n", "variant", "bytes/rank",
             "vs fp32", "inter-node B/node", "1-call err", "avg-of-steps err", "ms/call");
}

// Runs every variant, printing one table row each; returns collectives.csv.
std::string run_variants(const Options& o) {
  const double fp32_bytes = 2.0 * (o.ranks - 1) / o.ranks * 4.0 * static_cast<double>(o.elements);
  CsvWriter csv(collectives_schema());
  for (const AllreduceVariant& v : allreduce_variants().entries()) {
    const Result r = run_variant(o, v);
    const double ratio =
        r.bytes_per_rank > 0 ? fp32_bytes / static_cast<double>(r.bytes_per_rank) : 0.0;
    fmt::print("{:<19} {:>14} {:>9.1f}x {:>18} {:>12.3e} {:>16.3e} {:>10.2f}\n", r.name,
               r.bytes_per_rank, ratio, r.inter_node_bytes_per_node, r.one_step_error,
               r.averaged_error, 1e3 * r.seconds_per_call);
    csv.add({r.name, o.ranks, o.gpus_per_node, o.elements, o.steps, r.bytes_per_rank, fp32_bytes,
             ratio, r.inter_node_bytes_per_node, r.one_step_error, r.averaged_error,
             r.seconds_per_call});
  }
  return csv.text();
}

void run(const Options& o) {
  check_options(o);
  check_host_limits(o);
  check_collectives_memory(o.ranks, o.elements, MemoryBudget::of_this_machine());
  RunDirectory dir("collectives", o.out, out_mode(o.overwrite));
  dir.run([&] {
    print_header(o);
    dir.write_file("collectives.csv", run_variants(o));
    dir.write_run_json({{"ranks", o.ranks},
                        {"gpus_per_node", o.gpus_per_node},
                        {"elements", o.elements},
                        {"steps", o.steps},
                        {"seed", o.seed},
                        {"backend", "local"}});
  });
  fmt::print("\nwrote {}/collectives.csv and run.json\n", dir.path().string());
}

}  // namespace

void register_collectives_command(CLI::App& app) {
  auto options = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "collectives",
      "Run every allreduce variant (fp32/fp16 ring, 1-bit sign, Birder binary, hierarchical) "
      "on local ranks and report bytes, inter-node bytes, accuracy and time");
  cmd->add_option("--ranks", options->ranks, "number of ranks (threads)")->capture_default_str();
  cmd->add_option("--gpus-per-node,--ranks-per-node", options->gpus_per_node,
                  "ranks (GPUs) per node (0 = all on one node); --ranks-per-node is an alias")
      ->check(in_range("--gpus-per-node", 0, kMaxRanks, "0 or a divisor of --ranks"))
      ->capture_default_str();
  cmd->add_option("--elements", options->elements, "elements per vector")
      ->check(non_negative("--elements"))
      ->capture_default_str();
  cmd->add_option("--steps", options->steps,
                  "calls per variant (error feedback carries across calls)")
      ->check(in_range("--steps", 1, kMaxIterations, "calls per variant"))
      ->capture_default_str();
  cmd->add_option("--seed", options->seed, "seed of the synthetic gradients")
      ->check(non_negative("--seed"))
      ->capture_default_str();
  cmd->add_option("--out", options->out, "run directory (default runs/collectives-<time>)")
      ->check(non_empty_out());
  add_overwrite_flag(*cmd, options->overwrite);
  cmd->callback([options] { run(*options); });
}

}  // namespace compopt::cli
