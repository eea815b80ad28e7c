// Every full-precision collective against a single-process reference computed
// here, on every backend, world sizes 1..9 and awkward element counts.

#include <atomic>
#include <cstring>
#include <numeric>

#include "tests/conformance/conformance_params.h"
#include "tests/conformance/per_rank.h"

namespace compopt::testing {
namespace {

using ::testing::ElementsAreArray;

std::vector<float> reference_sum(int n, size_t count) {
  std::vector<float> sum(count, 0.0f);
  for (int r = 0; r < n; ++r) {
    for (size_t i = 0; i < count; ++i) sum[i] += integer_input(r, i);
  }
  return sum;
}

TEST_P(ConformanceTest, AllreduceSumMatchesReferenceOnEveryRank) {
  PerRank<std::vector<float>> out(ranks());
  run([&](Communicator& comm) {
    auto x = integer_inputs(comm.rank(), count());
    comm.allreduce(x, ReduceOp::kSum);
    out[comm.rank()] = x;
  });
  const auto expected = reference_sum(ranks(), count());
  for (int r = 0; r < ranks(); ++r) EXPECT_THAT(out[r], ElementsAreArray(expected)) << "rank " << r;
}

TEST_P(ConformanceTest, AllreduceMeanDividesBySize) {
  PerRank<std::vector<float>> out(ranks());
  run([&](Communicator& comm) {
    auto x = integer_inputs(comm.rank(), count());
    comm.allreduce(x, ReduceOp::kMean);
    out[comm.rank()] = x;
  });
  auto expected = reference_sum(ranks(), count());
  for (float& v : expected) v /= static_cast<float>(ranks());
  for (int r = 0; r < ranks(); ++r) EXPECT_THAT(out[r], ElementsAreArray(expected)) << "rank " << r;
}

TEST_P(ConformanceTest, AllreduceFp16WireIsExactOnHalfRepresentableSums) {
  PerRank<std::vector<float>> out(ranks());
  run([&](Communicator& comm) {
    auto x = integer_inputs(comm.rank(), count());
    comm.allreduce(x, ReduceOp::kSum, WirePrecision::kFp16);
    out[comm.rank()] = x;
  });
  const auto expected = reference_sum(ranks(), count());
  for (int r = 0; r < ranks(); ++r) EXPECT_THAT(out[r], ElementsAreArray(expected)) << "rank " << r;
}

TEST_P(ConformanceTest, AllreduceOfNonIntegersIsBitIdenticalAcrossRanks) {
  PerRank<std::vector<float>> out(ranks());
  run([&](Communicator& comm) {
    std::vector<float> x(count());
    for (size_t i = 0; i < count(); ++i)
      x[i] = 0.1f * static_cast<float>(comm.rank() + 1) / static_cast<float>(i + 3);
    comm.allreduce(x, ReduceOp::kMean);
    out[comm.rank()] = x;
  });
  for (size_t i = 0; i < count(); ++i) {
    double expected = 0;
    for (int r = 0; r < ranks(); ++r) expected += 0.1 * (r + 1) / static_cast<double>(i + 3);
    expected /= ranks();
    EXPECT_NEAR(out[0][i], expected, 1e-6 * std::abs(expected)) << "element " << i;
  }
  for (int r = 1; r < ranks(); ++r) {
    // count() may be 0: memcmp of empty vectors gets null pointers, which is undefined.
    ASSERT_TRUE(count() == 0 ||
                std::memcmp(out[0].data(), out[r].data(), count() * sizeof(float)) == 0)
        << "rank " << r;
  }
}

TEST_P(ConformanceTest, ReduceScatterGivesEachRankItsBlock) {
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMean}) {
    PerRank<std::vector<float>> out(ranks());
    const size_t total = count() * static_cast<size_t>(ranks());
    run([&](Communicator& comm) {
      const auto x = integer_inputs(comm.rank(), total);
      std::vector<float> mine(count());
      comm.reduce_scatter(x, mine, op);
      out[comm.rank()] = mine;
    });
    const auto sum = reference_sum(ranks(), total);
    for (int r = 0; r < ranks(); ++r) {
      for (size_t i = 0; i < count(); ++i) {
        float expected = sum[static_cast<size_t>(r) * count() + i];
        if (op == ReduceOp::kMean) expected /= static_cast<float>(ranks());
        ASSERT_EQ(out[r][i], expected) << "rank " << r << " element " << i;
      }
    }
  }
}

