// DeviceMlp against MlpKernel<float> (core/tasks/mlp.h) on the same parameters and examples:
// the gathered inputs are bit-identical (same fp32 standardization); loss and gradient agree
// within 1e-4 relative (cuBLAS's GEMMs sum in another order than Eigen's, and the softmax uses
// the device's expf/logf); evaluation counts the same correct predictions. Skipped, with the
// reason, without a CUDA device (and absent when cuBLAS was not found at build time).

#if defined(COMPOPT_HAVE_CUBLAS)

#include "real_backend/cuda_kernels/device_mlp.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/tasks/mlp.h"
#include "core/util/error.h"
#include "tests/real_backend/cuda_kernels/gpu_test_util.h"

namespace compopt::cuda::testing {
namespace {

const std::vector<size_t> kWidths = {37, 24, 16, 5};
constexpr size_t kExamples = 300;
constexpr float kScale = 1.0f / (255.0f * 0.3f), kShift = -0.2f / 0.3f;

struct Data {
  std::vector<uint8_t> pixels, labels;
};

Data random_data() {
  std::mt19937 rng(5);
  Data d;
  d.pixels.resize(kExamples * kWidths[0]);
  d.labels.resize(kExamples);
  for (auto& p : d.pixels) p = static_cast<uint8_t>(rng() % 256);
  for (auto& l : d.labels) l = static_cast<uint8_t>(rng() % kWidths.back());
  return d;
}

// He-normal weights and small non-zero biases.
std::vector<float> random_params() {
  const ParamLayout layout = mlp_layout(kWidths);
  std::vector<float> params = normal_floats(layout.total(), 6, 0.01f);
  for (size_t l = 1; l < kWidths.size(); ++l) {
    const TensorSpec& w = layout.tensor(2 * (l - 1));
    const auto he = normal_floats(w.size, static_cast<uint32_t>(l),
                                  std::sqrt(2.0f / static_cast<float>(kWidths[l - 1])));
    std::copy(he.begin(), he.end(), params.begin() + static_cast<std::ptrdiff_t>(w.offset));
  }
  return params;
}

// The CPU worker's gather: standardized rows of the given examples, and their labels.
MlpKernel<float>::Matrix cpu_inputs(const Data& d, const std::vector<size_t>& rows,
                                    std::vector<int>& labels) {
  MlpKernel<float>::Matrix x(static_cast<Eigen::Index>(rows.size()),
                             static_cast<Eigen::Index>(kWidths[0]));
  labels.clear();
  for (size_t i = 0; i < rows.size(); ++i) {
    for (size_t p = 0; p < kWidths[0]; ++p) {
      x(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(p)) =
          static_cast<float>(d.pixels[rows[i] * kWidths[0] + p]) * kScale + kShift;
    }
    labels.push_back(d.labels[rows[i]]);
  }
  return x;
}

class DeviceMlpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    COMPOPT_REQUIRE_GPU();
    gpu_ = std::make_unique<GpuContext>();
    gpu_->activate();
  }
  GpuContext& gpu() { return *gpu_; }

 private:
  std::unique_ptr<GpuContext> gpu_;
};

TEST_F(DeviceMlpTest, LossAndGradientMatchTheCpuKernel) {
  const Data data = random_data();
  const auto params = random_params();
  DeviceImageSet set(gpu(), data.pixels, data.labels, kWidths[0], kScale, kShift);
  DeviceMlp mlp(gpu(), kWidths);
  ASSERT_EQ(mlp.num_params(), params.size());
  DeviceVector<float> dp(gpu(), params), dg(gpu(), params.size());
  MlpKernel<float> cpu(kWidths);
  for (const std::vector<size_t>& batch :
       {std::vector<size_t>{0}, std::vector<size_t>{5, 5, 299, 17, 3, 100, 42},
        std::vector<size_t>{10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25}}) {
    SCOPED_TRACE("batch of " + std::to_string(batch.size()));
    std::vector<int> labels;
    const auto x = cpu_inputs(data, batch, labels);
    std::vector<float> want(params.size());
    const double cpu_loss = cpu.loss_and_grad(params, x, labels, want);
    const double gpu_loss = mlp.loss_and_grad(dp.data(), set, batch, dg.data());
    EXPECT_NEAR(gpu_loss, cpu_loss, 1e-4 * cpu_loss);
    const auto got = dg.host();
    double scale = 0;
    for (float g : want) scale = std::max(scale, static_cast<double>(std::abs(g)));
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_NEAR(got[i], want[i], 1e-4 * scale) << "parameter " << i;
    }
    const double again = mlp.loss_and_grad(dp.data(), set, batch, dg.data());
    EXPECT_EQ(again, gpu_loss) << "repeatable on one GPU";
    EXPECT_TRUE(same_bits(dg.host(), got));
  }
}

TEST_F(DeviceMlpTest, EvaluateMatchesTheCpuKernel) {
  const Data data = random_data();
  const auto params = random_params();
  DeviceImageSet set(gpu(), data.pixels, data.labels, kWidths[0], kScale, kShift);
  DeviceMlp mlp(gpu(), kWidths);
  DeviceVector<float> dp(gpu(), params);
  const EvalSums got = mlp.evaluate(dp.data(), set, 7, kExamples, 64);
  std::vector<size_t> rows;
  for (size_t i = 7; i < kExamples; ++i) rows.push_back(i);
  std::vector<int> labels;
  MlpKernel<float> cpu(kWidths);
  const auto want = cpu.evaluate(params, cpu_inputs(data, rows, labels), labels);
  EXPECT_EQ(got.count, static_cast<double>(rows.size()));
  EXPECT_EQ(got.correct, static_cast<double>(want.correct));
  EXPECT_NEAR(got.loss_sum, want.loss_sum, 1e-4 * want.loss_sum);
}

TEST_F(DeviceMlpTest, RejectsBadBatchesAndSets) {
  const Data data = random_data();
  DeviceImageSet set(gpu(), data.pixels, data.labels, kWidths[0], kScale, kShift);
  DeviceMlp mlp(gpu(), kWidths);
  DeviceVector<float> dp(gpu(), mlp.num_params()), dg(gpu(), mlp.num_params());
  const std::vector<size_t> empty, out_of_range = {1, kExamples};
  EXPECT_THROW(mlp.loss_and_grad(dp.data(), set, empty, dg.data()), InvalidArgument);
  EXPECT_THROW(mlp.loss_and_grad(dp.data(), set, out_of_range, dg.data()), InvalidArgument);
  EXPECT_THROW(mlp.evaluate(dp.data(), set, 5, kExamples + 1), InvalidArgument);
  std::vector<uint8_t> wide_labels = data.labels;
  wide_labels[3] = static_cast<uint8_t>(kWidths.back());
  DeviceImageSet bad(gpu(), data.pixels, wide_labels, kWidths[0], kScale, kShift);
  EXPECT_THROW(mlp.evaluate(dp.data(), bad, 0, 10), InvalidArgument) << "label >= classes";
  EXPECT_THROW(DeviceImageSet(gpu(), data.pixels, data.labels, kWidths[0] + 1, kScale, kShift),
               InvalidArgument);
}

}  // namespace
}  // namespace compopt::cuda::testing

#endif  // COMPOPT_HAVE_CUBLAS
