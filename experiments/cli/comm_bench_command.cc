// `compopt comm-bench`: times the allreduce variants (allreduce_variants.h: fp32 / fp16 ring,
// compressed, hierarchical) on any backend of the registry (local threads, a simulated star
// of links, TCP, hybrid or NCCL ranks started by `compopt launch`, MPI ranks started by
// mpirun) and reports nccl-tests algbw / busbw per size. Variants call the communicator's
// collectives, so each backend runs its own version (the CUDA kernels for the compressed ones
// on hybrid and nccl). On a simulated backend (sim) the time is simulated wire time only
// (local compression work is not charged); on the real backends it is wall time.
//
// Sizes: --sizes (MB lists) or nccl-tests' sweep flags -b/-e/-f/-i (nccl_tests_format.h).
// Output: one table per variant in nccl-tests' layout (a parser of all_reduce_perf logs reads
// it; the collectives reduce in place, so both column groups show the same calls) and
// comm_bench.csv.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <vector>

#include "core/util/csv_schema.h"
#include "core/util/env.h"
#include "core/util/error.h"
#include "experiments/cli/allreduce_variants.h"
#include "experiments/cli/commands.h"
#include "experiments/cli/nccl_tests_format.h"
#include "experiments/run_directory/run_directory.h"
#include "experiments/scenario/host_memory.h"
#include "experiments/scenario/option_ranges.h"
#include "real_backend/backend_registry.h"

