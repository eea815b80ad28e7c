#include "real_backend/cuda_kernels/device_mlp_trainer.h"

namespace compopt::cuda {

DeviceMlpTrainer::DeviceMlpTrainer(GpuContext& gpu, const FashionMnistMlp& task,
                                   std::string_view optimizer, const HyperParamMap& params,
                                   uint64_t seed)
    : gpu_(gpu),
      train_(gpu, task.data(), task.data().train),
      test_(gpu, task.data(), task.data().test),
      mlp_(gpu, task.widths()),
      optimizer_(gpu, optimizer, params, task.layout()),
      params_(task.layout().total() * sizeof(float)),
      grads_(task.layout().total() * sizeof(float)) {
  const std::vector<float> initial = task.init_params(seed);
  gpu_.copy(params_.data(), initial.data(), params_.size());
  gpu_.synchronize();
}

double DeviceMlpTrainer::step(std::span<const size_t> batch, Communicator& comm) {
  const double loss = mlp_.loss_and_grad(params_.as<float>(), train_, batch, grads_.as<float>());
  optimizer_.step(params_.as<float>(), grads_.as<float>(), comm);
  return loss;
}

EvalSums DeviceMlpTrainer::evaluate(size_t begin, size_t end) {
  return mlp_.evaluate(params_.as<float>(), test_, begin, end);
}

std::vector<float> DeviceMlpTrainer::params() const {
  std::vector<float> out(params_.size() / sizeof(float));
  gpu_.copy(out.data(), params_.data(), params_.size());
  gpu_.synchronize();
  return out;
}

}  // namespace compopt::cuda