TEST_P(ConformanceTest, AllgatherConcatenatesInRankOrder) {
  PerRank<std::vector<float>> out(ranks());
  run([&](Communicator& comm) {
    const auto mine = integer_inputs(comm.rank(), count());
    std::vector<float> all(count() * static_cast<size_t>(comm.size()));
    comm.allgather(std::as_bytes(std::span(mine)), std::as_writable_bytes(std::span(all)));
    out[comm.rank()] = all;
  });
  std::vector<float> expected;
  for (int r = 0; r < ranks(); ++r) {
    const auto block = integer_inputs(r, count());
    expected.insert(expected.end(), block.begin(), block.end());
  }
  for (int r = 0; r < ranks(); ++r) EXPECT_THAT(out[r], ElementsAreArray(expected)) << "rank " << r;
}

TEST_P(ConformanceTest, AlltoallTransposesBlocks) {
  PerRank<std::vector<float>> out(ranks());
  const auto n = static_cast<size_t>(ranks());
  // Element i of the block rank s sends to rank d encodes (s, d, i).
  auto value = [&](int s, int d, size_t i) {
    return static_cast<float>(s * 100000 + d * 1000) + static_cast<float>(i % 1000);
  };
  run([&](Communicator& comm) {
    std::vector<float> send(count() * n), recv(count() * n);
    for (int d = 0; d < comm.size(); ++d) {
      for (size_t i = 0; i < count(); ++i)
        send[static_cast<size_t>(d) * count() + i] = value(comm.rank(), d, i);
    }
    comm.alltoall(std::as_bytes(std::span(send)), std::as_writable_bytes(std::span(recv)));
    out[comm.rank()] = recv;
  });
  for (int d = 0; d < ranks(); ++d) {
    for (int s = 0; s < ranks(); ++s) {
      for (size_t i = 0; i < count(); ++i) {
        ASSERT_EQ(out[d][static_cast<size_t>(s) * count() + i], value(s, d, i))
            << "from " << s << " to " << d;
      }
    }
  }
}

TEST_P(ConformanceTest, BroadcastFromEveryRoot) {
  for (int root = 0; root < ranks(); ++root) {
    PerRank<std::vector<float>> out(ranks());
    run([&](Communicator& comm) {
      auto x = integer_inputs(comm.rank(), count());
      comm.broadcast(std::as_writable_bytes(std::span(x)), root);
      out[comm.rank()] = x;
    });
    const auto expected = integer_inputs(root, count());
    for (int r = 0; r < ranks(); ++r)
      ASSERT_THAT(out[r], ElementsAreArray(expected)) << "root " << root << " rank " << r;
  }
}

TEST_P(ConformanceTest, BarrierOrdersWritesBeforeReads) {
  std::vector<std::atomic<int>> arrived(static_cast<size_t>(ranks()));
  PerRank<int> seen(ranks());
  run([&](Communicator& comm) {
    arrived[static_cast<size_t>(comm.rank())].store(1);
    comm.barrier();
    int total = 0;
    for (auto& a : arrived) total += a.load();
    seen[comm.rank()] = total;
  });
  for (int r = 0; r < ranks(); ++r) EXPECT_EQ(seen[r], ranks()) << "rank " << r;
}

TEST_P(ConformanceTest, SplitFormsGroupsOrderedByKeyThenRank) {
  // color = rank % 3, key = -rank (reverse order); rank 4 (when present) opts out.
  struct Seen {
    int rank = -2, size = -2;
    std::vector<float> sum;
  };
  PerRank<Seen> out(ranks());
  run([&](Communicator& comm) {
    const int color = comm.rank() == 4 ? Communicator::kUndefinedColor : comm.rank() % 3;
    auto sub = comm.split(color, -comm.rank());
    Seen& s = out[comm.rank()];
    if (sub) {
      s.rank = sub->rank();
      s.size = sub->size();
      s.sum = integer_inputs(comm.rank(), count());
      sub->allreduce(s.sum);
    }
    // The parent still works after a split, and messages do not mix.
    comm.barrier();
  });
  for (int r = 0; r < ranks(); ++r) {
    if (r == 4) {
      EXPECT_EQ(out[r].size, -2);
      continue;
    }
    std::vector<int> group;
    for (int q = ranks() - 1; q >= 0; --q) {
      if (q % 3 == r % 3 && q != 4) group.push_back(q);
    }
    EXPECT_EQ(out[r].size, static_cast<int>(group.size())) << "rank " << r;
    EXPECT_EQ(group[static_cast<size_t>(out[r].rank)], r) << "rank " << r;
    std::vector<float> expected(count(), 0.0f);
    for (int q : group) {
      for (size_t i = 0; i < count(); ++i) expected[i] += integer_input(q, i);
    }
    EXPECT_THAT(out[r].sum, ElementsAreArray(expected)) << "rank " << r;
  }
}

INSTANTIATE_TEST_SUITE_P(Grid, ConformanceTest, ::testing::ValuesIn(conformance_grid()), grid_name);

}  // namespace
}  // namespace compopt::testing
