#pragma once
// Task: a model plus data for data-parallel training (docs/architecture.md).
// A Task is immutable and shared by all ranks of a process; each rank asks it
// for a TaskWorker that owns that rank's scratch buffers.
//
// Contract:
// - layout() names every parameter tensor; params/grads spans have layout().total() elements.
// - init_params(seed) is a pure function of the seed (every rank gets the same vector).
// - The training set has train_size() examples indexed 0..train_size()-1; the
//   training loop decides which rank draws which indices.
// - TaskWorker::loss_and_grad returns the mean loss over the batch and writes
//   its exact gradient (same float ops for the same inputs: deterministic).
// - TaskWorker::evaluate sums per-example test loss and correct predictions over
//   test examples [begin, end) so ranks can split the test set and add.
// - flops() is the arithmetic of one training example (TaskFlops), which the
//   simulator turns into compute time on a modeled GPU (docs/training.md).
// Task methods are thread-safe; a TaskWorker is confined to one thread.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/util/param_layout.h"

namespace compopt {

struct EvalSums {
  double loss_sum = 0;  // sum of per-example losses
  double correct = 0;   // examples predicted correctly (0 when the task has no accuracy)
  double count = 0;     // examples evaluated
};

// Arithmetic of one training example: 2 FLOPs per multiply-add of the products
// the worker computes for it, in the forward pass (its loss) and the backward
// pass (its gradient); `layers` is the number of sequential layers a pass runs
// (each pays a GPU's fixed per-layer overhead, net_models/compute_model.h).
struct TaskFlops {
  double forward_per_sample = 0;
  double backward_per_sample = 0;
  int layers = 1;
};

class TaskWorker {
 public:
  virtual ~TaskWorker() = default;
  // Mean loss over the training examples `batch`; grad = its gradient.
  virtual double loss_and_grad(std::span<const float> params, std::span<const size_t> batch,
                               std::span<float> grad) = 0;
  // Sums over test examples [begin, end), end <= Task::test_size().
  virtual EvalSums evaluate(std::span<const float> params, size_t begin, size_t end) = 0;
};

class Task {
 public:
  virtual ~Task() = default;
  virtual std::string name() const = 0;
  // One line: the task and its parameters, for logs and run.json.
  virtual std::string describe() const = 0;
  virtual const ParamLayout& layout() const = 0;
  virtual std::vector<float> init_params(uint64_t seed) const = 0;
  virtual size_t train_size() const = 0;
  virtual size_t test_size() const = 0;
  // Whether evaluate() counts correct predictions (classification).
  virtual bool has_accuracy() const = 0;
  virtual TaskFlops flops() const = 0;
  // Worker of `rank` (0 <= rank < ranks the task was built for, where that matters).
  virtual std::unique_ptr<TaskWorker> make_worker(int rank) const = 0;
};

}  // namespace compopt
