// FLOPs per training example of the built-in tasks (Task::flops), against hand counts.

#include <gtest/gtest.h>

#include "core/tasks/fashion_mnist_mlp.h"
#include "core/tasks/logistic_regression.h"
#include "core/tasks/mlp.h"
#include "core/tasks/noisy_quadratic.h"
#include "core/util/error.h"

namespace compopt {
namespace {

// widths {3, 4, 2}: layer 1 is 3 x 4 = 12 multiply-adds, layer 2 is 4 x 2 = 8.
// forward 2 (12 + 8) = 40; backward: weight gradients 40 plus layer 2's input
// gradient 2 x 8 = 16 (layer 1 has none) = 56; 2 layers.
TEST(TaskFlops, SmallMlpByHand) {
  const TaskFlops f = mlp_flops({3, 4, 2});
  EXPECT_DOUBLE_EQ(f.forward_per_sample, 40);
  EXPECT_DOUBLE_EQ(f.backward_per_sample, 56);
  EXPECT_EQ(f.layers, 2);
}

// One layer: no input gradient, backward = forward.
TEST(TaskFlops, SingleLayerMlpBackwardEqualsForward) {
  const TaskFlops f = mlp_flops({5, 3});
  EXPECT_DOUBLE_EQ(f.forward_per_sample, 30);
  EXPECT_DOUBLE_EQ(f.backward_per_sample, 30);
  EXPECT_EQ(f.layers, 1);
}

TEST(TaskFlops, MlpNeedsTwoWidths) { EXPECT_THROW(mlp_flops({7}), InvalidArgument); }

// 784-256-256-10: forward 2 (200704 + 65536 + 2560) = 537600;
// backward 537600 + 2 (65536 + 2560) = 673792.
TEST(TaskFlops, FashionMnistDefaultNetwork) {
  auto data = std::make_shared<FashionMnistData>();
  for (ImageSet* set : {&data->train, &data->test}) {
    set->pixels.assign(2 * kFashionMnistPixels, 0);
    set->labels.assign(2, 0);
  }
  const FashionMnistMlp task(data, {});
  const TaskFlops f = task.flops();
  EXPECT_DOUBLE_EQ(f.forward_per_sample, 537600);
  EXPECT_DOUBLE_EQ(f.backward_per_sample, 673792);
  EXPECT_EQ(f.layers, 3);
}

TEST(TaskFlops, LogisticIsOneDotProductEachWay) {
  const LogisticRegressionTask task({.dimension = 20, .train_size = 4, .test_size = 2});
  const TaskFlops f = task.flops();
  EXPECT_DOUBLE_EQ(f.forward_per_sample, 40);
  EXPECT_DOUBLE_EQ(f.backward_per_sample, 40);
  EXPECT_EQ(f.layers, 1);
}

TEST(TaskFlops, QuadraticScalesWithDimension) {
  const NoisyQuadraticTask task({.dimension = 1000, .train_size = 8});
  const TaskFlops f = task.flops();
  EXPECT_DOUBLE_EQ(f.forward_per_sample, 2000);
  EXPECT_DOUBLE_EQ(f.backward_per_sample, 2000);
  EXPECT_EQ(f.layers, 1);
}

}  // namespace
}  // namespace compopt