namespace compopt::cli {
namespace {

struct BenchOptions {
  std::string backend = "local";
  int ranks = 4;                 // local and sim backends only
  double link_gbps = 1.0;        // sim: every rank on its own node, star of links this fast
  double latency_us = 50.0;      // sim: one-way latency of each link
  double link_efficiency = 1.0;  // sim: fraction of the link rate that carries payload
  std::vector<double> sizes_mb{1, 4, 16, 64};  // --sizes; ignored under a -b/-e/-f/-i sweep
  SweepFlags sweep;                            // nccl-tests' -b/-e/-f/-i
  std::vector<uint64_t> bytes;                 // the sizes timed (resolve_sizes)
  std::vector<std::string> variants{"allreduce-fp32", "compressed-sign"};
  int iters = 5;
  int warmup = 1;
  std::string out;
  bool overwrite = false;
};

struct Row {
  std::string variant;
  size_t bytes = 0;
  double seconds = 0;       // mean over iterations of the slowest rank
  uint64_t wire_bytes = 0;  // sent per rank per call
};

const AllreduceVariant& find_variant(const std::string& name) {
  try {
    return allreduce_variants().get(name);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(fmt::format("--variants: {}", e.what()));
  }
}

// Runs on every rank; returns the rows on rank 0 (empty elsewhere).
std::vector<Row> bench(Communicator& comm, const BenchOptions& o) {
  std::vector<Row> rows;
  for (const std::string& name : o.variants) {
    const AllreduceCall reduce = find_variant(name).make(comm);
    for (uint64_t bytes : o.bytes) {
      const auto elements = static_cast<size_t>(bytes / 4);
      std::vector<float> x(elements);
      for (size_t i = 0; i < elements; ++i)
        x[i] = std::sin(0.001f * static_cast<float>(i) + static_cast<float>(comm.rank()));
      for (int w = 0; w < o.warmup; ++w) reduce(comm, x, static_cast<uint64_t>(w));
      comm.traffic().reset();
      double total = 0;
      for (int it = 0; it < o.iters; ++it) {
        comm.barrier();
        const double start = comm.now();
        reduce(comm, x, static_cast<uint64_t>(o.warmup) + static_cast<uint64_t>(it));
        total += comm.now() - start;
      }
      const uint64_t wire = (comm.traffic().total().bytes - comm.traffic().of("barrier").bytes) /
                            static_cast<uint64_t>(o.iters);
      const double mine = total / o.iters;
      std::vector<double> all(static_cast<size_t>(comm.size()));
      comm.allgather(std::as_bytes(std::span(&mine, 1)), std::as_writable_bytes(std::span(all)));
      if (comm.rank() == 0)
        rows.push_back({name, elements * 4, *std::max_element(all.begin(), all.end()), wire});
    }
  }
  return rows;
}

// The nccl-tests table of one variant's rows (in place: both column groups show them).
std::string variant_table(const BenchOptions& o, int ranks, const std::string& variant,
                          const std::vector<Row>& rows, const std::string& backend_note) {
  NcclTestsTable t;
  t.redop = "avg";  // every variant reduces to the mean
  t.bus_factor = ranks > 1 ? 2.0 * (ranks - 1) / ranks : 0.0;
  t.header = {
      fmt::format("Collective test starting: all_reduce, compopt comm-bench variant {} ({})",
                  variant, allreduce_variants().get(variant).help),
      fmt::format("compopt {}: {} ranks, {} warmup iters, {} iters per size; {}", o.backend, ranks,
                  o.warmup, o.iters, backend_note),
      "in place: comm-bench's collectives reduce in place; the out-of-place and in-place "
      "columns show the same timed calls (no data check: #wrong N/A)"};
  for (const Row& r : rows) {
    if (r.variant != variant) continue;
    t.lines.push_back({r.bytes, r.bytes / 4, r.seconds, r.seconds, {}});
  }
  return format_nccl_tests_table(t);
}

std::string backend_note(const BenchOptions& o, bool simulated) {
  if (!simulated) return "wall time of the slowest rank";
  return fmt::format(
      "simulated wire time of the slowest rank, one rank per node on a star of {:g} Gbit/s "
      "links, {:g} us one way, link efficiency {:g}",
      o.link_gbps, o.latency_us, o.link_efficiency);
}

void report(const BenchOptions& o, bool simulated, int ranks, const std::vector<Row>& rows) {
  RunDirectory dir("comm-bench", o.out, out_mode(o.overwrite));
  dir.run([&] {
    const double factor = ranks > 1 ? 2.0 * (ranks - 1) / ranks : 0.0;
    for (const std::string& v : o.variants)
      fmt::print("{}\n", variant_table(o, ranks, v, rows, backend_note(o, simulated)));
    // Bandwidths in gigabytes (1e9 bytes) per second, as NCCL's tests report them.
    static const CsvSchema schema("comm_bench.csv", {{"backend"},
                                                     {"ranks"},
                                                     {"variant"},
                                                     {"bytes"},
                                                     {"seconds", "{:.6e}"},
                                                     {"algbw_GBps", "{:.6f}"},
                                                     {"busbw_GBps", "{:.6f}"},
                                                     {"wire_bytes_per_rank"}});
    CsvWriter csv(schema);
    for (const Row& r : rows) {
      const double algbw = algbw_gbs(r.bytes, r.seconds);
      csv.add(
          {o.backend, ranks, r.variant, r.bytes, r.seconds, algbw, algbw * factor, r.wire_bytes});
    }
    dir.write_file("comm_bench.csv", csv.text());
    auto meta =
        nlohmann::json{{"backend", o.backend},   {"ranks", ranks},   {"sizes_bytes", o.bytes},
                       {"variants", o.variants}, {"iters", o.iters}, {"warmup", o.warmup}};
    if (simulated) {
      meta["link_gbps"] = o.link_gbps;
      meta["latency_us"] = o.latency_us;
      meta["link_efficiency"] = o.link_efficiency;
    }
    dir.write_run_json(meta);
  });
  fmt::print("wrote {}/comm_bench.csv and run.json\n", dir.path().string());
}

constexpr int kMaxRanks = 4096;  // local and sim: threads / simulated hosts of one machine
constexpr double kMaxLocalMb = 16384;

// A registry's --help lines, without the final newline (CLI11 ends the option itself).
template <typename Entry>
std::string option_help(const std::string& title, const Registry<Entry>& registry) {
  std::string lines = registry.help_lines();
  if (!lines.empty()) lines.pop_back();
  return title + "\n" + lines;
}

// The registered backend of --backend, or InvalidArgument listing every backend.
const BackendEntry& find_backend(const std::string& name) {
  try {
    return backend_registry().get(name);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(fmt::format("--backend {}: {}", name, e.what()));
  }
}

constexpr double kMaxMessageMb = 4096;

// --sizes in MB: each at least one fp32 element and at most kMaxMessageMb.
std::vector<uint64_t> listed_sizes(const std::vector<double>& sizes_mb) {
  if (sizes_mb.empty()) throw InvalidArgument("--sizes: no size given, expected MB in (0, 4096]");
  std::vector<uint64_t> bytes;
  for (double mb : sizes_mb) {  // at least one fp32 element: 4e-6 MB
    if (!(mb > 0) || mb > kMaxMessageMb || static_cast<uint64_t>(mb * 1e6 / 4) < 1) {
      throw InvalidArgument(
          fmt::format("--sizes {}: expected MB in [4e-06, 4096] (at least one fp32 element)", mb));
    }
    bytes.push_back(static_cast<uint64_t>(mb * 1e6 / 4) * 4);
  }
  return bytes;
}

// The sizes to time: --sizes or the sweep, not both (`sizes_given`: --sizes was on the
// command line).
std::vector<uint64_t> resolve_sizes(const BenchOptions& o, bool sizes_given) {
  if (o.sweep.given() && sizes_given) {
    throw InvalidArgument(
        "--sizes and -b/-e/-f/-i both given: expected one of them (--sizes lists MB, -b/-e/-f/-i "
        "sweep bytes as nccl-tests does)");
  }
  return o.sweep.given() ? fp32_sweep_sizes(o.sweep, kMaxMessageMb * 1e6)
                         : listed_sizes(o.sizes_mb);
}

// Throws InvalidArgument for the first bad option (before any rank starts).
void check(const BenchOptions& o, const BackendEntry& backend) {
  if (const std::string why = backend.available(); !why.empty())
    throw InvalidArgument(fmt::format("--backend {}: {}", o.backend, why));
  const bool in_process = !backend.traits.launched;  // the ranks are this process's threads
  if (in_process && (o.ranks < 1 || o.ranks > kMaxRanks))
    throw InvalidArgument(fmt::format("--ranks {}: expected 1..{}", o.ranks, kMaxRanks));
  // An in-process backend started by a launcher would run the whole benchmark in every process.
  const char* world = env_value("WORLD_SIZE");
  if (in_process && world != nullptr && parse_env_integer("WORLD_SIZE", world, 1, 1 << 20) > 1) {
    throw InvalidArgument(fmt::format(
        "--backend {} runs every rank inside one process, but this process was started as one "
        "of WORLD_SIZE={} (compopt launch): use --backend tcp to benchmark across the launched "
        "processes",
        o.backend, world));
  }
  if (!(o.link_efficiency > 0 && o.link_efficiency <= 1))
    throw InvalidArgument(
        fmt::format("--link-efficiency {}: expected a fraction in (0, 1]", o.link_efficiency));
  if (o.variants.empty()) throw InvalidArgument("--variants: no variant given");
  int copies = 0;  // rejects unknown names before any work
  for (const auto& v : o.variants) copies = std::max(copies, find_variant(v).peak_copies);
  if (in_process) {  // every rank's vector lives in this process
    const double largest =
        static_cast<double>(*std::max_element(o.bytes.begin(), o.bytes.end())) / 1e6;
    if (largest * o.ranks > kMaxLocalMb) {
      throw InvalidArgument(
          fmt::format("--sizes {} MB x --ranks {}: {} MB of vectors in one "
                      "process, expected at most {} MB",
                      largest, o.ranks, largest * o.ranks, kMaxLocalMb));
    }
    check_comm_bench_memory(o.ranks, {largest}, copies, MemoryBudget::of_this_machine());
  }
  // Rank 0 creates the run directory only after the benchmark: refuse a bad --out before it.
  check_out_dir(o.out, out_mode(o.overwrite));
}

// In-process backends (local, sim) start --ranks ranks, each on its own node of the simulated
// star; launched ones (tcp, mpi, hybrid, nccl) are one rank of the launcher's world.
WorldOptions world_options(const BenchOptions& o, const BackendEntry& backend) {
  WorldOptions world;
  if (!backend.traits.launched) {
    world.ranks = o.ranks;
    world.gpus_per_node = backend.traits.simulated ? 1 : 0;
  }
  if (backend.traits.simulated) {
    world.extras = {{"link_gbps", o.link_gbps},
                    {"latency_us", o.latency_us},
                    {"link_efficiency", o.link_efficiency}};
  }
  return world;
}

void run(BenchOptions& o, bool sizes_given) {
  o.bytes = resolve_sizes(o, sizes_given);
  const BackendEntry& backend = find_backend(o.backend);
  check(o, backend);
  backend.run(world_options(o, backend), [&o, &backend](Communicator& comm) {
    const auto rows = bench(comm, o);
    if (comm.rank() == 0) report(o, backend.traits.simulated, comm.size(), rows);
  });
}

}  // namespace

void register_comm_bench_command(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* cmd = app.add_subcommand(
      "comm-bench",
      "Time fp32 ring allreduce and compressed allreduce on a backend (local, sim; tcp, hybrid, "
      "nccl under `compopt launch`; mpi under mpirun); report algbw and busbw");
  cmd->add_option("--backend", o->backend, option_help("backend, one of:", backend_registry()))
      ->capture_default_str();
  cmd->add_option("--ranks", o->ranks,
                  "ranks (local and sim; launched backends take it from the launcher)")
      ->capture_default_str();
  cmd->add_option("--link-gbps", o->link_gbps, "sim: link rate of each rank's node, Gbit/s")
      ->check(in_range("--link-gbps", kMinLinkGbps, kMaxLinkGbps,
                       "Gbit/s between 1 Mbit/s and 100 Tbit/s, the rates a network link can have"))
      ->capture_default_str();
  cmd->add_option("--latency-us", o->latency_us, "sim: one-way link latency, microseconds")
      ->check(in_range("--latency-us", 0, kMaxLatencyUs,
                       "microseconds; no network path on Earth takes longer than 1 s one way"))
      ->capture_default_str();
  cmd->add_option("--link-efficiency", o->link_efficiency,
                  "sim: fraction of the link rate that carries payload, the rest being protocol "
                  "headers (TCP/IPv4 in 1500-byte Ethernet frames: 1448/1514 = 0.9564)")
      ->capture_default_str();
  CLI::Option* sizes =
      cmd->add_option("--sizes", o->sizes_mb, "vector sizes in MB (fp32); or -b/-e/-f/-i")
          ->delimiter(',')
          ->capture_default_str();
  add_sweep_flags(*cmd, o->sweep);
  cmd->add_option("--variants", o->variants, option_help("variants, from:", allreduce_variants()))
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--iters", o->iters, "timed calls per size")
      ->check(in_range("--iters", 1, kMaxIterations, "timed calls per size"))
      ->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "untimed calls per size")
      ->check(in_range("--warmup", 0, kMaxIterations, "untimed calls per size"))
      ->capture_default_str();
  cmd->add_option("--out", o->out,
                  "run directory written by rank 0 (default runs/comm-bench-<time>)")
      ->check(non_empty_out());
  add_overwrite_flag(*cmd, o->overwrite);
  cmd->callback([o, sizes] { run(*o, sizes->count() > 0); });
}

}  // namespace compopt::cli
