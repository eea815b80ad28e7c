// The conformance checks on the MPI backend: this binary runs under mpirun
// (ctest starts it for several world sizes); every rank checks its own results
// against references computed locally from every rank's deterministic input.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <numeric>
#include <thread>

#include "core/comm/collectives/compressed_allreduce.h"
#include "core/util/error.h"
#include "real_backend/mpi/mpi_liveness.h"
#include "real_backend/mpi/mpi_world.h"
#include "tests/conformance/compressed_reference.h"
#include "tests/conformance/conformance_params.h"
#include "tests/real_backend/mpi/mpi_test_main.h"

namespace compopt::testing {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

class MpiConformance : public ::testing::TestWithParam<size_t> {
 protected:
  void SetUp() override { comm_ = std::make_unique<Communicator>(*g_transport); }
  size_t count() const { return GetParam(); }
  int n() const { return comm_->size(); }
  int me() const { return comm_->rank(); }
  std::vector<float> reference_sum() const {
    std::vector<float> sum(count(), 0.0f);
    for (int r = 0; r < n(); ++r) {
      for (size_t i = 0; i < count(); ++i) sum[i] += integer_input(r, i);
    }
    return sum;
  }
  std::unique_ptr<Communicator> comm_;
};

TEST_P(MpiConformance, AllreduceSumMeanFp16) {
  auto x = integer_inputs(me(), count());
  comm_->allreduce(x, ReduceOp::kSum);
  EXPECT_THAT(x, ElementsAreArray(reference_sum()));
  x = integer_inputs(me(), count());
  comm_->allreduce(x, ReduceOp::kSum, WirePrecision::kFp16);
  EXPECT_THAT(x, ElementsAreArray(reference_sum()));
  x = integer_inputs(me(), count());
  comm_->allreduce(x, ReduceOp::kMean);
  auto mean = reference_sum();
  for (float& v : mean) v /= static_cast<float>(n());
  EXPECT_THAT(x, ElementsAreArray(mean));
}

TEST_P(MpiConformance, ReduceScatterAllgatherAlltoall) {
  const auto all = static_cast<size_t>(n());
  std::vector<float> in(count() * all), out(count());
  for (size_t i = 0; i < in.size(); ++i) in[i] = integer_input(me(), i);
  comm_->reduce_scatter(in, out);
  for (size_t i = 0; i < count(); ++i) {
    float expected = 0;
    for (int r = 0; r < n(); ++r)
      expected += integer_input(r, static_cast<size_t>(me()) * count() + i);
    ASSERT_EQ(out[i], expected) << "element " << i;
  }
  const auto mine = integer_inputs(me(), count());
  std::vector<float> gathered(count() * all), expected_gather;
  comm_->allgather(std::as_bytes(std::span(mine)), std::as_writable_bytes(std::span(gathered)));
  for (int r = 0; r < n(); ++r) {
    const auto block = integer_inputs(r, count());
    expected_gather.insert(expected_gather.end(), block.begin(), block.end());
  }
  EXPECT_THAT(gathered, ElementsAreArray(expected_gather));
  auto value = [](int s, int d, size_t i) {
    return static_cast<float>(s * 100000 + d * 1000 + static_cast<int>(i % 1000));
  };
  std::vector<float> send(count() * all), recv(count() * all);
  for (int d = 0; d < n(); ++d) {
    for (size_t i = 0; i < count(); ++i)
      send[static_cast<size_t>(d) * count() + i] = value(me(), d, i);
  }
  comm_->alltoall(std::as_bytes(std::span(send)), std::as_writable_bytes(std::span(recv)));
  for (int s = 0; s < n(); ++s) {
    for (size_t i = 0; i < count(); ++i)
      ASSERT_EQ(recv[static_cast<size_t>(s) * count() + i], value(s, me(), i));
  }
}

TEST_P(MpiConformance, BroadcastBarrierSplit) {
  for (int root = 0; root < n(); ++root) {
    auto x = integer_inputs(me(), count());
    comm_->broadcast(std::as_writable_bytes(std::span(x)), root);
    ASSERT_THAT(x, ElementsAreArray(integer_inputs(root, count()))) << "root " << root;
  }
  comm_->barrier();
  auto sub = comm_->split(me() % 2, -me());
  ASSERT_NE(sub, nullptr);
  auto sum = integer_inputs(me(), count());
  sub->allreduce(sum);
  std::vector<float> expected(count(), 0.0f);
  int members = 0;
  for (int q = 0; q < n(); ++q) {
    if (q % 2 != me() % 2) continue;
    ++members;
    for (size_t i = 0; i < count(); ++i) expected[i] += integer_input(q, i);
  }
  EXPECT_EQ(sub->size(), members);
  EXPECT_THAT(sum, ElementsAreArray(expected));
  comm_->barrier();
}

TEST_P(MpiConformance, CompressedAllreduceMatchesReferenceBitForBit) {
  std::vector<uint32_t> world(static_cast<size_t>(n()));
  std::iota(world.begin(), world.end(), 0u);
  auto input = [&](int rank, int step) {
    std::vector<float> x(count());
    for (size_t i = 0; i < count(); ++i)
      x[i] = std::sin(0.37f * static_cast<float>(i) + 1.3f * static_cast<float>(rank) +
                      0.7f * static_cast<float>(step));
    return x;
  };
  for (const char* spec : {"sign", "binary"}) {
    const auto compressor = make_compressor(spec);
    CompressedAllreduceState state(count(), n());
    CompressedReference reference(count(), world);
    for (int t = 0; t < 3; ++t) {
      auto x = input(me(), t);
      compressed_allreduce_mean(*comm_, x, *compressor, state,
                                RandomKey{.seed = 11, .step = static_cast<uint64_t>(t)});
      std::vector<std::vector<float>> inputs;
      for (int r = 0; r < n(); ++r) inputs.push_back(input(r, t));
      const auto expected = reference.step(inputs, *compressor, 11, static_cast<uint64_t>(t));
      ASSERT_TRUE(count() == 0 ||  // memcmp of empty vectors gets null pointers: undefined
                  std::memcmp(x.data(), expected.data(), count() * sizeof(float)) == 0)
          << spec << " step " << t;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Counts, MpiConformance,
                         ::testing::Values(size_t{0}, size_t{1}, size_t{7}, size_t{1003}));

TEST(MpiTransportTest, SizeMismatchIsACommErrorAndLargeMessagesArrive) {
  Communicator comm(*g_transport);
  if (comm.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  std::vector<std::byte> big(size_t{48} << 20, std::byte{7});
  if (comm.rank() == 0) {
    std::vector<std::byte> eight(8);
    comm.send(1, 3, eight);
    comm.send(1, 4, big);
  } else if (comm.rank() == 1) {
    std::vector<std::byte> four(4);
    try {
      comm.recv(0, 3, four);
      ADD_FAILURE() << "no exception";
    } catch (const CommError& e) {
      EXPECT_THAT(e.what(), HasSubstr("received 8 bytes from rank 0 (channel 0x3), expected 4"));
    }
    std::vector<std::byte> got(big.size());
    comm.recv(0, 4, got);
    EXPECT_EQ(got, big);
  }
  comm.barrier();
}

// A rank that returns (its transport destroyed: a rank whose collective raised on a size
// mismatch, then left) tells its peers: a rank waiting for a message from it fails at once,
// naming it, instead of after the 60 s operation timeout.
TEST(MpiTransportTest, WaitingForAPeerThatReturnedFailsAtOnce) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size == 1) GTEST_SKIP() << "needs a peer";
  auto transport =
      std::make_unique<mpi::MpiTransport>(MPI_COMM_WORLD, mpi::MpiOptions{.op_timeout_s = 60});
  if (rank != 0) {
    const double start = MPI_Wtime();
    std::vector<std::byte> into(4);
    EXPECT_THAT([&] { transport->recv(0, 7, into); },
                ::testing::ThrowsMessage<CommError>(
                    HasSubstr("waiting for a message from rank 0, which already returned")));
    EXPECT_LT(MPI_Wtime() - start, 10.0);
  }
  transport.reset();
  MPI_Barrier(MPI_COMM_WORLD);
}

// Liveness is not an operation timeout: with a 0.3 s budget, a rank busy for 1.5 s (its
// peers waiting in a barrier meanwhile) is not failed, since heartbeats come from the
// liveness thread. A false failure would MPI_Abort the whole test.
TEST(MpiLivenessTest, RankBusyForFiveBudgetsIsNotFailed) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  if (provided < MPI_THREAD_MULTIPLE) GTEST_SKIP() << "MPI without MPI_THREAD_MULTIPLE";
  Communicator comm(*g_transport);
  const double start = MPI_Wtime();
  {
    mpi::MpiLiveness liveness(MPI_COMM_WORLD, 0.05, 0.3);
    if (comm.rank() == comm.size() - 1) std::this_thread::sleep_for(std::chrono::seconds(1) * 1.5);
    comm.barrier();
  }
  EXPECT_GE(MPI_Wtime() - start, 1.4);
}

}  // namespace
}  // namespace compopt::testing

int main(int argc, char** argv) {
  return compopt::testing::run_mpi_tests(argc, argv, {.op_timeout_s = 60});
}
