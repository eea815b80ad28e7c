// CompressedChannel and the optimizers reach the compressed allreduces through the
// Communicator, so a backend's override (the CUDA kernels on hybrid and nccl) runs in
// production code: a communicator that overrides them sees every call, and what it writes is
// what the optimizer gets.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

#include "core/comm/collectives/compressed_allreduce.h"
#include "core/comm/collectives/hierarchical_allreduce.h"
#include "core/comm/local/local_world.h"
#include "core/optim/compressed_channel.h"
#include "core/optim/optimizer_factory.h"

namespace compopt::testing {
namespace {

// Counts the compressed collectives; in `marker` mode writes kMarker instead of reducing.
class CountingCommunicator : public Communicator {
 public:
  static constexpr float kMarker = 42.0f;
  CountingCommunicator(Transport& transport, bool marker)
      : Communicator(transport), marker_(marker) {}

  void compressed_allreduce(std::span<float> data, const Compressor& compressor,
                            CompressedAllreduceState& state, RandomKey key) override {
    ++flat_calls;
    if (marker_) {
      std::fill(data.begin(), data.end(), kMarker);
      return;
    }
    Communicator::compressed_allreduce(data, compressor, state, key);
  }
  void hierarchical_compressed_allreduce(HierarchicalGroups& groups, std::span<float> data,
                                         const Compressor& compressor,
                                         CompressedAllreduceState& state, RandomKey key,
                                         const ShardTransform& transform) override {
    ++hierarchical_calls;
    Communicator::hierarchical_compressed_allreduce(groups, data, compressor, state, key,
                                                    transform);
  }

  int flat_calls = 0;
  int hierarchical_calls = 0;

 private:
  bool marker_;
};

TEST(CompressedChannelOverride, ChannelCallsTheCommunicatorsCollective) {
  std::atomic<int> ranks_checked{0};
  run_local(3, [&](Communicator& world) {
    CountingCommunicator comm(world.transport(), /*marker=*/true);
    CompressedChannel channel("sign", 7);
    std::vector<float> x(10, static_cast<float>(comm.rank()));
    channel.allreduce_mean(comm, x, 1);
    channel.allreduce_mean(comm, x, 2);
    EXPECT_EQ(comm.flat_calls, 2);
    EXPECT_EQ(x, std::vector<float>(10, CountingCommunicator::kMarker));
    ++ranks_checked;
  });
  EXPECT_EQ(ranks_checked.load(), 3);
}

// The default member is the CPU algorithm: same bits as calling it directly.
TEST(CompressedChannelOverride, DefaultEqualsTheCoreAlgorithm) {
  std::vector<std::vector<float>> via_channel(4), direct(4);
  run_local(4, [&](Communicator& world) {
    CountingCommunicator comm(world.transport(), /*marker=*/false);
    std::vector<float> x(37);
    for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.3f * i + comm.rank());
    std::vector<float> y = x;
    CompressedChannel channel("sign", 11);
    channel.allreduce_mean(comm, x, 5);
    CompressedAllreduceState state(y.size(), comm.size());
    compressed_allreduce_mean(world, y, *make_compressor("sign"), state,
                              RandomKey{.seed = 11, .step = 5});
    via_channel[comm.rank()] = x;
    direct[comm.rank()] = y;
    EXPECT_EQ(comm.flat_calls, 1);
  });
  EXPECT_EQ(via_channel, direct);
}

// Optimizers: 1-bit Adam after its warmup and hierarchical Birder use the communicator's
// collectives every step.
TEST(CompressedChannelOverride, OptimizersUseTheCommunicatorsCollectives) {
  run_local(
      4,
      [&](Communicator& world) {
        CountingCommunicator comm(world.transport(), /*marker=*/false);
        auto adam = make_optimizer("onebit-adam", {{"freeze_step", "1"}}, ParamLayout::single(16));
        auto birder = make_optimizer("birder-hierarchical", {}, ParamLayout::single(16));
        std::vector<float> x(16, 0.5f), g(16);
        for (size_t i = 0; i < g.size(); ++i) g[i] = std::cos(0.7f * i + comm.rank());
        for (int step = 0; step < 3; ++step) adam->step(x, g, comm);
        EXPECT_GE(comm.flat_calls, 2) << "compressed steps after freeze_step 1";
        for (int step = 0; step < 2; ++step) birder->step(x, g, comm);
        EXPECT_EQ(comm.hierarchical_calls, 2);
      },
      /*gpus_per_node=*/2);
}

}  // namespace
}  // namespace compopt::testing
