// NVLS, NVLink SHARP (sim/nccl_tuning.h, sim/allreduce_algorithm.h), against hand-derived
// figures from NCCL's model: algbw = efficiency x g x the per-channel rate NCCL's search
// settles on (the largest speed-table entry at most the GPU's NVLink bandwidth / g); where it
// runs (one NVSwitch node of Hopper or Blackwell GPUs, NCCL 2.17 on); what auto picks; and
// the charged time of a simulated step: S / algbw + 25 us.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"
#include "net_models/cluster_presets.h"
#include "sim/allreduce_algorithm.h"
#include "sim/collective_prediction.h"
#include "sim/nccl_tuning.h"

namespace compopt::sim {
namespace {

using ::testing::HasSubstr;

// One node of 8 GPUs on NVSwitch at NCCL's per-link NVLink figure (dgx-h100 cut to a node).
net::ClusterSpec one_node(const char* gpu) {
  net::ClusterSpec c = net::with_gpus(net::cluster_preset("dgx-h100"), 8);
  c.gpu = net::gpu_preset(gpu);
  net::use_intra_node_fabric(c, net::IntraNodeFabric::kNvswitch);
  return c;
}

// H100: 18 x 20.6 = 370.8 GB/s, / 8 = 46.35, so 40 GB/s per channel: 0.85 x 8 x 40 = 272.
// H800: 8 x 20.6 = 164.8, / 8 = 20.6, so 20: 136. B200: 18 x 40.1 = 721.8, / 8 = 90.2, so
// 90, at Blackwell's 0.74: 532.8.
TEST(Nvls, AlgorithmBandwidthFromNcclsSearchAndEfficiency) {
  EXPECT_NEAR(nccl_nvls_bandwidth(1e9, one_node("H100")), 272e9, 1e3);
  EXPECT_NEAR(nccl_nvls_bandwidth(1e9, one_node("H200")), 272e9, 1e3);
  EXPECT_NEAR(nccl_nvls_bandwidth(1e9, one_node("H800")), 136e9, 1e3);
  EXPECT_NEAR(nccl_nvls_bandwidth(1e9, one_node("B200")), 532.8e9, 1e3);
  EXPECT_NEAR(nccl_nvls_latency_s(1e9, one_node("H100")), 25e-6, 1e-12);
}

TEST(Nvls, RunsOnOneNvswitchNodeOfHopperOrBlackwellFromNccl217) {
  EXPECT_TRUE(nvls_runs_on(one_node("H100")));
  EXPECT_TRUE(nvls_runs_on(one_node("GB200")));
  EXPECT_FALSE(nvls_runs_on(one_node("A100-80GB")));            // no NVLink SHARP before Hopper
  EXPECT_FALSE(nvls_runs_on(net::cluster_preset("dgx-h100")));  // 32 nodes
  net::ClusterSpec c = one_node("H100");
  c.nccl_version = "2.16.5";
  EXPECT_FALSE(nvls_runs_on(c));
  c.nccl_version = "2.17.1";
  EXPECT_TRUE(nvls_runs_on(c));
  net::use_intra_node_fabric(c, net::IntraNodeFabric::kNvlink);  // no switch to reduce in
  EXPECT_FALSE(nvls_runs_on(c));
  EXPECT_EQ(nccl_nvls_bandwidth(1e9, c), 0);
}

// 1 GB on 8 H100: NVLS 1e9 / 272e9 + 25 us = 3.7 ms against the ring's 1e9 / (370.8e9 x 8 /
// 14) + (8.4 + 14 x 3.4) us = 4.8 ms; under NCCL 2.16 only the ring is there.
TEST(Nvls, AutoPicksNvlsWhereItRunsAndForcingItElsewhereIsRefused) {
  net::ClusterSpec c = one_node("H100");
  EXPECT_EQ(choose_allreduce_algorithm("auto", 1e9, c).name, "nvls");
  c.nccl_version = "2.16.5";
  EXPECT_EQ(choose_allreduce_algorithm("auto", 1e9, c).name, "ring");
  EXPECT_THAT([&] { choose_allreduce_algorithm("nvls", 1e9, c); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("NVLS needs one node")));
}

// The simulated shift moves S through each GPU link at 370.8 GB/s; charged at NCCL's
// algbw: S / 272e9 + 25 us (3.973 ms for 1 GiB), so busbw = 2 x 7/8 x S / time = 473 GB/s,
// approaching 2 x 7/8 x 272 = 476 as the 25 us fade.
TEST(Nvls, SimulatedChargeIsBytesOverNcclsAlgbwPlusLatency) {
  const double bytes = 1073741824;
  const AllreducePrediction p = predict_allreduce(one_node("H100"), bytes);
  EXPECT_EQ(p.algorithm, "nvls");
  const double expected_s = bytes / 272e9 + 25e-6;
  EXPECT_NEAR(p.seconds, expected_s, 0.005 * expected_s);
  EXPECT_NEAR(bytes / p.seconds * 1.75 / 1e9, 473.0, 2.5);
}

}  // namespace
}  // namespace compopt::sim
