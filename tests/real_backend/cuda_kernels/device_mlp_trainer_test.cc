// DeviceMlpTrainer against the CPU path of the same run (FashionMnistMlp's worker and
// make_optimizer on a Local rank): the same synthetic learnable dataset (a bright band of rows
// per class over noise), initial parameters and batches. Losses agree step by step within 1e-3
// relative + 1e-4 (cuBLAS vs Eigen rounding compounds over the steps), both runs learn the
// classes (test accuracy >= 0.9; the CPU reaches 0.997 with momentum SGD, 1.0 with Adam) and
// their test accuracies differ by at most one of the 300 images (0.33 points). Skipped, with
// the reason, without a CUDA device.

#if defined(COMPOPT_HAVE_CUBLAS)

#include "real_backend/cuda_kernels/device_mlp_trainer.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/comm/local/local_world.h"
#include "core/optim/optimizer_factory.h"
#include "tests/real_backend/cuda_kernels/gpu_test_util.h"

namespace compopt::cuda::testing {
namespace {

// Class c brightens pixel rows [7c/10 * 28, ...): a band per class over uniform noise.
ImageSet banded_images(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  ImageSet set;
  set.pixels.resize(count * kFashionMnistPixels);
  set.labels.resize(count);
  for (size_t i = 0; i < count; ++i) {
    const auto label = static_cast<uint8_t>(rng() % kFashionMnistClasses);
    set.labels[i] = label;
    for (size_t p = 0; p < kFashionMnistPixels; ++p) {
      const bool band = p / 78 == label;
      set.pixels[i * kFashionMnistPixels + p] = static_cast<uint8_t>(rng() % 180 + (band ? 60 : 0));
    }
  }
  return set;
}

std::shared_ptr<const FashionMnistData> banded_data() {
  auto data = std::make_shared<FashionMnistData>();
  data->train = banded_images(1024, 1);
  data->test = banded_images(300, 2);
  data->pixel_mean = 0.3f;
  data->pixel_std = 0.25f;
  return data;
}

struct Trajectory {
  std::vector<double> losses;
  double accuracy = 0;
};

std::vector<size_t> batch_of(int step) {
  std::vector<size_t> batch(32);
  for (size_t i = 0; i < batch.size(); ++i) batch[i] = (static_cast<size_t>(step) * 32 + i) % 1024;
  return batch;
}

constexpr int kSteps = 60;

Trajectory cpu_run(const FashionMnistMlp& task, const std::string& name,
                   const HyperParamMap& params) {
  Trajectory run;
  LocalWorld({.ranks = 1}).run([&](Communicator& comm) {
    auto opt = make_optimizer(name, params, task.layout());
    auto worker = task.make_worker(0);
    auto x = task.init_params(3);
    std::vector<float> grad(x.size());
    for (int t = 0; t < kSteps; ++t) {
      run.losses.push_back(worker->loss_and_grad(x, batch_of(t), grad));
      opt->step(x, grad, comm);
    }
    const EvalSums e = worker->evaluate(x, 0, task.test_size());
    run.accuracy = e.correct / e.count;
  });
  return run;
}

Trajectory gpu_run(const FashionMnistMlp& task, const std::string& name,
                   const HyperParamMap& params) {
  Trajectory run;
  LocalWorld({.ranks = 1}).run([&](Communicator& comm) {
    GpuContext gpu;
    gpu.activate();
    DeviceMlpTrainer trainer(gpu, task, name, params, 3);
    for (int t = 0; t < kSteps; ++t) run.losses.push_back(trainer.step(batch_of(t), comm));
    const EvalSums e = trainer.evaluate(0, task.test_size());
    EXPECT_EQ(e.count, static_cast<double>(task.test_size()));
    run.accuracy = e.correct / e.count;
  });
  return run;
}

TEST(DeviceMlpTrainerTest, TrainsLikeTheCpu) {
  COMPOPT_REQUIRE_GPU();
  const FashionMnistMlp task(banded_data(), FashionMnistOptions{.hidden = {64}});
  for (const auto& [name, params] : std::vector<std::pair<std::string, HyperParamMap>>{
           {"momentum-sgd", {{"lr", "0.05"}}}, {"adam", {{"lr", "1e-3"}}}}) {
    SCOPED_TRACE(name);
    const Trajectory cpu = cpu_run(task, name, params), gpu = gpu_run(task, name, params);
    ASSERT_EQ(gpu.losses.size(), cpu.losses.size());
    for (size_t t = 0; t < cpu.losses.size(); ++t) {
      EXPECT_NEAR(gpu.losses[t], cpu.losses[t], 1e-3 * cpu.losses[t] + 1e-4) << "step " << t;
    }
    EXPECT_GE(cpu.accuracy, 0.9);
    EXPECT_GE(gpu.accuracy, 0.9);
    EXPECT_NEAR(gpu.accuracy, cpu.accuracy, 0.004) << "at most one of 300 test images";
  }
}

}  // namespace
}  // namespace compopt::cuda::testing

#endif  // COMPOPT_HAVE_CUBLAS
