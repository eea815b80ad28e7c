// NCCL backend: error messages (everywhere), and on machines with GPUs the native collectives on
// host and device buffers, split, traffic records, and the GPU compressed/hierarchical allreduce
// over NCCL against the CPU functions. A world of n ranks needs n devices (world size 1 runs on
// any GPU machine); without a device the tests are skipped with the reason.

#include "real_backend/nccl/nccl_communicator.h"

#include <gtest/gtest.h>
#include <nccl.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "core/comm/collectives/compressed_allreduce.h"
#include "core/comm/collectives/hierarchical_allreduce.h"
#include "core/comm/local/local_world.h"
#include "core/compress/compressor.h"
#include "core/util/error.h"
#include "real_backend/cuda_kernels/gpu_compressed_allreduce.h"
#include "real_backend/cuda_kernels/gpu_hierarchical_allreduce.h"
#include "real_backend/nccl/nccl_error.h"
#include "real_backend/nccl/nccl_world.h"
#include "tests/conformance/per_rank.h"
#include "tests/real_backend/cuda_kernels/gpu_test_util.h"

namespace compopt::nccl {
namespace {

using compopt::testing::PerRank;
using cuda::testing::same_bits;

tcp::TcpOptions quick_tcp() {
  tcp::TcpOptions o;
  o.op_timeout_s = 30.0;
  o.connect_timeout_s = 30.0;
  o.linger_s = 5.0;
  o.quiet = true;
  return o;
}

// World sizes to try: 1, and every device count up to 4 when there are several GPUs.
std::vector<int> world_sizes() {
  std::vector<int> sizes;
  for (int n = 1; n <= std::min(cuda::device_count(), 4); ++n) sizes.push_back(n);
  return sizes;
}

float small_integer(int rank, size_t i) {
  return static_cast<float>(static_cast<int>((rank * 131 + i * 17) % 23) - 11);
}

TEST(NcclErrors, MessageNamesTheOperationAndNcclsText) {
  try {
    check_nccl(ncclInvalidArgument, "ncclAllReduce");
    FAIL() << "expected CommError";
  } catch (const CommError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("ncclAllReduce"), std::string::npos) << what;
    EXPECT_NE(what.find(ncclGetErrorString(ncclInvalidArgument)), std::string::npos) << what;
  }
  EXPECT_NO_THROW(check_nccl(ncclSuccess, "ncclAllReduce"));
  EXPECT_FALSE(nccl_version().empty());
}

TEST(NcclWorld, WithoutDeviceFailsWithTheReason) {
  if (cuda::device_count() > 0)
    GTEST_SKIP() << "a CUDA device is present (this test covers machines without one)";
  EXPECT_THROW(run_nccl_threads(1, 0, [](Communicator&) { FAIL() << "rank ran without a GPU"; }),
               cuda::CudaError);
}

TEST(NcclWorld, MoreRanksThanDevicesIsRefused) {
  COMPOPT_REQUIRE_GPU();
  EXPECT_THROW(run_nccl_threads(cuda::device_count() + 1, 0, [](Communicator&) {}),
               InvalidArgument);
}

TEST(NcclCollectives, HostAndDeviceBuffersGiveExactSumsOnEveryRank) {
  COMPOPT_REQUIRE_GPU();
  for (int n : world_sizes()) {
    const size_t d = 1003;
    PerRank<std::vector<float>> sums(n), means(n), device_sums(n), scattered(n);
    PerRank<std::vector<std::byte>> gathered(n), transposed(n), broadcasted(n);
    PerRank<TrafficTally> traffic(n);
    run_nccl_threads(
        n, 0,
        [&](Communicator& comm) {
          auto& nccl = dynamic_cast<NcclCommunicator&>(comm);
          const int r = comm.rank();
          std::vector<float> x(d);
          for (size_t i = 0; i < d; ++i) x[i] = small_integer(r, i);
          comm.traffic().reset();
          sums[r] = x;
          comm.allreduce(sums[r]);
          traffic[r] = comm.traffic().of("allreduce");
          means[r] = x;
          comm.allreduce(means[r], ReduceOp::kMean);
          cuda::DeviceBuffer dx(d * sizeof(float));
          nccl.gpu().copy(dx.data(), x.data(), d * sizeof(float));
          comm.allreduce(std::span(dx.as<float>(), d));
          device_sums[r].resize(d);
          nccl.gpu().copy(device_sums[r].data(), dx.data(), d * sizeof(float));
          nccl.gpu().synchronize();
          std::vector<float> in(d * static_cast<size_t>(n));
          for (size_t i = 0; i < in.size(); ++i) in[i] = small_integer(r, i);
          scattered[r].resize(d);
          comm.reduce_scatter(in, scattered[r]);
          const std::vector<std::byte> mine(5, static_cast<std::byte>(r + 1));
          gathered[r].resize(5 * static_cast<size_t>(n));
          comm.allgather(mine, gathered[r]);
          std::vector<std::byte> send(3 * static_cast<size_t>(n));
          for (size_t i = 0; i < send.size(); ++i)
            send[i] = static_cast<std::byte>(16 * r + static_cast<int>(i / 3));
          transposed[r].resize(send.size());
          comm.alltoall(send, transposed[r]);
          broadcasted[r].assign(7, static_cast<std::byte>(r == n - 1 ? 99 : 0));
          comm.broadcast(broadcasted[r], n - 1);
          comm.barrier();
        },
        quick_tcp());
    for (int r = 0; r < n; ++r) {
      SCOPED_TRACE("n=" + std::to_string(n) + " rank " + std::to_string(r));
      for (size_t i = 0; i < d; ++i) {
        float sum = 0;
        for (int q = 0; q < n; ++q) sum += small_integer(q, i);
        ASSERT_EQ(sums[r][i], sum) << "element " << i;
        ASSERT_EQ(device_sums[r][i], sum) << "element " << i;
        ASSERT_EQ(means[r][i], sum / static_cast<float>(n)) << "element " << i;
        float block = 0;
        for (int q = 0; q < n; ++q) block += small_integer(q, static_cast<size_t>(r) * d + i);
        ASSERT_EQ(scattered[r][i], block) << "element " << i;
      }
      for (int q = 0; q < n; ++q) {
        for (size_t i = 0; i < 5; ++i)
          ASSERT_EQ(gathered[r][static_cast<size_t>(q) * 5 + i], static_cast<std::byte>(q + 1));
        for (size_t i = 0; i < 3; ++i) {
          ASSERT_EQ(transposed[r][static_cast<size_t>(q) * 3 + i],
                    static_cast<std::byte>(16 * q + r));
        }
      }
      for (std::byte b : broadcasted[r]) ASSERT_EQ(b, std::byte{99});
      // Counted like the CPU ring: 2(n-1) messages, 2(n-1)/n of the bytes up to block rounding.
      EXPECT_EQ(traffic[r].messages, 2 * static_cast<uint64_t>(n - 1));
    }
  }
}

TEST(NcclCollectives, SplitFollowsCommunicatorSemantics) {
  COMPOPT_REQUIRE_GPU();
  for (int n : world_sizes()) {
    PerRank<std::vector<int>> groups(n);
    run_nccl_threads(
        n, 0,
        [&](Communicator& comm) {
          // Color by parity, reversed key order; rank 0 of an odd world opts out on a second split.
          auto sub = comm.split(comm.rank() % 2, -comm.rank());
          ASSERT_NE(sub, nullptr);
          ASSERT_NE(dynamic_cast<NcclCommunicator*>(sub.get()), nullptr) << "splits stay on NCCL";
          std::vector<float> one(1, static_cast<float>(comm.rank()));
          sub->allreduce(one);
          groups[comm.rank()] = {sub->rank(), sub->size(), static_cast<int>(one[0])};
          auto none = comm.split(comm.rank() == 0 ? Communicator::kUndefinedColor : 0, 0);
          EXPECT_EQ(none == nullptr, comm.rank() == 0);
          EXPECT_THROW(comm.split(-5, 0), InvalidArgument);
        },
        quick_tcp());
    for (int r = 0; r < n; ++r) {
      int size = 0, sum = 0, position = 0;
      for (int q = 0; q < n; ++q) {
        if (q % 2 != r % 2) continue;
        ++size;
        sum += q;
        if (q > r) ++position;  // key -rank: higher ranks first
      }
      EXPECT_EQ(groups[r], (std::vector<int>{position, size, sum})) << "n=" << n << " rank " << r;
    }
  }
}

TEST(NcclCollectives, ArgumentErrorsThrowInvalidArgument) {
  COMPOPT_REQUIRE_GPU();
  run_nccl_threads(
      1, 0,
      [&](Communicator& comm) {
        std::vector<float> in(10), out(3);
        EXPECT_THROW(comm.reduce_scatter(in, out), InvalidArgument);
        std::vector<std::byte> a(4), b(5);
        EXPECT_THROW(comm.allgather(a, b), InvalidArgument);
        EXPECT_THROW(comm.alltoall(a, b), InvalidArgument);
        EXPECT_THROW(comm.broadcast(a, 1), InvalidArgument);
      },
      quick_tcp());
}

TEST(NcclCompressed, GpuCompressedAllreduceOverNcclMatchesCpu) {
  COMPOPT_REQUIRE_GPU();
  for (int n : world_sizes()) {
    for (const char* spec : {"sign", "binary"}) {
      const auto compressor = make_compressor(spec);
      const size_t d = 65536 + 1003;
      const auto input = [](int rank, int step, size_t i) {
        return std::sin(0.37f * static_cast<float>(i) + 1.3f * static_cast<float>(rank) +
                        0.7f * static_cast<float>(step));
      };
      PerRank<std::vector<float>> cpu(n), gpu(n);
      run_local(n, [&](Communicator& comm) {
        CompressedAllreduceState state(d, n);
        std::vector<float> x(d);
        for (int t = 0; t < 3; ++t) {
          for (size_t i = 0; i < d; ++i) x[i] = input(comm.rank(), t, i);
          compressed_allreduce_mean(comm, x, *compressor, state,
                                    RandomKey{.seed = 5, .step = static_cast<uint64_t>(t)});
        }
        cpu[comm.rank()] = x;
      });
      run_nccl_threads(
          n, 0,
          [&](Communicator& comm) {
            cuda::GpuContext& ctx = dynamic_cast<NcclCommunicator&>(comm).gpu();
            cuda::GpuCompressedState state(ctx, d, n);
            cuda::DeviceBuffer x(d * sizeof(float));
            std::vector<float> host(d);
            for (int t = 0; t < 3; ++t) {
              for (size_t i = 0; i < d; ++i) host[i] = input(comm.rank(), t, i);
              ctx.copy(x.data(), host.data(), d * sizeof(float));
              cuda::compressed_allreduce_mean(
                  ctx, comm, x.as<float>(), d, cuda::require_codec(*compressor), state.view(),
                  RandomKey{.seed = 5, .step = static_cast<uint64_t>(t)});
            }
            ctx.copy(host.data(), x.data(), d * sizeof(float));
            ctx.synchronize();
            gpu[comm.rank()] = host;
          },
          quick_tcp());
      for (int r = 0; r < n; ++r)
        ASSERT_TRUE(same_bits(gpu[r], cpu[r])) << spec << " n=" << n << " rank " << r;
    }
  }
}

TEST(NcclCompressed, HierarchicalOverNcclMatchesCpuOnExactMeans) {
  COMPOPT_REQUIRE_GPU();
  for (int n : world_sizes()) {
    const int per_node = n % 2 == 0 ? 2 : 1;
    const size_t d = 4099;
    const auto compressor = make_compressor("sign");
    // Multiples of n: every node mean is exact, whatever order NCCL sums in.
    const auto input = [n](int rank, size_t i) {
      return small_integer(rank, i) * static_cast<float>(n);
    };
    PerRank<std::vector<float>> cpu(n), gpu(n);
    run_local(
        n,
        [&](Communicator& comm) {
          auto groups = HierarchicalGroups::split(comm);
          auto state = hierarchical_state(d, groups);
          std::vector<float> x(d);
          for (size_t i = 0; i < d; ++i) x[i] = input(comm.rank(), i);
          hierarchical_compressed_allreduce_mean(groups, x, *compressor, state,
                                                 RandomKey{.seed = 2});
          cpu[comm.rank()] = x;
        },
        per_node);
    run_nccl_threads(
        n, per_node,
        [&](Communicator& comm) {
          cuda::GpuContext& ctx = dynamic_cast<NcclCommunicator&>(comm).gpu();
          auto groups = HierarchicalGroups::split(comm);
          auto state = cuda::gpu_hierarchical_state(ctx, d, groups);
          std::vector<float> host(d);
          for (size_t i = 0; i < d; ++i) host[i] = input(comm.rank(), i);
          cuda::DeviceBuffer x(d * sizeof(float));
          ctx.copy(x.data(), host.data(), d * sizeof(float));
          cuda::hierarchical_compressed_allreduce_mean(ctx, groups, x.as<float>(), d,
                                                       cuda::Codec::kSign, state.view(),
                                                       RandomKey{.seed = 2});
          ctx.copy(host.data(), x.data(), d * sizeof(float));
          ctx.synchronize();
          gpu[comm.rank()] = host;
        },
        quick_tcp());
    for (int r = 0; r < n; ++r)
      ASSERT_TRUE(same_bits(gpu[r], cpu[r])) << "n=" << n << " rank " << r;
  }
}

}  // namespace
}  // namespace compopt::nccl
