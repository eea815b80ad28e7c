#pragma once
// DeviceOptimizer: an optimizer of core/optim whose state (m, v, error feedback) and update live
// on one rank's GPU. Built from the same name and key/value configuration as make_optimizer
// (optimizer_factory.h), which validates it first, so a configuration is accepted, rejected and
// interpreted exactly as on the CPU. Per step, on device params and grads (d floats each):
//   sgd, momentum-sgd, adam, bertadam, lamb: allreduce_mean of the gradient through the
//     communicator (device_exchange.h: NCCL in place, other backends through pinned host copies),
//     then the update kernels of optimizer_kernels.h;
//   onebit-adam (sign or binary compressor), onebit-adam-32bit: the warmup is Adam without bias
//     correction (freeze at freeze_step, or by VarianceFreezeDetector on ||v||_1 summed on the
//     device); the compression stage updates the local momentum, runs the GPU compressed
//     allreduce (gpu_compressed_allreduce.h; error feedback on the device) or, for -32bit, the
//     plain allreduce of the momentum, and applies the frozen-variance update.
// Against the CPU optimizer on the same inputs: elementwise math is bit-identical; the
// allreduce is the communicator's (bit-identical on Local/TCP/MPI, NCCL sums in its own order);
// LAMB's tensor norms and the detector's ||v||_1 sum in the order of optimizer_kernels.h
// (within the CPU's own rounding error of its sequential sums, typically ~1e-14 relative).
// Other optimizers (onebit-lamb, birder, local SGD, compressed momentum SGD) have no device
// update: the constructor throws InvalidArgument naming the supported ones.
//
// Not thread-safe; one instance per rank. The calling thread's current device must be
// gpu.device(); step() returns with the update queued on gpu.stream() (read params after
// gpu.synchronize()).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/comm/communicator.h"
#include "core/optim/optimizer.h"
#include "core/optim/variance_freeze_detector.h"
#include "core/util/hyper_params.h"
#include "core/util/param_layout.h"
#include "real_backend/cuda_kernels/device_segments.h"
#include "real_backend/cuda_kernels/gpu_compressed_allreduce.h"
#include "real_backend/cuda_kernels/optimizer_kernels.h"

namespace compopt::cuda {

// The update rule a DeviceOptimizer runs.
enum class DeviceRule { kSgd, kMomentumSgd, kAdam, kLamb, kOnebitAdam };

// Everything a DeviceOptimizer reads from its configuration.
struct DeviceOptimizerConfig {
  std::string name;  // canonical registry name
  DeviceRule rule = DeviceRule::kSgd;
  CommonOptions common;
  MomentumOptions momentum;
  AdamOptions adam;
  double c_min = 0.01, c_max = 10.0;   // lamb
  std::optional<int64_t> freeze_step;  // onebit-adam; nullopt: automatic detector
  double threshold = 0.96;             // onebit-adam detector
  std::optional<Codec> codec;          // onebit-adam; nullopt for onebit-adam-32bit
};

// Validates with make_optimizer (same InvalidArgument texts), then reads the keys. Throws
// InvalidArgument for optimizers without a device update or compressors without GPU kernels.
DeviceOptimizerConfig device_optimizer_config(std::string_view name, const HyperParamMap& params,
                                              const ParamLayout& layout);

// Canonical names of the optimizers with a device update.
std::vector<std::string> device_optimizer_names();

class DeviceOptimizer {
 public:
  DeviceOptimizer(GpuContext& gpu, std::string_view name, const HyperParamMap& params,
                  const ParamLayout& layout);
  DeviceOptimizer(const DeviceOptimizer&) = delete;
  DeviceOptimizer& operator=(const DeviceOptimizer&) = delete;

  // One step (Optimizer::step's contract): params and grads are device pointers to
  // layout().total() floats; grads is read only.
  void step(float* params, const float* grads, Communicator& comm);

  const std::string& name() const { return config_.name; }
  const ParamLayout& layout() const { return layout_; }
  int64_t step_count() const { return t_; }
  double last_lr() const { return last_lr_; }
  Stage stage() const;
  // onebit-adam: T_w once frozen.
  std::optional<int64_t> freeze_step() const;
  // lamb: the trust coefficient of each tensor at the latest step (synchronizes).
  std::vector<double> layer_coefficients() const;
  // Host copies of the moments (synchronizes); v is empty for sgd and momentum-sgd, m for sgd.
  std::vector<float> first_moment() const;
  std::vector<float> second_moment() const;

 private:
  // The update of config_.rule (and stage) at step t_.
  void run_rule(float* params, const float* grads, Communicator& comm, float lr);
  void step_onebit_warmup(float* params, const float* grads, Communicator& comm, float lr);
  void step_onebit_compressed(float* params, const float* grads, Communicator& comm, float lr);
  // work_ := allreduce_mean(grads) in the configured wire precision.
  void average_gradient(const float* grads, Communicator& comm);
  double variance_l1();
  std::vector<float> download(const DeviceBuffer& buffer) const;

  GpuContext& gpu_;
  ParamLayout layout_;
  DeviceOptimizerConfig config_;
  DeviceBuffer m_, v_, work_;
  std::optional<DeviceSegments> segments_, whole_;  // per tensor (lamb); one segment (detector)
  DeviceBuffer coefficients_, steps_, l1_;
  std::optional<GpuCompressedState> ef_;
  std::optional<VarianceFreezeDetector> detector_;
  bool frozen_ = false;
  int64_t frozen_at_ = 0;
  int64_t t_ = 0;
  double last_lr_ = 0;
};

}  // namespace compopt::cuda
