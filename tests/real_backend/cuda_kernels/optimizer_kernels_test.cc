// Optimizer update kernels against the CPU element math of core/optim, bit for bit (ema,
// ema_square, adam_direction, momentum_update, apply_update), and LAMB's per-tensor sums against
// an independent reference of the documented chunk order (bit for bit) and against the CPU's
// sequential l2_norm and l1_norm (1e-10 relative: the sequential sum of n terms may be off by up to
// n x 2^-53 relative, n <= 2^18 here).
// Skipped, with the reason, on machines without a CUDA device.

#include "real_backend/cuda_kernels/optimizer_kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/optim/lamb.h"
#include "core/optim/vector_ops.h"
#include "real_backend/cuda_kernels/device_segments.h"
#include "tests/real_backend/cuda_kernels/gpu_test_util.h"

namespace compopt::cuda::testing {
namespace {

// Sizes around the vector width, the chunk of the segment sums and a grid-stride wrap.
const std::vector<size_t> kSizes = {1, 7, 4095, 4096, 4097, 3 * 4096 + 5, (size_t{1} << 20) + 3};

class OptimizerKernelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    COMPOPT_REQUIRE_GPU();
    gpu_ = std::make_unique<GpuContext>();
  }
  GpuContext& gpu() { return *gpu_; }

 private:
  std::unique_ptr<GpuContext> gpu_;
};

// Positive second moments as Adam builds them.
std::vector<float> squares_of(const std::vector<float>& g) {
  std::vector<float> v(g.size());
  for (size_t i = 0; i < g.size(); ++i) v[i] = 0.01f * g[i] * g[i];
  return v;
}

TEST_F(OptimizerKernelsTest, SgdMatchesApplyUpdate) {
  for (size_t d : kSizes) {
    SCOPED_TRACE("d=" + std::to_string(d));
    auto x = normal_floats(d, 1);
    const auto g = normal_floats(d, 2);
    DeviceVector<float> dx(gpu(), x), dg(gpu(), g);
    sgd_update(gpu(), dx.data(), dg.data(), d, 0.05f, 0.01f);
    apply_update(x, g, 0.05f, 0.01f);
    ASSERT_TRUE(same_bits(dx.host(), x));
  }
}

TEST_F(OptimizerKernelsTest, MomentumSgdMatchesMomentumUpdateInEveryForm) {
  const size_t d = 4097;
  for (MomentumForm form : {MomentumForm::kPaper, MomentumForm::kPyTorch}) {
    for (bool nesterov : {false, true}) {
      SCOPED_TRACE(std::to_string(static_cast<int>(form)) +
                   " nesterov=" + std::to_string(nesterov));
      const MomentumOptions o{0.9f, form, nesterov};
      auto x = normal_floats(d, 3), m = normal_floats(d, 4, 0.1f);
      const auto g = normal_floats(d, 5);
      DeviceVector<float> dx(gpu(), x), dm(gpu(), m), dg(gpu(), g);
      momentum_sgd_update(gpu(), o, dm.data(), dx.data(), dg.data(), d, 0.1f, 1e-4f);
      std::vector<float> dir(d);
      momentum_update(o, m, g, dir);
      apply_update(x, dir, 0.1f, 1e-4f);
      ASSERT_TRUE(same_bits(dm.host(), m));
      ASSERT_TRUE(same_bits(dx.host(), x));
    }
  }
}

TEST_F(OptimizerKernelsTest, AdamMatchesCpuWithAndWithoutBiasCorrection) {
  for (bool bias : {false, true}) {
    for (size_t d : kSizes) {
      SCOPED_TRACE("bias=" + std::to_string(bias) + " d=" + std::to_string(d));
      const AdamOptions o{0.9f, 0.999f, bias};
      auto x = normal_floats(d, 6), m = normal_floats(d, 7, 0.1f);
      const auto g = normal_floats(d, 8);
      auto v = squares_of(normal_floats(d, 9));
      const int64_t t = 3;
      DeviceVector<float> dx(gpu(), x), dm(gpu(), m), dv(gpu(), v), dg(gpu(), g);
      adam_update(gpu(), adam_factors(o, t, 1e-8f), dm.data(), dv.data(), dx.data(), dg.data(), d,
                  1e-3f, 0.01f);
      ema(m, g, o.beta1);
      ema_square(v, g, o.beta2);
      std::vector<float> u(d);
      adam_direction(o, t, 1e-8f, m, v, u);
      apply_update(x, u, 1e-3f, 0.01f);
      ASSERT_TRUE(same_bits(dm.host(), m));
      ASSERT_TRUE(same_bits(dv.host(), v));
      ASSERT_TRUE(same_bits(dx.host(), x));
    }
  }
}

TEST_F(OptimizerKernelsTest, OnebitAdamCompressionStageMatchesCpu) {
  const size_t d = 3 * 4096 + 5;
  auto x = normal_floats(d, 10), m = normal_floats(d, 11, 0.1f);
  const auto g = normal_floats(d, 12);
  const auto v = squares_of(normal_floats(d, 13));
  DeviceVector<float> dx(gpu(), x), dm(gpu(), m), dv(gpu(), v), dg(gpu(), g);
  momentum_ema(gpu(), 0.9f, dm.data(), dg.data(), d);
  ema(m, g, 0.9f);
  ASSERT_TRUE(same_bits(dm.host(), m));
  frozen_adam_update(gpu(), 1e-8f, dm.data(), dv.data(), dx.data(), d, 1e-3f, 0.0f);
  std::vector<float> u(d);
  adam_direction({0.9f, 0.999f, false}, 7, 1e-8f, m, v, u);
  apply_update(x, u, 1e-3f, 0.0f);
  ASSERT_TRUE(same_bits(dx.host(), x));
  ASSERT_TRUE(same_bits(dv.host(), v)) << "the frozen variance is read only";
}

