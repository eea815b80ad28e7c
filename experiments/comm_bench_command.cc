// `compopt comm-bench`: times fp32 ring allreduce and compressed allreduce on a
// chosen backend (local threads, a simulated star of links, TCP ranks started by
// `compopt launch`, or MPI ranks started by mpirun) and reports nccl-tests
// algbw / busbw per size. On sim the time is simulated wire time only (local
// compression work is not charged); on the real backends it is wall time.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>
#include <sstream>
#include <vector>

#include "core/comm/collectives/compressed_allreduce.h"
#include "core/comm/local/local_world.h"
#include "core/util/error.h"
#include "experiments/commands.h"
#include "experiments/memory_estimates.h"
#include "experiments/option_ranges.h"
#include "experiments/run_directory.h"
#ifdef COMPOPT_HAVE_TCP
#include "real_backend/tcp/tcp_world.h"
#endif
#ifdef COMPOPT_HAVE_MPI
#include "real_backend/mpi/mpi_world.h"
#endif
#ifdef COMPOPT_HAVE_SIM
#include "sim/sim_world.h"
#endif
#ifdef COMPOPT_HAVE_HYBRID
#include "real_backend/cuda/bench_variants.h"
#include "real_backend/cuda/hybrid_world.h"
#endif
#ifdef COMPOPT_HAVE_NCCL
#include "real_backend/nccl/nccl_world.h"
#endif

