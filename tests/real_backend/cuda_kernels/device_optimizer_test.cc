// DeviceOptimizer against the CPU optimizer of make_optimizer: the same configuration, the same
// random gradients, Local ranks (one GpuContext per rank on one device, as hybrid mode runs).
// Parameters after every step are bit-identical, except LAMB, whose tensor norms sum in another
// order (optimizer_kernels.h): its parameters agree within 1e-6 relative and 1e-9 absolute, and
// its trust coefficients within 1e-10 relative (a sequential double sum of n terms may be off by
// up to n x 2^-53 relative). The configuration tests need no GPU; the step
// tests skip, with the reason, on machines without a CUDA device.

#include "real_backend/cuda_kernels/device_optimizer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "core/comm/local/local_world.h"
#include "core/optim/optimizer_factory.h"
#include "core/util/error.h"
#include "tests/real_backend/cuda_kernels/gpu_test_util.h"

namespace compopt::cuda::testing {
namespace {

const ParamLayout kLayout =
    ParamLayout::from_sizes({{"w1", 3 * 4096 + 11}, {"b1", 37}, {"w2", 5000}, {"b2", 10}});

// ---- configuration (no GPU needed) -----------------------------------------------------------

TEST(DeviceOptimizerConfigTest, ReadsTheRegistryKeysAndCanonicalName) {
  const auto c = device_optimizer_config(
      "sgdm", {{"beta", "0.8"}, {"form", "pytorch"}, {"nesterov", "true"}, {"lr", "0.5"}}, kLayout);
  EXPECT_EQ(c.name, "momentum-sgd");
  EXPECT_EQ(c.rule, DeviceRule::kMomentumSgd);
  EXPECT_EQ(c.momentum.beta, 0.8f);
  EXPECT_EQ(c.momentum.form, MomentumForm::kPyTorch);
  EXPECT_TRUE(c.momentum.nesterov);
  EXPECT_EQ(c.common.schedule->lr(0), 0.5);

  const auto lamb = device_optimizer_config(
      "lamb", {{"beta2", "0.99"}, {"bias_correction", "on"}, {"c_max", "3"}}, kLayout);
  EXPECT_EQ(lamb.adam.beta2, 0.99f);
  EXPECT_TRUE(lamb.adam.bias_correction);
  EXPECT_EQ(lamb.c_min, 0.01);
  EXPECT_EQ(lamb.c_max, 3.0);

  const auto bert = device_optimizer_config("bertadam", {}, kLayout);
  EXPECT_FALSE(bert.adam.bias_correction) << "bertadam declares no bias correction";

  const auto onebit = device_optimizer_config(
      "onebit-adam", {{"freeze_step", "auto"}, {"threshold", "0.9"}, {"compressor", "binary"}},
      kLayout);
  EXPECT_FALSE(onebit.freeze_step.has_value());
  EXPECT_EQ(onebit.threshold, 0.9);
  EXPECT_EQ(onebit.codec, Codec::kBinary);
  const auto wide = device_optimizer_config("onebit-adam-32bit", {{"freeze_step", "5"}}, kLayout);
  EXPECT_EQ(wide.freeze_step, 5);
  EXPECT_FALSE(wide.codec.has_value()) << "the 32-bit ablation allreduces the momentum";
}

TEST(DeviceOptimizerConfigTest, RejectsWhatTheCpuRejects) {
  for (const auto& [name, params] : std::vector<std::pair<std::string, HyperParamMap>>{
           {"adam", {{"beta1", "1.5"}}},
           {"lamb", {{"c_min", "5"}, {"c_max", "1"}}},
           {"onebit-adam", {{"freeze_step", "0"}}},
           {"sgd", {{"no_such_key", "1"}}},
           {"no-such-optimizer", {}}}) {
    SCOPED_TRACE(name);
    EXPECT_THROW(make_optimizer(name, params, kLayout), InvalidArgument);
    EXPECT_THROW(device_optimizer_config(name, params, kLayout), InvalidArgument);
  }
}

TEST(DeviceOptimizerConfigTest, RejectsOptimizersAndCompressorsWithoutKernels) {
  try {
    device_optimizer_config("birder", {}, kLayout);
    FAIL() << "birder has no device update";
  } catch (const InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'birder'"), std::string::npos) << what;
    EXPECT_NE(what.find("onebit-adam"), std::string::npos) << "lists the supported: " << what;
  }
  try {
    device_optimizer_config("onebit-adam", {{"compressor", "nbit:4"}}, kLayout);
    FAIL() << "nbit has no CUDA kernels";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("'nbit:4'"), std::string::npos) << e.what();
  }
}

// ---- steps against the CPU (GPU) -------------------------------------------------------------

struct Case {
  std::string name;
  HyperParamMap params;
  int ranks = 1;
  bool exact = true;  // bit-identical parameters (all but LAMB)
};

std::string case_name(const Case& c) {
  std::string out = c.name + " ranks=" + std::to_string(c.ranks);
  for (const auto& [k, v] : c.params) out += " " + k + "=" + v;
  return out;
}

// gtest prints a parameter with this instead of its bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << case_name(c); }

// Gradient of rank r at step t: different per rank and step, some exact zeros.
std::vector<float> gradient(int rank, int t) {
  auto g = normal_floats(kLayout.total(), static_cast<uint32_t>(1000 * t + rank), 0.1f);
  for (size_t i = 0; i < g.size(); i += 97) g[i] = 0.0f;
  return g;
}

void expect_close(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], 1e-9 + 1e-6 * std::abs(want[i])) << "element " << i;
  }
}

