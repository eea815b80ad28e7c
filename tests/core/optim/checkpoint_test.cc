// Checkpoint round trip: K steps, save (through the byte blob), fresh
// optimizers on a fresh world, load, continue; bit-identical to an
// uninterrupted run, for every optimizer, before and after stage switches.

#include <gtest/gtest.h>

#include <cstring>
#include <mutex>

#include "tests/core/optim/optim_test_util.h"

namespace compopt::testing {
namespace {

const ParamLayout kLayout = ParamLayout::from_sizes({{"w", 20}, {"b", 11}});
constexpr int kRanks = 4, kPerNode = 2, kTotal = 7;

std::vector<std::pair<std::string, HyperParamMap>> configs() {
  return {{"sgd", {{"weight_decay", "0.1"}}},
          {"momentum-sgd", {{"form", "pytorch"}}},
          {"adam", {{"bias_correction", "true"}}},
          {"lamb", {}},
          {"onebit-adam", {{"freeze_step", "3"}}},
          {"onebit-adam", {{"beta2", "0.75"}}},  // auto detector, Delta = 4
          {"onebit-adam-32bit", {{"freeze_step", "3"}}},
          {"naive-onebit-adam", {}},
          {"onebit-lamb", {{"freeze_step", "3"}}},
          {"birder", {{"seed", "99"}, {"amsgrad_max", "1"}}},
          {"birder-hierarchical", {{"seed", "5"}}},
          {"ef-momentum-sgd", {}},
          {"doublesqueeze", {{"beta", "0.9"}}},
          {"local-sgd", {{"tau", "3"}}},
          {"local-momentum-sgd", {{"tau", "3"}}},
          {"diloco", {{"inner_steps", "3"}}},
          // Fragments sent at 2, 4, 6 and merged a step later: 2 and 4 resume with one in flight.
          {"streaming-diloco", {{"inner_steps", "4"}, {"fragments", "2"}}}};
}

TEST(Checkpoint, ResumeIsBitIdenticalForEveryOptimizer) {
  for (const auto& [name, hp] : configs()) {
    const History full = run_optimizer({name, hp, kLayout, kRanks, kPerNode, kTotal});
    for (int k : {2, 4}) {
      SCOPED_TRACE(name + " resumed after step " + std::to_string(k));
      std::vector<std::vector<std::byte>> blobs(kRanks);
      std::vector<Vec> params(kRanks);
      std::mutex mu;
      run_local(
          kRanks,
          [&](Communicator& comm) {
            auto opt = make_optimizer(name, hp, kLayout);
            Vec x = initial_params(kLayout.total());
            for (int t = 1; t <= k; ++t) opt->step(x, test_grad(comm.rank(), t, x), comm);
            std::lock_guard lock(mu);
            blobs[comm.rank()] = opt->save_bytes();
            params[comm.rank()] = x;
          },
          kPerNode);
      std::vector<std::vector<Vec>> resumed(kTotal + 1, std::vector<Vec>(kRanks));
      run_local(
          kRanks,
          [&](Communicator& comm) {
            auto opt = make_optimizer(name, hp, kLayout);
            opt->load_bytes(blobs[comm.rank()]);
            EXPECT_EQ(opt->step_count(), k);
            Vec x = params[comm.rank()];
            for (int t = k + 1; t <= kTotal; ++t) {
              opt->step(x, test_grad(comm.rank(), t, x), comm);
              std::lock_guard lock(mu);
              resumed[t][comm.rank()] = x;
            }
          },
          kPerNode);
      for (int t = k + 1; t <= kTotal; ++t) {
        for (int r = 0; r < kRanks; ++r) {
          ASSERT_EQ(0, std::memcmp(resumed[t][r].data(), full[t][r].data(),
                                   kLayout.total() * sizeof(float)))
              << "step " << t << " rank " << r;
        }
      }
    }
  }
}

TEST(Checkpoint, StateBlobRoundTripsAndRejectsGarbage) {
  OptimizerState s;
  s.put("m", Vec{1.0f, -0.0f, 3.5f});
  s.put_scalars("c", std::vector<double>{0.1, 1e300});
  const auto blob = s.to_bytes();
  EXPECT_EQ(OptimizerState::from_bytes(blob), s);
  EXPECT_THROW(OptimizerState::from_bytes(std::span(blob).first(blob.size() - 1)), InvalidArgument);
  std::vector<std::byte> bad(blob);
  bad[0] = std::byte{0};
  EXPECT_THROW(OptimizerState::from_bytes(bad), InvalidArgument);
}

TEST(Checkpoint, LoadRejectsOtherOptimizerSizeOrSeed) {
  const ParamLayout layout = ParamLayout::single(8);
  auto adam = make_optimizer("adam", {}, layout);
  auto sgd = make_optimizer("sgd", {}, layout);
  EXPECT_THROW(sgd->load_state(adam->save_state()), InvalidArgument);
  auto bigger = make_optimizer("adam", {}, ParamLayout::single(9));
  EXPECT_THROW(bigger->load_state(adam->save_state()), InvalidArgument);
  auto b1 = make_optimizer("birder", {{"seed", "1"}}, layout);
  auto b2 = make_optimizer("birder", {{"seed", "2"}}, layout);
  EXPECT_THROW(b2->load_state(b1->save_state()), InvalidArgument);
}

}  // namespace
}  // namespace compopt::testing
