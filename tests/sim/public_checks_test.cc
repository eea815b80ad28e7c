// The out-of-sample checks (sim/public_checks.h): a public case becomes the cluster its
// thread describes, its allreduce is simulated once per case and lands where a ring on the
// NIC must (hand formula), NCCL_ALGO is honoured, and the error is the stated quotient.

#include "sim/public_checks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "core/util/error.h"

namespace compopt::sim {
namespace {

using ::testing::HasSubstr;

// Two single-GPU nodes, one 32 Gbit/s TCP NIC each, 32 MiB per rank (gcp-2x1-tcp's setup).
net::NcclTestsRow two_node_tcp_row() {
  net::NcclTestsRow r;
  r.case_name = "test-2x1-tcp";
  r.nodes = 2;
  r.gpus_per_node = 1;
  r.gpu = "V100-16GB";
  r.intra_node_fabric = "nvlink";
  r.nics_per_node = 1;
  r.nic_gbps = 32;
  r.transport = "tcp";
  r.algorithm = "auto";
  r.streams_per_peer = 8;
  r.bytes = 33554432;
  r.busbw = 31.0;
  r.busbw_unit = "Gbit/s";
  r.url = "https://github.com/NVIDIA/nccl/issues/209";
  r.author = "cswinter";
  r.date = "2019-06-04";
  r.hardware_stated = "2 nodes x 1 GPU, 32 Gbit/s Ethernet";
  return r;
}

TEST(PublicChecks, ClusterIsWhatTheRowStates) {
  net::NcclTestsRow r = two_node_tcp_row();
  const net::ClusterSpec tcp = public_check_cluster(r);
  EXPECT_EQ(tcp.nodes, 2);
  EXPECT_EQ(tcp.gpus_per_node, 1);
  EXPECT_EQ(tcp.gpu.name, "V100-16GB");
  EXPECT_EQ(tcp.inter_node_gbps, 32);
  EXPECT_EQ(tcp.inter_node_efficiency, 1);
  EXPECT_DOUBLE_EQ(tcp.intra_node_efficiency, 0.8);  // NCCL's 20 of 25 GB/s per NVLink
  EXPECT_EQ(tcp.nccl_version, "");                   // none printed: a current NCCL
  r.nccl_version = "2.4.7ms0";                       // a vendor build: its numeric part
  EXPECT_EQ(public_check_cluster(r).nccl_version, "2.4.7");
  r.nccl_version.clear();
  EXPECT_EQ(tcp.inter_node_latency_s, 50e-6);  // the Ethernet presets' figure
  EXPECT_EQ(tcp.inter_node_transport.name, "tcp");
  EXPECT_EQ(tcp.inter_node_transport.streams_per_peer, 8);
  EXPECT_FALSE(tcp.rail_optimized);
  r.transport = "rdma";
  r.nics_per_node = 4;
  r.algorithm = "tree";
  const net::ClusterSpec rdma = public_check_cluster(r);
  EXPECT_EQ(rdma.inter_node_latency_s, 2e-6);  // the InfiniBand preset's figure
  EXPECT_EQ(rdma.nics_per_node, 4);
  EXPECT_TRUE(rdma.rail_optimized);
  EXPECT_EQ(rdma.allreduce_algorithm, "tree");
}

TEST(PublicChecks, UnknownNamesAreRefused) {
  net::NcclTestsRow r = two_node_tcp_row();
  r.transport = "udp";
  EXPECT_THAT([&] { public_check_cluster(r); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("transport 'udp'")));
  r = two_node_tcp_row();
  r.algorithm = "collnet";
  EXPECT_THAT([&] { public_check_cluster(r); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("'collnet'")));
}

// A ring on 2 ranks moves the whole vector once each way: at least S / B on the NIC (B = 32
// Gbit/s = 4e9 B/s, 8388.6 us for 32 MiB), plus latency and per-message costs of 2 steps,
// which are microseconds to a few hundred (5% bound).
TEST(PublicChecks, TwoNodeRingTakesTheWireTime) {
  const net::NcclTestsRow r = two_node_tcp_row();
  const PublicCheck c = predict_public_check(r);
  const double wire_s = r.bytes / 4e9;
  EXPECT_EQ(c.algorithm, "ring");
  EXPECT_GT(c.predicted_s, wire_s);
  EXPECT_LT(c.predicted_s, 1.05 * wire_s);
  EXPECT_NEAR(c.published_s, r.bytes * 8 / 31.0e9, 1e-9);
  EXPECT_NEAR(c.error_pct, 100 * (c.predicted_s - c.published_s) / c.published_s, 1e-9);
  EXPECT_NEAR(c.predicted_busbw_bytes_s, r.bytes / c.predicted_s, 1e-3);  // 2(n-1)/n = 1
  EXPECT_THAT(c.cluster, HasSubstr("2 x 1 V100-16GB"));
}

TEST(PublicChecks, ForcedTreeRunsTheTree) {
  net::NcclTestsRow r = two_node_tcp_row();
  r.transport = "rdma";
  r.algorithm = "tree";
  EXPECT_EQ(predict_public_check(r).algorithm, "tree");
}

TEST(PublicChecks, BusBandwidthIsNcclTestsFormula) {
  // 1 GiB in 35215 us on 16 ranks: 30.49 GB/s algbw x 30/16 = 57.17 GB/s (NVIDIA/nccl#527).
  EXPECT_NEAR(bus_bandwidth(1073741824, 35215e-6, 16) / 1e9, 57.17, 0.005);
  EXPECT_NEAR(bus_bandwidth(1000, 1, 2), 1000, 1e-12);
}

}  // namespace
}  // namespace compopt::sim