// Runs `steps` steps on every rank of a Local world, CPU and device side by side, and compares
// parameters (and stage) after each step on every rank.
void run_against_cpu(const Case& c, int steps) {
  LocalWorld({.ranks = c.ranks}).run([&](Communicator& comm) {
    GpuContext gpu;
    gpu.activate();
    auto cpu = make_optimizer(c.name, c.params, kLayout);
    DeviceOptimizer dev(gpu, c.name, c.params, kLayout);
    auto x = normal_floats(kLayout.total(), 7, 0.05f);
    DeviceVector<float> dx(gpu, x), dg(gpu, kLayout.total());
    for (int t = 1; t <= steps; ++t) {
      SCOPED_TRACE("rank " + std::to_string(comm.rank()) + " step " + std::to_string(t));
      const auto g = gradient(comm.rank(), t);
      gpu.copy(dg.data(), g.data(), g.size() * sizeof(float));
      dev.step(dx.data(), dg.data(), comm);
      cpu->step(x, g, comm);
      ASSERT_EQ(dev.step_count(), cpu->step_count());
      ASSERT_EQ(dev.stage(), cpu->stage());
      ASSERT_EQ(dev.last_lr(), cpu->metrics().lr);
      if (c.exact) {
        ASSERT_TRUE(same_bits(dx.host(), x));
      } else {
        expect_close(dx.host(), x);
        const auto want = cpu->metrics().layer_coefficients;
        const auto got = dev.layer_coefficients();
        ASSERT_EQ(got.size(), want.size());
        for (size_t l = 0; l < got.size(); ++l) ASSERT_NEAR(got[l], want[l], 1e-10 * want[l]);
      }
    }
  });
}

class DeviceOptimizerTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override { COMPOPT_REQUIRE_GPU(); }
};

TEST_P(DeviceOptimizerTest, StepsMatchTheCpuOptimizer) {
  SCOPED_TRACE(case_name(GetParam()));
  run_against_cpu(GetParam(), 12);
}

INSTANTIATE_TEST_SUITE_P(
    Optimizers, DeviceOptimizerTest,
    ::testing::Values(
        Case{"sgd", {{"lr", "0.1"}, {"weight_decay", "0.01"}}},
        Case{"momentum-sgd", {{"form", "pytorch"}, {"nesterov", "true"}}, 2},
        Case{"momentum-sgd", {{"beta", "0.8"}, {"nesterov", "true"}}},
        Case{"adam", {{"bias_correction", "true"}, {"weight_decay", "0.01"}}, 2},
        Case{"bertadam",
             {{"eps", "1e-6"},
              {"schedule", "linear_warmup_linear_decay"},
              {"warmup_steps", "4"},
              {"total_steps", "20"}}},
        Case{"lamb", {{"bias_correction", "true"}, {"weight_decay", "0.01"}}, 1, false},
        Case{"lamb", {{"c_max", "0.5"}}, 2, false}, Case{"onebit-adam", {{"freeze_step", "4"}}, 1},
        Case{"onebit-adam", {{"freeze_step", "3"}}, 3},
        Case{"onebit-adam", {{"freeze_step", "3"}, {"compressor", "binary"}, {"seed", "9"}}, 2},
        Case{"onebit-adam-32bit", {{"freeze_step", "2"}, {"weight_decay", "0.01"}}, 2}),
    [](const ::testing::TestParamInfo<Case>& param) {
      return "case" + std::to_string(param.index);
    });

TEST(DeviceOptimizerDetectorTest, AutomaticFreezeStepMatchesTheCpu) {
  COMPOPT_REQUIRE_GPU();
  // beta2 = 0.9: Delta = 10, so the detector can fire from step 11.
  const Case c{"onebit-adam", {{"beta2", "0.9"}, {"threshold", "0.5"}}, 2};
  run_against_cpu(c, 24);
  GpuContext gpu;
  DeviceOptimizer dev(gpu, c.name, c.params, kLayout);
  DeviceVector<float> dx(gpu, kLayout.total()), dg(gpu, gradient(0, 1));
  LocalWorld({.ranks = 1}).run([&](Communicator& comm) {
    gpu.activate();
    for (int t = 0; t < 24 && !dev.freeze_step(); ++t) dev.step(dx.data(), dg.data(), comm);
  });
  ASSERT_TRUE(dev.freeze_step().has_value()) << "a constant gradient's variance settles";
  EXPECT_GE(*dev.freeze_step(), 11);
}

}  // namespace
}  // namespace compopt::cuda::testing
