// Every optimizer on the noisy quadratic with 8 ranks reaches its documented
// tolerance of the optimum (table in docs/optimizers.md). Run with
// --gtest_filter='QuadraticConvergence.*' to print the table.

#include <gtest/gtest.h>

#include <cstdio>
#include <mutex>

#include "core/comm/local/local_world.h"
#include "core/optim/optimizer_factory.h"
#include "tests/core/optim/noisy_quadratic.h"

namespace compopt::testing {
namespace {

constexpr size_t kD = 64;
constexpr int kRanks = 8, kPerNode = 4, kSteps = 300;

struct Case {
  std::string name;
  HyperParamMap hp;
  double tolerance;  // on ||x - c|| / ||x0 - c|| after kSteps
};

HyperParamMap with_cosine(HyperParamMap hp, const std::string& lr, int warmup = 0) {
  hp["lr"] = lr;
  hp["schedule"] = "cosine";
  hp["warmup_steps"] = std::to_string(warmup);
  hp["total_steps"] = std::to_string(kSteps);
  return hp;
}

std::vector<Case> cases() {
  return {
      {"sgd", with_cosine({}, "0.5"), 0.06},
      {"momentum-sgd", with_cosine({{"beta", "0.9"}}, "0.5"), 0.06},
      {"adam", with_cosine({{"beta2", "0.99"}}, "0.05"), 0.06},
      {"lamb", with_cosine({{"beta2", "0.99"}}, "0.1"), 0.06},
      {"onebit-adam", with_cosine({{"beta2", "0.99"}}, "0.05", 20), 0.06},
      {"onebit-adam-32bit", with_cosine({{"beta2", "0.99"}, {"freeze_step", "50"}}, "0.05"), 0.06},
      {"naive-onebit-adam", with_cosine({{"beta2", "0.99"}}, "0.05"), 0.05},
      {"onebit-lamb", with_cosine({{"beta2", "0.99"}, {"freeze_step", "50"}}, "0.1"), 0.06},
      {"birder", with_cosine({}, "0.05"), 0.06},
      {"birder-hierarchical", with_cosine({}, "0.05"), 0.06},
      {"ef-momentum-sgd", with_cosine({}, "0.2"), 0.06},
      {"doublesqueeze", with_cosine({}, "0.5"), 0.06},
      {"local-sgd", with_cosine({{"tau", "4"}}, "0.5"), 0.06},
      {"local-momentum-sgd", with_cosine({{"tau", "4"}}, "0.5"), 0.06},
  };
}

TEST(QuadraticConvergence, EveryOptimizerReachesItsTolerance) {
  const NoisyQuadratic task(kD, 0.5, 2024);
  std::printf("| optimizer | steps | final ||x-c||/||x0-c|| | tolerance |\n|---|---|---|---|\n");
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    std::vector<float> final_x;
    std::mutex mu;
    run_local(
        kRanks,
        [&](Communicator& comm) {
          auto opt = make_optimizer(c.name, c.hp, ParamLayout::from_sizes({{"w", 48}, {"b", 16}}));
          std::vector<float> x(kD, 0.0f);
          for (int t = 1; t <= kSteps; ++t) opt->step(x, task.grad(comm.rank(), t, x), comm);
          if (comm.rank() == 0) {
            std::lock_guard lock(mu);
            final_x = x;
          }
        },
        kPerNode);
    const double dist = task.relative_distance(final_x);
    std::printf("| %s | %d | %.5f | %.2f |\n", c.name.c_str(), kSteps, dist, c.tolerance);
    EXPECT_LE(dist, c.tolerance);
  }
}

}  // namespace
}  // namespace compopt::testing
