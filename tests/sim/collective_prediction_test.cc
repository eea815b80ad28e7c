// The prediction of one allreduce as nccl-tests times it (sim/collective_prediction.h),
// against hand-derived figures: a ring on a star of single-GPU nodes takes the NIC time of
// 2(n-1)/n S plus NCCL's ring latency, so its bus bandwidth is the NIC's rate x efficiency;
// a tiny message costs NCCL's latency and the wire hops; too small a message is refused.

#include "sim/collective_prediction.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"
#include "sim/nccl_tuning.h"

namespace compopt::sim {
namespace {

using ::testing::HasSubstr;

// 4 nodes of one A100, one 100 Gbit/s RDMA NIC each at efficiency 0.5 (6.25e9 B/s), 2 us
// node to node, the ring forced.
net::ClusterSpec star_of_four() {
  net::ClusterSpec c;
  c.name = "star-of-four";
  c.nodes = 4;
  c.gpus_per_node = 1;
  c.inter_node_gbps = 100;
  c.inter_node_efficiency = 0.5;
  c.inter_node_latency_s = 2e-6;
  c.inter_node_transport = net::transport_profile("rdma");
  c.allreduce_algorithm = "ring";
  return c;
}

constexpr double kNicBytesS = 100e9 / 8 * 0.5;

// 1 GiB: each rank sends and receives 2(n-1)/n S = 1.5 GiB through its NIC (257.7 ms); NCCL's
// ring latency adds (8.4 + 6 x 9.6) x 1.9 = 125.4 us; hops add microseconds (0.1% bound).
TEST(CollectivePrediction, LargeRingIsTheNicTimePlusNcclLatency) {
  const net::ClusterSpec c = star_of_four();
  const double bytes = 1073741824;
  const AllreducePrediction p = predict_allreduce(c, bytes);
  const double wire_s = 1.5 * bytes / kNicBytesS;
  const double latency_s = nccl_ring_latency_s(bytes, c);
  EXPECT_NEAR(latency_s, 125.4e-6, 1e-9);
  EXPECT_EQ(p.algorithm, "ring");
  EXPECT_GE(p.seconds, wire_s + latency_s);
  EXPECT_LT(p.seconds, 1.001 * wire_s + latency_s);
  const double busbw = bytes / p.seconds * 1.5;  // nccl-tests: algbw x 2(n-1)/n
  EXPECT_NEAR(busbw / kNicBytesS, 1.0, 0.002);
}

// 4 bytes: below n x 4 KiB NCCL's ring latency has no plateau factor: 8.4 + 6 x 9.6 = 66 us.
// The 6 ring steps cross the wire one after another, each through two GPU links and two NIC
// links (at most 2 us + 5 us of latency each way): under 66 + 6 x 7 us = 108 us in all.
TEST(CollectivePrediction, TinyMessageCostsLatencyOnly) {
  const net::ClusterSpec c = star_of_four();
  const AllreducePrediction p = predict_allreduce(c, 4);
  EXPECT_NEAR(nccl_ring_latency_s(4, c), 66e-6, 1e-9);
  EXPECT_GT(p.seconds, 66e-6);
  EXPECT_LT(p.seconds, 108e-6);
}

TEST(CollectivePrediction, TimeGrowsWithSizeAndBusBandwidthTowardsTheNic) {
  const net::ClusterSpec c = star_of_four();
  double previous_s = 0, previous_busbw = 0;
  for (double bytes = 1 << 10; bytes <= (1 << 28); bytes *= 16) {
    const double s = predict_allreduce(c, bytes).seconds;
    const double busbw = bytes / s * 1.5;
    EXPECT_GT(s, previous_s) << bytes;
    EXPECT_GT(busbw, previous_busbw) << bytes;
    EXPECT_LT(busbw, kNicBytesS) << bytes;
    previous_s = s;
    previous_busbw = busbw;
  }
}

// EFA's NICs carry 0.6 of their line rate: the same ring at efficiency 1 over efa moves
// 1.5 S through 100 Gbit/s x 0.6 = 7.5e9 B/s, so its busbw is 7.5 GB/s.
TEST(CollectivePrediction, EfaRingRunsAtItsShareOfTheLineRate) {
  net::ClusterSpec c = star_of_four();
  c.inter_node_efficiency = 1;
  c.inter_node_transport = net::transport_profile("efa");
  EXPECT_DOUBLE_EQ(c.nic_effective_gbps(), 60);
  const double bytes = 1073741824;
  const double busbw = bytes / predict_allreduce(c, bytes).seconds * 1.5;
  EXPECT_NEAR(busbw / 7.5e9, 1.0, 0.002);
}

// A per-flow cap cannot be simulated on flows (two NICs: two ring channels as flows):
// refused, naming the field, instead of aborting in SimGrid.
TEST(CollectivePrediction, FlowCapOnFlowTimedAlgorithmsIsRefused) {
  net::ClusterSpec c = star_of_four();
  c.nodes = 2;
  c.gpus_per_node = 2;
  c.nics_per_node = 2;
  c.rail_optimized = true;
  c.inter_node_transport.stream_gbps = 10;
  EXPECT_THAT([&] { predict_allreduce(c, 1 << 20); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("inter_node_stream_gbps = 10")));
}

TEST(CollectivePrediction, RefusesLessThanOneElement) {
  EXPECT_THAT([] { predict_allreduce(star_of_four(), 3); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("at least one fp32 element")));
}

TEST(CollectivePrediction, DescribesTheNetwork) {
  const std::string d = describe_cluster_network(star_of_four());
  EXPECT_THAT(d, HasSubstr("4 x 1 A100-80GB"));
  EXPECT_THAT(d, HasSubstr("1 x 100 Gbit/s rdma NIC (2 us)"));
}

}  // namespace
}  // namespace compopt::sim
