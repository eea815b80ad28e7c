// Compressed allreduce (docs/algorithms.md) against the single-process reference, error
// feedback telescoping, and exact traffic counts, on every backend.

#include "core/comm/collectives/compressed_allreduce.h"

#include <cmath>
#include <cstring>
#include <numeric>

#include "core/comm/collectives/block_partition.h"
#include "tests/conformance/compressed_reference.h"
#include "tests/conformance/conformance_params.h"
#include "tests/conformance/per_rank.h"

namespace compopt::testing {
namespace {

class CompressedConformance : public ConformanceTest {};

constexpr int kSteps = 3;
constexpr uint64_t kSeed = 0x5eedULL;

std::vector<float> smooth_input(int rank, int step, size_t count) {
  std::vector<float> x(count);
  for (size_t i = 0; i < count; ++i) {
    x[i] = std::sin(0.37f * static_cast<float>(i) + 1.3f * static_cast<float>(rank) +
                    0.7f * static_cast<float>(step)) *
           (1.0f + 0.25f * static_cast<float>(rank));
  }
  return x;
}

std::vector<uint32_t> identity_ranks(int n) {
  std::vector<uint32_t> ranks(static_cast<size_t>(n));
  std::iota(ranks.begin(), ranks.end(), 0u);
  return ranks;
}

TEST_P(CompressedConformance, MatchesReferenceBitForBitOnEveryRank) {
  for (const char* spec : {"sign", "binary", "identity", "nbit:4"}) {
    const auto compressor = make_compressor(spec);
    PerRank<std::vector<std::vector<float>>> out(ranks());
    run([&](Communicator& comm) {
      CompressedAllreduceState state(count(), comm.size());
      for (int t = 0; t < kSteps; ++t) {
        auto x = smooth_input(comm.rank(), t, count());
        comm.compressed_allreduce(x, *compressor, state,
                                  RandomKey{.seed = kSeed, .step = static_cast<uint64_t>(t)});
        out[comm.rank()].push_back(x);
      }
    });
    CompressedReference reference(count(), identity_ranks(ranks()));
    for (int t = 0; t < kSteps; ++t) {
      std::vector<std::vector<float>> inputs;
      for (int r = 0; r < ranks(); ++r) inputs.push_back(smooth_input(r, t, count()));
      const auto expected = reference.step(inputs, *compressor, kSeed, static_cast<uint64_t>(t));
      for (int r = 0; r < ranks(); ++r) {
        ASSERT_EQ(out[r][static_cast<size_t>(t)].size(), count());
        ASSERT_TRUE(count() == 0 ||  // memcmp of empty vectors gets null pointers: undefined
                    std::memcmp(out[r][static_cast<size_t>(t)].data(), expected.data(),
                                count() * sizeof(float)) == 0)
            << spec << " step " << t << " rank " << r;
      }
    }
  }
}

// Sum over steps of outputs == sum of mean inputs - mean final worker error - final server error.
TEST_P(CompressedConformance, ErrorFeedbackTelescopes) {
  const auto compressor = make_compressor("sign");
  constexpr int kLongSteps = 12;
  PerRank<std::vector<double>> sum_out(ranks());
  PerRank<CompressedAllreduceState> final_state(ranks());
  run([&](Communicator& comm) {
    CompressedAllreduceState state(count(), comm.size());
    std::vector<double> acc(count(), 0.0);
    for (int t = 0; t < kLongSteps; ++t) {
      auto x = smooth_input(comm.rank(), t, count());
      comm.compressed_allreduce(x, *compressor, state,
                                RandomKey{.seed = kSeed, .step = static_cast<uint64_t>(t)});
      for (size_t i = 0; i < count(); ++i) acc[i] += x[i];
    }
    sum_out[comm.rank()] = acc;
    final_state[comm.rank()] = state;
  });
  const size_t chunk = final_state[0].server.size();
  for (size_t i = 0; i < count(); ++i) {
    double expected = 0, magnitude = 0;
    for (int r = 0; r < ranks(); ++r) {
      for (int t = 0; t < kLongSteps; ++t) {
        const double v = smooth_input(r, t, count())[i];
        expected += v / ranks();
        magnitude += std::abs(v) / ranks();
      }
      expected -= final_state[r].worker.error()[i] / ranks();
    }
    expected -= final_state[static_cast<int>(i / chunk)].server.error()[i % chunk];
    EXPECT_NEAR(sum_out[0][i], expected, 1e-5 * (magnitude + 1.0)) << "element " << i;
  }
}

TEST_P(CompressedConformance, TrafficMatchesSpecByteCounts) {
  for (const char* spec : {"sign", "binary"}) {
    const auto compressor = make_compressor(spec);
    PerRank<TrafficTally> tally(ranks());
    run([&](Communicator& comm) {
      CompressedAllreduceState state(count(), comm.size());
      auto x = smooth_input(comm.rank(), 0, count());
      comm.traffic().reset();
      comm.compressed_allreduce(x, *compressor, state, RandomKey{});
      tally[comm.rank()] = comm.traffic().of("compressed_allreduce");
      EXPECT_EQ(comm.traffic().total(), tally[comm.rank()])
          << "all bytes labelled compressed_allreduce";
    });
    // (n-1) bit-chunks of D/n elements out in the all-to-all, (n-1) in the
    // all-gather, plus 4-byte scales (n-1 worker, n-1 server) for sign.
    const uint64_t n = static_cast<uint64_t>(ranks());
    const uint64_t padded = (count() + 8 * n - 1) / (8 * n) * (8 * n);
    const uint64_t chunk_bytes = padded / n / 8;
    const uint64_t scales = std::string(spec) == "sign" ? 2 * (n - 1) * 4 : 0;
    for (int r = 0; r < ranks(); ++r) {
      EXPECT_EQ(tally[r].bytes, 2 * (n - 1) * chunk_bytes + scales) << spec << " rank " << r;
      EXPECT_EQ(tally[r].inter_node_bytes, 0u) << "one node";
    }
  }
}

TEST_P(CompressedConformance, RingAllreduceTrafficIsTwiceNMinusOneOverN) {
  // Use a multiple of n so the byte formula of docs/algorithms.md is exact per rank; the total over
  // ranks equals 2(n-1) S for any size.
  for (size_t d : {count(), count() * static_cast<size_t>(ranks())}) {
    PerRank<TrafficTally> tally(ranks());
    size_t pipeline = 0;
    run(
        [&](Communicator& comm) {
          std::vector<float> x(d, 1.0f);
          comm.allreduce(x);
          tally[comm.rank()] = comm.traffic().of("allreduce");
          if (comm.rank() == 0) pipeline = comm.transport().pipeline_bytes();
        },
        2);
    const uint64_t n = static_cast<uint64_t>(ranks()), bytes = d * sizeof(float);
    // One message per block per step, or ceil(block bytes / piece) on a pipelined
    // transport (pieces of whole floats; an empty block is one empty message).
    const BlockPartition part{d, ranks()};
    const uint64_t piece = pipeline / 4 * 4;
    auto messages_of_block = [&](int b) -> uint64_t {
      const uint64_t block_bytes = part.size(b) * 4;
      return piece == 0 || block_bytes == 0 ? 1 : (block_bytes + piece - 1) / piece;
    };
    uint64_t total = 0;
    for (int r = 0; r < ranks(); ++r) {
      total += tally[r].bytes;
      uint64_t messages = 0;  // reduce-scatter step s sends block r-1-s, allgather step s block r-s
      for (int s = 0; s + 1 < ranks(); ++s) {
        messages += messages_of_block(((r - 1 - s) % ranks() + ranks()) % ranks()) +
                    messages_of_block(((r - s) % ranks() + ranks()) % ranks());
      }
      EXPECT_EQ(tally[r].messages, messages) << "rank " << r << ", pieces of " << piece << " bytes";
      if (piece == 0) {
        EXPECT_EQ(tally[r].messages, 2 * (n - 1));
      }
      if (d % n == 0) {
        EXPECT_EQ(tally[r].bytes, 2 * (n - 1) * bytes / n) << "rank " << r;
      }
      // Ranks 2k, 2k+1 share a node: only odd ranks (and no rank when n = 1) send across.
      const bool boundary =
          n > 1 && (r % 2 == 1 || r == ranks() - 1) && ((r + 1) % ranks()) / 2 != r / 2;
      EXPECT_EQ(tally[r].inter_node_bytes, boundary ? tally[r].bytes : 0u) << "rank " << r;
    }
    EXPECT_EQ(total, 2 * (n - 1) * bytes);
  }
}

INSTANTIATE_TEST_SUITE_P(Grid, CompressedConformance, ::testing::ValuesIn(conformance_grid()),
                         grid_name);

}  // namespace
}  // namespace compopt::testing
