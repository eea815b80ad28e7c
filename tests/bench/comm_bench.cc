// Collectives on the Local backend (8 ranks as threads, 2 nodes of 4), at 2^16 and
// 2^20 fp32 elements per rank. Time is measured on rank 0 from a barrier to the end
// of one call (thread start-up excluded, UseManualTime) and compared with a memcpy
// of one rank's input vector (ratio_reporter.h).
#include <benchmark/benchmark.h>

#include <atomic>
#include <cmath>
#include <functional>
#include <vector>

#include "core/comm/collectives/compressed_allreduce.h"
#include "core/comm/collectives/hierarchical_allreduce.h"
#include "core/comm/local/local_world.h"
#include "tests/bench/memcpy_baseline.h"
#include "tests/bench/ratio_reporter.h"

namespace compopt::bench {
namespace {

constexpr int kRanks = 8;
constexpr int kRanksPerNode = 4;

[[maybe_unused]] const bool kBaselines = [] {
  for (int64_t k : {int64_t{1} << 16, int64_t{1} << 20}) ensure_memcpy_baseline(4 * k);
  return true;
}();

// setup(comm, d) runs untimed before the call and returns the timed call.
using Setup = std::function<std::function<void(std::vector<float>&)>(Communicator&, size_t)>;

void run_collective(benchmark::State& state, const Setup& setup) {
  const auto d = static_cast<size_t>(state.range(0));
  LocalWorld world({.ranks = kRanks, .gpus_per_node = kRanksPerNode});
  for (auto _ : state) {
    std::atomic<double> seconds{0};
    world.run([&](Communicator& comm) {
      std::vector<float> x(d);
      for (size_t i = 0; i < d; ++i) x[i] = std::sin(0.01f * static_cast<float>(i + comm.rank()));
      auto call = setup(comm, d);
      comm.barrier();
      const double start = comm.now();
      call(x);
      if (comm.rank() == 0) seconds = comm.now() - start;
    });
    state.SetIterationTime(seconds.load());
  }
  set_input_bytes(state, static_cast<int64_t>(4 * d));
}

void BM_allreduce_fp32(benchmark::State& state) {
  run_collective(state, [](Communicator& comm, size_t) {
    return [&comm](std::vector<float>& x) { comm.allreduce(x, ReduceOp::kMean); };
  });
}

void BM_allreduce_fp16(benchmark::State& state) {
  run_collective(state, [](Communicator& comm, size_t) {
    return [&comm](std::vector<float>& x) {
      comm.allreduce(x, ReduceOp::kMean, WirePrecision::kFp16);
    };
  });
}

void BM_compressed_allreduce_sign(benchmark::State& state) {
  run_collective(state, [](Communicator& comm, size_t d) {
    auto sign = std::shared_ptr<Compressor>(make_compressor("sign"));
    auto ef = std::make_shared<CompressedAllreduceState>(d, comm.size());
    return [&comm, sign, ef](std::vector<float>& x) {
      compressed_allreduce_mean(comm, x, *sign, *ef, RandomKey{});
    };
  });
}

void BM_compressed_allreduce_binary(benchmark::State& state) {
  run_collective(state, [](Communicator& comm, size_t d) {
    auto binary = std::shared_ptr<Compressor>(make_compressor("binary"));
    auto ef = std::make_shared<CompressedAllreduceState>(d, comm.size());
    return [&comm, binary, ef](std::vector<float>& x) {
      compressed_allreduce_mean(comm, x, *binary, *ef, RandomKey{});
    };
  });
}

void BM_hierarchical_allreduce_sign(benchmark::State& state) {
  run_collective(state, [](Communicator& comm, size_t d) {
    auto groups = std::make_shared<HierarchicalGroups>(HierarchicalGroups::split(comm));
    auto sign = std::shared_ptr<Compressor>(make_compressor("sign"));
    auto ef = std::make_shared<CompressedAllreduceState>(hierarchical_state(d, *groups));
    return [groups, sign, ef](std::vector<float>& x) {
      hierarchical_compressed_allreduce_mean(*groups, x, *sign, *ef, RandomKey{});
    };
  });
}

void BM_alltoall(benchmark::State& state) {
  run_collective(state, [](Communicator& comm, size_t d) {
    auto out = std::make_shared<std::vector<float>>(d - d % kRanks);
    return [&comm, out](std::vector<float>& x) {
      comm.alltoall(std::as_bytes(std::span(x).first(out->size())),
                    std::as_writable_bytes(std::span(*out)));
    };
  });
}

#define COMPOPT_COMM_BENCH(name) \
  BENCHMARK(name)                \
      ->Arg(int64_t{1} << 16)    \
      ->Arg(int64_t{1} << 20)    \
      ->UseManualTime()          \
      ->Unit(benchmark::kMicrosecond)
COMPOPT_COMM_BENCH(BM_allreduce_fp32);
COMPOPT_COMM_BENCH(BM_allreduce_fp16);
COMPOPT_COMM_BENCH(BM_compressed_allreduce_sign);
COMPOPT_COMM_BENCH(BM_compressed_allreduce_binary);
COMPOPT_COMM_BENCH(BM_hierarchical_allreduce_sign);
COMPOPT_COMM_BENCH(BM_alltoall);

}  // namespace
}  // namespace compopt::bench
