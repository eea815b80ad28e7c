// Hybrid mode (TCP ranks sharing one GPU for the kernels): the GPU compressed and hierarchical
// allreduce against the CPU functions on the local backend, bit for bit: outputs on every rank,
// error feedback and traffic counters. Skipped, with the reason, without a CUDA device.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/comm/collectives/compressed_allreduce.h"
#include "core/comm/collectives/hierarchical_allreduce.h"
#include "core/comm/local/local_world.h"
#include "core/compress/compressor.h"
#include "core/util/error.h"
#include "real_backend/cuda_kernels/gpu_compressed_allreduce.h"
#include "real_backend/cuda_kernels/gpu_hierarchical_allreduce.h"
#include "real_backend/hybrid/hybrid_world.h"
#include "tests/conformance/per_rank.h"
#include "tests/real_backend/cuda_kernels/gpu_test_util.h"

namespace compopt::cuda::testing {
namespace {

using compopt::testing::PerRank;
using hybrid::HybridCommunicator;
using hybrid::run_hybrid_threads;

constexpr int kSteps = 3;

std::vector<float> rank_input(int rank, int step, size_t d) {
  std::vector<float> x(d);
  for (size_t i = 0; i < d; ++i) {
    x[i] = std::sin(0.37f * static_cast<float>(i) + 1.3f * static_cast<float>(rank) +
                    0.7f * static_cast<float>(step)) *
           (1.0f + 0.25f * static_cast<float>(rank));
  }
  return x;
}

struct RankResult {
  std::vector<std::vector<float>> outputs;  // per step
  CompressedAllreduceState state;
  TrafficTally traffic;
};

tcp::TcpOptions quick_tcp() {
  tcp::TcpOptions o;
  o.op_timeout_s = 30.0;
  o.connect_timeout_s = 30.0;
  o.linger_s = 5.0;
  o.quiet = true;
  return o;
}

void expect_same(const PerRank<RankResult>& gpu, const PerRank<RankResult>& cpu,
                 const std::string& what) {
  for (int r = 0; r < cpu.size(); ++r) {
    SCOPED_TRACE(what + " rank " + std::to_string(r));
    ASSERT_EQ(gpu[r].outputs.size(), cpu[r].outputs.size());
    for (size_t t = 0; t < cpu[r].outputs.size(); ++t) {
      ASSERT_TRUE(same_bits(gpu[r].outputs[t], cpu[r].outputs[t])) << "step " << t;
    }
    const auto errors = [](const ErrorFeedback& ef) {
      return std::vector<float>(ef.error().begin(), ef.error().end());
    };
    EXPECT_TRUE(same_bits(errors(gpu[r].state.worker), errors(cpu[r].state.worker))) << "worker EF";
    EXPECT_TRUE(same_bits(errors(gpu[r].state.server), errors(cpu[r].state.server))) << "server EF";
    EXPECT_EQ(gpu[r].traffic, cpu[r].traffic) << "traffic";
  }
}

TEST(HybridCompressedAllreduce, MatchesCpuOnEveryRankBitForBit) {
  COMPOPT_REQUIRE_GPU();
  for (const char* spec : {"sign", "binary"}) {
    const auto compressor = make_compressor(spec);
    for (int n : {2, 3, 5, 8}) {
      for (size_t d : {size_t{0}, size_t{1}, size_t{7}, size_t{1003}, size_t{3 * 65536 + 11}}) {
        const std::string what =
            std::string(spec) + " n=" + std::to_string(n) + " d=" + std::to_string(d);
        const auto body = [&](PerRank<RankResult>& out, auto&& allreduce) {
          return [&, allreduce](Communicator& comm, GpuContext* gpu) {
            RankResult& mine = out[comm.rank()];
            mine.state = CompressedAllreduceState(d, comm.size());
            comm.traffic().reset();
            for (int t = 0; t < kSteps; ++t) {
              auto x = rank_input(comm.rank(), t, d);
              allreduce(comm, gpu, x, mine.state,
                        RandomKey{.seed = 0x5eed, .step = static_cast<uint64_t>(t)});
              mine.outputs.push_back(x);
            }
            mine.traffic = comm.traffic().total();
          };
        };
        PerRank<RankResult> cpu(n), gpu(n);
        const auto cpu_body = body(cpu, [&](Communicator& c, GpuContext*, std::vector<float>& x,
                                            CompressedAllreduceState& s, RandomKey key) {
          compressed_allreduce_mean(c, x, *compressor, s, key);
        });
        const auto gpu_body = body(gpu, [&](Communicator& c, GpuContext* g, std::vector<float>& x,
                                            CompressedAllreduceState& s, RandomKey key) {
          compressed_allreduce_mean(*g, c, x, *compressor, s, key);
        });
        run_local(n, [&](Communicator& comm) { cpu_body(comm, nullptr); });
        run_hybrid_threads(
            n, 0, [&](HybridCommunicator& comm) { gpu_body(comm, &comm.gpu()); }, quick_tcp());
        expect_same(gpu, cpu, what);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(HybridCompressedAllreduce, DeviceStateApiMatchesHostDropIn) {
  COMPOPT_REQUIRE_GPU();
  const int n = 4;
  const size_t d = 70001;
  for (const char* spec : {"sign", "binary"}) {
    const auto compressor = make_compressor(spec);
    PerRank<std::vector<std::vector<float>>> host_out(n), device_out(n);
    PerRank<CompressedStepTimes> times(n);
    run_hybrid_threads(
        n, 0,
        [&](HybridCommunicator& comm) {
          GpuContext& gpu = comm.gpu();
          CompressedAllreduceState host_state(d, n);
          GpuCompressedState device_state(gpu, d, n);
          DeviceBuffer x(d * sizeof(float));
          for (int t = 0; t < kSteps; ++t) {
            const RandomKey key{.seed = 4, .step = static_cast<uint64_t>(t)};
            auto h = rank_input(comm.rank(), t, d);
            compressed_allreduce_mean(gpu, comm, h, *compressor, host_state, key);
            host_out[comm.rank()].push_back(h);
            const auto input = rank_input(comm.rank(), t, d);
            gpu.copy(x.data(), input.data(), d * sizeof(float));
            compressed_allreduce_mean(gpu, comm, x.as<float>(), d, require_codec(*compressor),
                                      device_state.view(), key, &times[comm.rank()]);
            std::vector<float> back(d);
            gpu.copy(back.data(), x.data(), d * sizeof(float));
            gpu.synchronize();
            device_out[comm.rank()].push_back(back);
          }
          CompressedAllreduceState downloaded(d, n);
          device_state.download(gpu, downloaded);
          EXPECT_TRUE(same_bits(std::vector<float>(downloaded.worker.error().begin(),
                                                   downloaded.worker.error().end()),
                                std::vector<float>(host_state.worker.error().begin(),
                                                   host_state.worker.error().end())));
        },
        quick_tcp());
    for (int r = 0; r < n; ++r) {
      for (int t = 0; t < kSteps; ++t) {
        ASSERT_TRUE(
            same_bits(device_out[r][static_cast<size_t>(t)], host_out[r][static_cast<size_t>(t)]))
            << spec << " rank " << r << " step " << t;
      }
      const CompressedStepTimes& s = times[r];
      EXPECT_GT(s.encode + s.alltoall + s.server + s.allgather + s.decode, 0.0)
          << "phase times recorded";
    }
  }
}

TEST(HybridCompressedAllreduce, RejectsCompressorsWithoutKernels) {
  COMPOPT_REQUIRE_GPU();
  run_hybrid_threads(
      1, 0,
      [&](HybridCommunicator& comm) {
        GpuContext& gpu = comm.gpu();
        std::vector<float> x(8, 1.0f);
        CompressedAllreduceState state(8, 1);
        EXPECT_THROW(
            compressed_allreduce_mean(gpu, comm, x, *make_compressor("nbit:4"), state, RandomKey{}),
            InvalidArgument);
        CompressedAllreduceState wrong(16, 1);
        EXPECT_THROW(
            compressed_allreduce_mean(gpu, comm, x, *make_compressor("sign"), wrong, RandomKey{}),
            InvalidArgument);
      },
      quick_tcp());
}

TEST(HybridHierarchicalAllreduce, MatchesCpuOnEveryRankBitForBit) {
  COMPOPT_REQUIRE_GPU();
  for (const char* spec : {"sign", "binary"}) {
    const auto compressor = make_compressor(spec);
    for (const auto& [nodes, per_node] :
         std::vector<std::pair<int, int>>{{1, 2}, {2, 2}, {2, 4}, {4, 2}}) {
      const int n = nodes * per_node;
      for (size_t d : {size_t{7}, size_t{1003}, size_t{65536 * 2 + 3}}) {
        const std::string what = std::string(spec) + " " + std::to_string(nodes) + "x" +
                                 std::to_string(per_node) + " d=" + std::to_string(d);
        PerRank<RankResult> cpu(n), gpu(n);
        const auto body = [&](PerRank<RankResult>& out, Communicator& comm, GpuContext* g) {
          auto groups = HierarchicalGroups::split(comm);
          RankResult& mine = out[comm.rank()];
          mine.state = hierarchical_state(d, groups);
          comm.traffic().reset();
          for (int t = 0; t < kSteps; ++t) {
            auto x = rank_input(comm.rank(), t, d);
            const RandomKey key{.seed = 9, .step = static_cast<uint64_t>(t)};
            const ShardTransform twice = [](std::span<float> shard, size_t) {
              for (float& v : shard) v *= 2.0f;
            };
            if (g != nullptr) {
              hierarchical_compressed_allreduce_mean(*g, groups, x, *compressor, mine.state, key,
                                                     twice);
            } else {
              hierarchical_compressed_allreduce_mean(groups, x, *compressor, mine.state, key,
                                                     twice);
            }
            mine.outputs.push_back(x);
          }
          mine.traffic = comm.traffic().total();
        };
        run_local(
            n, [&](Communicator& comm) { body(cpu, comm, nullptr); }, per_node);
        run_hybrid_threads(
            n, per_node, [&](HybridCommunicator& comm) { body(gpu, comm, &comm.gpu()); },
            quick_tcp());
        expect_same(gpu, cpu, what);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// Runs everywhere: without a device, hybrid mode refuses to start and says why.
TEST(HybridWorld, WithoutDeviceFailsWithTheReason) {
  if (device_count() > 0)
    GTEST_SKIP() << "a CUDA device is present (this test covers machines without one)";
  try {
    run_hybrid_threads(2, 0, [](HybridCommunicator&) { FAIL() << "rank ran without a GPU"; });
    FAIL() << "expected CudaError";
  } catch (const CudaError& e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA device"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace compopt::cuda::testing
