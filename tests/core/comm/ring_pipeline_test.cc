// The pipelined ring (core/comm/collectives/ring_shift.h): pieces pair up, the
// results are bit-identical to whole-block steps whatever the piece size, and the
// message count is the hand-derived number of pieces.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <mutex>
#include <random>
#include <tuple>
#include <vector>

#include "core/comm/collectives/ring_shift.h"
#include "core/comm/local/local_world.h"

namespace compopt {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

TEST(RingPieceBytes, RoundsDownToWholeElementsAndKeepsZero) {
  EXPECT_EQ(ring_piece_bytes(0, 4), 0u);
  EXPECT_EQ(ring_piece_bytes(1, 4), 4u);  // never below one element
  EXPECT_EQ(ring_piece_bytes(10, 4), 8u);
  EXPECT_EQ(ring_piece_bytes(3, 2), 2u);
  EXPECT_EQ(ring_piece_bytes(1 << 20, 2), 1u << 20);
}

TEST(RingPieceCount, IsCeilingWithOneMessageForEmptyOrWholeRanges) {
  EXPECT_EQ(ring_piece_count(0, 4), 1u);
  EXPECT_EQ(ring_piece_count(5, 0), 1u);
  EXPECT_EQ(ring_piece_count(8, 4), 2u);
  EXPECT_EQ(ring_piece_count(9, 4), 3u);
}

// Two ranks with unequal ranges: rank 0 sends 10 bytes and receives 3, rank 1 the
// reverse, pieces of 4 bytes. Covers the receive-only and send-only tails.
TEST(RingShift, UnequalRangesArriveWholeAndCallbacksSeeEveryPiece) {
  std::mutex mu;
  std::vector<std::vector<std::byte>> got(2);
  std::vector<std::vector<std::pair<size_t, size_t>>> sent_pieces(2), received_pieces(2);
  LocalWorld({.ranks = 2}).run([&](Communicator& comm) {
    const int r = comm.rank();
    const size_t out_size = r == 0 ? 10 : 3, in_size = r == 0 ? 3 : 10;
    std::vector<std::byte> out(out_size), in(in_size);
    for (size_t i = 0; i < out_size; ++i) out[i] = static_cast<std::byte>(16 * (r + 1) + i);
    std::vector<std::pair<size_t, size_t>> s, v;
    ring_shift(
        comm, 1 - r, out, 1 - r, in, 4, Communicator::InternalTag::kAllgather,
        [&](size_t o, size_t n) { s.emplace_back(o, n); },
        [&](size_t o, size_t n) { v.emplace_back(o, n); });
    std::lock_guard lock(mu);
    got[r] = in;
    sent_pieces[r] = s;
    received_pieces[r] = v;
  });
  using P = std::pair<size_t, size_t>;
  EXPECT_THAT(sent_pieces[0], ElementsAre(P{0, 4}, P{4, 4}, P{8, 2}));
  EXPECT_THAT(received_pieces[0], ElementsAre(P{0, 3}));
  EXPECT_THAT(sent_pieces[1], ElementsAre(P{0, 3}));
  EXPECT_THAT(received_pieces[1], ElementsAre(P{0, 4}, P{4, 4}, P{8, 2}));
  std::vector<std::byte> from0(10), from1(3);
  for (size_t i = 0; i < 10; ++i) from0[i] = static_cast<std::byte>(16 + i);
  for (size_t i = 0; i < 3; ++i) from1[i] = static_cast<std::byte>(32 + i);
  EXPECT_THAT(got[1], ElementsAreArray(from0));
  EXPECT_THAT(got[0], ElementsAreArray(from1));
}

std::vector<float> random_input(int rank, size_t count) {
  std::mt19937 gen(1234u + static_cast<unsigned>(rank));
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  std::vector<float> x(count);
  for (float& v : x) v = dist(gen);
  return x;
}

struct RingRun {
  std::vector<std::vector<float>> out;  // per rank
  std::vector<uint64_t> messages;       // per rank
};

RingRun run_ring(int ranks, size_t count, size_t pipeline_bytes, ReduceOp op,
                 WirePrecision precision) {
  RingRun result{std::vector<std::vector<float>>(static_cast<size_t>(ranks)),
                 std::vector<uint64_t>(static_cast<size_t>(ranks))};
  std::mutex mu;
  LocalWorld({.ranks = ranks, .recv_timeout_s = 20.0, .pipeline_bytes = pipeline_bytes})
      .run([&](Communicator& comm) {
        auto x = random_input(comm.rank(), count);
        comm.allreduce(x, op, precision);
        std::lock_guard lock(mu);
        result.out[static_cast<size_t>(comm.rank())] = x;
        result.messages[static_cast<size_t>(comm.rank())] = comm.traffic().total().messages;
      });
  return result;
}

bool bit_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

class RingPipelineGrid : public ::testing::TestWithParam<std::tuple<int, size_t, size_t>> {};

TEST_P(RingPipelineGrid, BitIdenticalToWholeBlocksOnEveryRank) {
  const auto [ranks, count, pipeline] = GetParam();
  for (const auto precision : {WirePrecision::kFp32, WirePrecision::kFp16}) {
    for (const auto op : {ReduceOp::kSum, ReduceOp::kMean}) {
      const RingRun whole = run_ring(ranks, count, 0, op, precision);
      const RingRun piecewise = run_ring(ranks, count, pipeline, op, precision);
      for (int r = 0; r < ranks; ++r) {
        EXPECT_TRUE(
            bit_equal(piecewise.out[static_cast<size_t>(r)], whole.out[static_cast<size_t>(r)]))
            << "rank " << r << " fp16=" << (precision == WirePrecision::kFp16);
        EXPECT_TRUE(bit_equal(piecewise.out[static_cast<size_t>(r)], piecewise.out[0]))
            << "rank " << r;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(RanksCountsPieces, RingPipelineGrid,
                         ::testing::Combine(::testing::Values(1, 2, 3, 5, 8),
                                            ::testing::Values(size_t{0}, size_t{1}, size_t{7},
                                                              size_t{1003}, size_t{4099}),
                                            ::testing::Values(size_t{1}, size_t{12}, size_t{1000},
                                                              size_t{1} << 20)));

// 3 ranks, 1003 elements: blocks of 335, 334, 334 elements. fp32 pieces of 400
// bytes: 1340 -> 4 pieces, 1336 -> 4 pieces; 2 reduce-scatter + 2 allgather steps
// of 4 messages = 16 per rank. fp16 (200-element pieces): 670 and 668 bytes -> 2
// pieces per step = 8. Whole blocks: one message per step = 4.
TEST(RingPipeline, MessageCountIsTheNumberOfPieces) {
  EXPECT_THAT(run_ring(3, 1003, 400, ReduceOp::kSum, WirePrecision::kFp32).messages,
              ElementsAre(16, 16, 16));
  EXPECT_THAT(run_ring(3, 1003, 400, ReduceOp::kSum, WirePrecision::kFp16).messages,
              ElementsAre(8, 8, 8));
  EXPECT_THAT(run_ring(3, 1003, 0, ReduceOp::kSum, WirePrecision::kFp32).messages,
              ElementsAre(4, 4, 4));
}

}  // namespace
}  // namespace compopt