// The documented sum order of SegmentTable, written from its definition.
double reference_segment_sum(const std::vector<double>& terms) {
  double total = 0.0;
  for (size_t begin = 0; begin < terms.size(); begin += kSegmentChunk) {
    const size_t end = std::min(terms.size(), begin + kSegmentChunk);
    std::vector<double> a(kSegmentThreads, 0.0);
    for (size_t i = begin; i < end; ++i) a[(i - begin) % kSegmentThreads] += terms[i];
    for (size_t s = kSegmentThreads / 2; s > 0; s /= 2) {
      for (size_t t = 0; t < s; ++t) a[t] += a[t + s];
    }
    total += a[0];
  }
  return total;
}

std::vector<double> squares(std::span<const float> x) {
  std::vector<double> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = static_cast<double>(x[i]) * x[i];
  return out;
}

TEST_F(OptimizerKernelsTest, LambMatchesDocumentedOrderAndCpuNorms) {
  const auto layout = ParamLayout::from_sizes(
      {{"w1", 4096 * 3 + 17}, {"b1", 5}, {"w2", 1 << 18}, {"zero", 300}, {"b2", 4096}});
  const size_t d = layout.total();
  auto x = normal_floats(d, 14, 0.05f), m = normal_floats(d, 15, 0.1f);
  auto v = squares_of(normal_floats(d, 16));
  auto g = normal_floats(d, 17);
  const auto zero = layout.tensor(3);
  std::fill_n(x.begin() + static_cast<std::ptrdiff_t>(zero.offset), zero.size, 0.0f);
  const AdamOptions o{0.9f, 0.999f, true};
  const float lr = 2e-3f, wd = 0.01f, eps = 1e-6f;
  DeviceVector<float> dx(gpu(), x), dm(gpu(), m), dv(gpu(), v), dg(gpu(), g);
  DeviceVector<double> coefficients(gpu(), layout.num_tensors());
  DeviceVector<float> steps(gpu(), layout.num_tensors());
  DeviceSegments segments(gpu(), layout);
  lamb_direction(gpu(), adam_factors(o, 2, eps), dm.data(), dv.data(), dx.data(), dg.data(),
                 dg.data(), d, wd);
  lamb_apply(gpu(), segments.table(), dx.data(), dg.data(), lr, 0.01, 10.0, coefficients.data(),
             steps.data());

  ema(m, g, o.beta1);
  ema_square(v, g, o.beta2);
  adam_direction(o, 2, eps, m, v, g);
  for (size_t j = 0; j < d; ++j) g[j] += wd * x[j];
  ASSERT_TRUE(same_bits(dm.host(), m));
  ASSERT_TRUE(same_bits(dv.host(), v));
  const auto got = coefficients.host();
  for (size_t l = 0; l < layout.num_tensors(); ++l) {
    SCOPED_TRACE(layout.tensor(l).name);
    auto xl = layout.slice(std::span<float>(x), l);
    auto ul = layout.slice(std::span<const float>(g), l);
    const double c = lamb_coefficient(std::sqrt(reference_segment_sum(squares(xl))),
                                      std::sqrt(reference_segment_sum(squares(ul))), 0.01, 10.0);
    EXPECT_EQ(got[l], c) << "documented order, bit for bit";
    EXPECT_NEAR(got[l], lamb_coefficient(l2_norm(xl), l2_norm(ul), 0.01, 10.0), 1e-10 * c);
    const auto step = static_cast<float>(lr * c);
    for (size_t j = 0; j < xl.size(); ++j) xl[j] -= step * ul[j];
  }
  EXPECT_EQ(got[3], 1.0) << "a zero tensor takes c = 1";
  ASSERT_TRUE(same_bits(dx.host(), x));
}

TEST_F(OptimizerKernelsTest, SegmentL1SumsAbsoluteValuesPerTensor) {
  const auto layout = ParamLayout::from_sizes({{"a", 9000}, {"b", 1}, {"c", 4096}});
  const auto v = normal_floats(layout.total(), 18);
  DeviceVector<float> dv(gpu(), v);
  DeviceVector<double> out(gpu(), layout.num_tensors());
  DeviceSegments segments(gpu(), layout);
  segment_l1(gpu(), segments.table(), dv.data(), out.data());
  const auto got = out.host();
  for (size_t l = 0; l < layout.num_tensors(); ++l) {
    const auto vl = layout.slice(std::span<const float>(v), l);
    std::vector<double> terms(vl.size());
    for (size_t i = 0; i < vl.size(); ++i) terms[i] = std::fabs(static_cast<double>(vl[i]));
    EXPECT_EQ(got[l], reference_segment_sum(terms));
    EXPECT_NEAR(got[l], l1_norm(vl), 1e-10 * got[l]);
  }
}

}  // namespace
}  // namespace compopt::cuda::testing
