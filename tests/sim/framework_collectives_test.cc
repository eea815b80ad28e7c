// The compressed allreduce as the frameworks issue it (sim/framework_collectives.h) against
// hand-derived latencies: an all-to-all in flight pays the wire latency once instead of once per
// round, NCCL's pipelined ring all-gather each hop's own latency, DeepSpeed's separate gather of
// the server scale one all-gather more; and in the step simulator the three profiles that differ
// only in these collectives differ by exactly those latencies.

#include "sim/framework_collectives.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"
#include "net_models/cluster_presets.h"
#include "sim/flow_costs.h"
#include "sim/implementation_profile.h"
#include "sim/step_simulator.h"

namespace compopt::sim {
namespace {

using ::testing::HasSubstr;

net::ClusterSpec cluster_of(int nodes, int gpus_per_node) {
  net::ClusterSpec c;
  c.name = "hand";
  c.nodes = nodes;
  c.gpus_per_node = gpus_per_node;
  return c;
}

// 100 us a round across nodes of which the sender's per-message cost is 40 (wire 60), 10 us
// inside a node with no per-message cost.
LockStepShape flat(bool has_scale) {
  return {.scheme = CommScheme::kCompressedFlat,
          .has_scale = has_scale,
          .hop = {.inter_node_s = 100e-6, .intra_node_s = 10e-6},
          .inter_node_message_s = 40e-6,
          .intra_node_message_s = 0};
}

// 2 nodes x 4 GPUs, n = 8, flat. The all-to-all's 7 rounds pay 7 x 60 us of wire, in flight 60:
// -360 us. A lock-step all-gather pays 7 x 100 = 700 us, the pipelined ring 1 x 100 + 6 x 10 =
// 160: -540 us for each of the worker scales and the server messages.
TEST(FrameworkCollectives, TorchNcclFlat) {
  const auto& torch = framework_collectives("torch-nccl");
  EXPECT_NEAR(framework_collectives_s(1.0, torch, flat(true), cluster_of(2, 4)), 1.0 - 1440e-6,
              1e-12);
  // Without a scale there is no all-gather of worker scales.
  EXPECT_NEAR(framework_collectives_s(1.0, torch, flat(false), cluster_of(2, 4)), 1.0 - 900e-6,
              1e-12);
}

// DeepSpeed's NCCL backend: the same, plus the server scale's own pipelined all-gather, 160 us.
TEST(FrameworkCollectives, DeepSpeedNcclGathersTheServerScaleApart) {
  EXPECT_NEAR(framework_collectives_s(1.0, framework_collectives("deepspeed-nccl"), flat(true),
                                      cluster_of(2, 4)),
              1.0 - 1440e-6 + 160e-6, 1e-12);
}

// DeepSpeed's MPI backend: the all-to-all in flight (-360), the worker scales' gathers posted with
// it (their 7 rounds' wire, -420), the server Allgather lock-step (0) and the server scale's
// Allgather lock-step too (+700): -80 us.
TEST(FrameworkCollectives, DeepSpeedMpiKeepsItsAllgathersLockStep) {
  EXPECT_NEAR(framework_collectives_s(1.0, framework_collectives("deepspeed-mpi"), flat(true),
                                      cluster_of(2, 4)),
              1.0 - 80e-6, 1e-12);
}

// Hierarchical on 4 nodes x 4 GPUs: the collectives run over the 4 nodes, every hop between
// nodes, so a pipelined ring pays what lock-step rounds do; only the all-to-all's 3 rounds
// become one: -2 x 60 us.
TEST(FrameworkCollectives, HierarchicalSavesOnlyTheAllToAllsRounds) {
  LockStepShape shape = flat(true);
  shape.scheme = CommScheme::kCompressedHierarchical;
  EXPECT_NEAR(
      framework_collectives_s(1.0, framework_collectives("torch-nccl"), shape, cluster_of(4, 4)),
      1.0 - 120e-6, 1e-12);
}

// One node of 8: every round is a 10 us hop inside it with no message cost; the all-to-all's 7
// rounds become 1 (-60 us), a ring inside one node pays the same hops either way.
TEST(FrameworkCollectives, OneNode) {
  EXPECT_NEAR(framework_collectives_s(1.0, framework_collectives("torch-nccl"), flat(true),
                                      cluster_of(1, 8)),
              1.0 - 60e-6, 1e-12);
  EXPECT_EQ(framework_collectives_s(1.0, framework_collectives("torch-nccl"), flat(true),
                                    cluster_of(1, 1)),
            1.0);
}

TEST(FrameworkCollectives, NeverBelowZeroAndNotForTheRing) {
  EXPECT_EQ(framework_collectives_s(1e-4, framework_collectives("torch-nccl"), flat(true),
                                    cluster_of(2, 4)),
            0.0);
  LockStepShape ring = flat(true);
  ring.scheme = CommScheme::kRing;
  EXPECT_THROW(
      framework_collectives_s(1.0, framework_collectives("torch-nccl"), ring, cluster_of(2, 4)),
      InvalidArgument);
}

TEST(FrameworkCollectives, EveryProfileNamesARegisteredEntry) {
  for (const std::string& name : implementation_names()) {
    EXPECT_NO_THROW(framework_collectives(implementation_profile(name).compressed_collectives))
        << name;
  }
  EXPECT_EQ(implementation_profile("deepspeed-2020").compressed_collectives, "deepspeed-mpi");
  EXPECT_EQ(implementation_profile("deepspeed-2021").compressed_collectives, "deepspeed-nccl");
  EXPECT_EQ(implementation_profile("pytorch-2022").compressed_collectives, "torch-nccl");
  EXPECT_THAT([] { framework_collectives("gloo"); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("torch-nccl")));
}

// In the step simulator: BERT-Base with 1-bit Adam on 4 nodes of ethernet-a100-8 under the three
// profiles that differ only in these collectives. The warmup's ring is the same; the compression
// stage's allreduce differs by the latencies above on this cluster's own hop times.
TEST(FrameworkCollectives, StepSimulatorChargesTheProfilesCollectives) {
  auto comm_s = [](const char* implementation, size_t stage) {
    StepConfig c;
    c.workload = net::workload_preset("bert-base-squad");
    c.cluster = net::cluster_preset("ethernet-a100-8");
    c.cluster.nodes = 4;
    c.optimizer = "onebit-adam";
    c.implementation = implementation;
    return simulate_step(c).at(stage).comm_s;
  };
  EXPECT_NEAR(comm_s("deepspeed-2020", 0), comm_s("deepspeed-2021", 0), 1e-12);
  net::ClusterSpec cluster = net::cluster_preset("ethernet-a100-8");
  cluster.nodes = 4;
  const RingHopLatency hop = ring_hop_latency(cluster);
  const double inter = hop.inter_node_s, intra = hop.intra_node_s;
  const double wire = inter - transport_between(cluster, true).message_overhead_s;
  const int n = 32, nodes = 4;
  const double pipelined = (nodes - 1) * inter + (n - nodes) * intra;
  const double ring_saving = (n - 1) * inter - pipelined;
  // deepspeed-2021 - deepspeed-2020: the worker scales pipelined instead of posted with the
  // all-to-all, the server pipelined instead of lock-step, the server scale likewise.
  const double expected =
      (-ring_saving + (n - 1) * wire) - ring_saving + (pipelined - (n - 1) * inter);
  EXPECT_NEAR(comm_s("deepspeed-2021", 1) - comm_s("deepspeed-2020", 1), expected, 1e-9);
}

// StepConfig::compressed_collectives replaces the profile's entry (the --sensitivity choice):
// deepspeed-2020 issued as DeepSpeed's NCCL backend is deepspeed-2021; an unknown name is refused
// before any simulation, naming the entries.
TEST(FrameworkCollectives, StepConfigOverridesTheProfilesEntry) {
  StepConfig c;
  c.workload = net::workload_preset("bert-base-squad");
  c.cluster = net::cluster_preset("ethernet-a100-8");
  c.cluster.nodes = 4;
  c.optimizer = "onebit-adam";
  c.implementation = "deepspeed-2021";
  const double nccl = simulate_step(c).at(1).comm_s;
  c.implementation = "deepspeed-2020";
  const double mpi = simulate_step(c).at(1).comm_s;
  c.compressed_collectives = "deepspeed-nccl";
  EXPECT_NEAR(simulate_step(c).at(1).comm_s, nccl, 1e-12);
  EXPECT_GT(mpi, nccl);
  c.compressed_collectives = "gloo";
  EXPECT_THAT([&c] { simulate_step(c); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("deepspeed-mpi")));
}

}  // namespace
}  // namespace compopt::sim