namespace compopt::cli {
namespace {

struct BenchOptions {
  std::string backend = "local";
  int ranks = 4;                 // local and sim backends only
  double link_gbps = 1.0;        // sim: every rank on its own node, star of links this fast
  double latency_us = 50.0;      // sim: one-way latency of each link
  double link_efficiency = 1.0;  // sim: fraction of the link rate that carries payload
  std::vector<double> sizes_mb{1, 4, 16, 64};
  std::vector<std::string> variants{"allreduce-fp32", "compressed-sign"};
  int iters = 5;
  int warmup = 1;
  std::string out;
};

struct Row {
  std::string variant;
  size_t bytes = 0;
  double seconds = 0;       // mean over iterations of the slowest rank
  uint64_t wire_bytes = 0;  // sent per rank per call
};

// One call of the variant on x (in place), with state kept across calls.
std::function<void(Communicator&, std::vector<float>&, uint64_t)> make_variant(
    const std::string& name) {
  if (name == "allreduce-fp32") {
    return
        [](Communicator& c, std::vector<float>& x, uint64_t) { c.allreduce(x, ReduceOp::kMean); };
  }
  if (name == "allreduce-fp16") {
    return [](Communicator& c, std::vector<float>& x, uint64_t) {
      c.allreduce(x, ReduceOp::kMean, WirePrecision::kFp16);
    };
  }
  if (name == "compressed-sign" || name == "compressed-binary") {
    auto compressor =
        std::shared_ptr<Compressor>(make_compressor(name == "compressed-sign" ? "sign" : "binary"));
    auto state = std::make_shared<CompressedAllreduceState>();
    return [compressor, state](Communicator& c, std::vector<float>& x, uint64_t step) {
      if (state->worker.size() != compressed_padded_length(x.size(), c.size())) {
        *state = CompressedAllreduceState(x.size(), c.size());
      }
      compressed_allreduce_mean(c, x, *compressor, *state, RandomKey{.seed = 3, .step = step});
    };
  }
  throw InvalidArgument(
      fmt::format("--variants: unknown variant '{}', expected allreduce-fp32, allreduce-fp16, "
                  "compressed-sign or compressed-binary",
                  name));
}

// Runs on every rank; returns the rows on rank 0 (empty elsewhere).
std::vector<Row> bench(Communicator& comm, const BenchOptions& o) {
  std::vector<Row> rows;
  for (const std::string& name : o.variants) {
    auto reduce = make_variant(name);
#ifdef COMPOPT_HAVE_HYBRID
    // hybrid and nccl: the vector lives on this rank's GPU, compression runs the CUDA kernels.
    if (cuda::rank_gpu() != nullptr)
      reduce = cuda::gpu_bench_variant(name, *cuda::rank_gpu(), reduce);
#endif
    for (double mb : o.sizes_mb) {
      const auto elements = static_cast<size_t>(mb * 1e6 / 4);
      std::vector<float> x(elements);
      for (size_t i = 0; i < elements; ++i)
        x[i] = std::sin(0.001f * static_cast<float>(i) + comm.rank());
      for (int w = 0; w < o.warmup; ++w) reduce(comm, x, static_cast<uint64_t>(w));
      comm.traffic().reset();
      double total = 0;
      for (int it = 0; it < o.iters; ++it) {
        comm.barrier();
        const double start = comm.now();
        reduce(comm, x, static_cast<uint64_t>(o.warmup + it));
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

void report(const BenchOptions& o, int ranks, const std::vector<Row>& rows) {
  RunDirectory dir("comm-bench", o.out);
  const double factor = ranks > 1 ? 2.0 * (ranks - 1) / ranks : 0.0;
  fmt::print("compopt comm-bench: backend {}, {} ranks, {} iterations (+{} warmup)\n\n", o.backend,
             ranks, o.iters, o.warmup);
  fmt::print("{:<18} {:>10} {:>12} {:>12} {:>12} {:>14}\n", "variant", "size MB", "time ms",
             "algbw GB/s", "busbw GB/s", "wire B/rank");
  std::ostringstream csv;
  csv << "backend,ranks,variant,bytes,seconds,algbw_gbps,busbw_gbps,wire_bytes_per_rank\n";
  for (const Row& r : rows) {
    const double algbw = static_cast<double>(r.bytes) / r.seconds / 1e9;
    fmt::print("{:<18} {:>10.2f} {:>12.3f} {:>12.3f} {:>12.3f} {:>14}\n", r.variant, r.bytes / 1e6,
               1e3 * r.seconds, algbw, algbw * factor, r.wire_bytes);
    csv << fmt::format("{},{},{},{},{:.6e},{:.6f},{:.6f},{}\n", o.backend, ranks, r.variant,
                       r.bytes, r.seconds, algbw, algbw * factor, r.wire_bytes);
  }
  dir.write_file("comm_bench.csv", csv.str());
  auto meta = nlohmann::json{{"backend", o.backend},   {"ranks", ranks},   {"sizes_mb", o.sizes_mb},
                             {"variants", o.variants}, {"iters", o.iters}, {"warmup", o.warmup}};
  if (o.backend == "sim") {
    meta["link_gbps"] = o.link_gbps;
    meta["latency_us"] = o.latency_us;
    meta["link_efficiency"] = o.link_efficiency;
  }
  dir.write_run_json(meta);
  fmt::print("\nwrote {}/comm_bench.csv and run.json\n", dir.path().string());
}

constexpr int kMaxRanks = 4096;  // local and sim: threads / simulated hosts of one machine
constexpr double kMaxLocalMb = 16384;

void run(const BenchOptions& o) {
  if ((o.backend == "local" || o.backend == "sim") && (o.ranks < 1 || o.ranks > kMaxRanks))
    throw InvalidArgument(fmt::format("--ranks {}: expected 1..{}", o.ranks, kMaxRanks));
  if (!(o.link_efficiency > 0 && o.link_efficiency <= 1))
    throw InvalidArgument(
        fmt::format("--link-efficiency {}: expected a fraction in (0, 1]", o.link_efficiency));
  // Rank 0 creates the run directory only after the benchmark: refuse a bad --out before it.
  std::error_code ec;
  if (!o.out.empty() && std::filesystem::exists(o.out, ec) &&
      !std::filesystem::is_directory(o.out, ec))
    throw InvalidArgument(fmt::format("--out {}: exists and is not a directory", o.out));
  if (o.sizes_mb.empty()) throw InvalidArgument("--sizes: no size given, expected MB in (0, 4096]");
  if (o.variants.empty()) throw InvalidArgument("--variants: no variant given");
  for (double mb : o.sizes_mb) {
    if (!(mb > 0) || mb > 4096)
      throw InvalidArgument(fmt::format("--sizes {}: expected MB in (0, 4096]", mb));
  }
  if (o.backend == "local" || o.backend == "sim") {  // every rank's vector lives in this process
    const double largest = *std::max_element(o.sizes_mb.begin(), o.sizes_mb.end());
    if (largest * o.ranks > kMaxLocalMb) {
      throw InvalidArgument(
          fmt::format("--sizes {} MB x --ranks {}: {} MB of vectors in one "
                      "process, expected at most {} MB",
                      largest, o.ranks, largest * o.ranks, kMaxLocalMb));
    }
    check_comm_bench_memory(o.ranks, o.sizes_mb, o.variants, MemoryBudget::of_this_machine());
  }
  for (const auto& v : o.variants) make_variant(v);  // rejects unknown names before any work
  auto body = [&o](Communicator& comm) {
    const auto rows = bench(comm, o);
    if (comm.rank() == 0) report(o, comm.size(), rows);
  };
  if (o.backend == "local") {
    LocalWorld({.ranks = o.ranks}).run(body);
#ifdef COMPOPT_HAVE_SIM
  } else if (o.backend == "sim") {
    net::ClusterSpec cluster;
    cluster.name = "comm-bench";
    cluster.nodes = o.ranks;
    cluster.gpus_per_node = 1;
    cluster.inter_node_gbps = o.link_gbps;
    cluster.inter_node_latency_s = o.latency_us * 1e-6;
    cluster.inter_node_efficiency = o.link_efficiency;
    sim::run_sim(cluster, o.ranks, 1, body);
#endif
#ifdef COMPOPT_HAVE_TCP
  } else if (o.backend == "tcp") {
    tcp::run_tcp_rank(tcp::tcp_options_from_env(), body);
#endif
#ifdef COMPOPT_HAVE_MPI
  } else if (o.backend == "mpi") {
    mpi::run_mpi(body, mpi::mpi_options_from_env());
#endif
#ifdef COMPOPT_HAVE_HYBRID
  } else if (o.backend == "hybrid") {  // TCP ranks (compopt launch) sharing GPUs for the kernels
    cuda::run_hybrid_rank(tcp::tcp_options_from_env(),
                          [&](Communicator& comm, cuda::GpuContext&) { body(comm); });
#endif
#ifdef COMPOPT_HAVE_NCCL
  } else if (o.backend == "nccl") {  // one GPU per rank, started by compopt launch
    nccl::run_nccl_rank(tcp::tcp_options_from_env(), body);
#endif
  } else {
    throw InvalidArgument(fmt::format(
        "--backend {}: expected local{}{}{}{}{} (backends in this build)", o.backend,
#ifdef COMPOPT_HAVE_SIM
        ", sim",
#else
        "",
#endif
#ifdef COMPOPT_HAVE_TCP
        ", tcp",
#else
        "",
#endif
#ifdef COMPOPT_HAVE_MPI
        ", mpi",
#else
        "",
#endif
#ifdef COMPOPT_HAVE_HYBRID
        ", hybrid",
#else
        "",
#endif
#ifdef COMPOPT_HAVE_NCCL
        ", nccl"
#else
        ""
#endif
        ));
  }
}

}  // namespace

void register_comm_bench_command(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* cmd = app.add_subcommand(
      "comm-bench",
      "Time fp32 ring allreduce and compressed allreduce on a backend (local, tcp under "
      "`compopt launch`, mpi under mpirun); report algbw and busbw");
  cmd->add_option("--backend", o->backend, "local | sim | tcp | mpi | hybrid | nccl (GPU builds)")
      ->capture_default_str();
  cmd->add_option("--ranks", o->ranks,
                  "ranks (local and sim; tcp and mpi take it from the launcher)")
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
  cmd->add_option("--sizes", o->sizes_mb, "vector sizes in MB (fp32)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--variants", o->variants,
                  "allreduce-fp32, allreduce-fp16, compressed-sign, compressed-binary")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--iters", o->iters, "timed calls per size")
      ->check(in_range("--iters", 1, kMaxIterations, "timed calls per size"))
      ->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "untimed calls per size")
      ->check(in_range("--warmup", 0, kMaxIterations, "untimed calls per size"))
      ->capture_default_str();
  cmd->add_option("--out", o->out,
                  "run directory written by rank 0 (default runs/comm-bench-<time>)");
  cmd->callback([o] { run(*o); });
}

}  // namespace compopt::cli
