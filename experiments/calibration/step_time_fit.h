#pragma once
// The compute side of a calibration: one measured step time of the user's uncompressed
// baseline (a workload preset, the batch per GPU, the GPUs) fits the GPU's max_utilization
// (net_models/gpu_spec.h), the fraction of its peak the model's passes reach, with the
// calibrated network in place: the simulated baseline Adam step (overlap as the simulator's
// default, like DDP) is made equal to the measured one by bisection on log(max_utilization)
// in [0.01, 1]. A step the network alone already exceeds, or one faster than the peak allows,
// keeps the bound and says so.

#include <string>

#include "net_models/cluster_spec.h"

namespace compopt::calibration {

struct StepTimeMeasurement {
  std::string workload;  // preset name
  int gpus = 0, batch_per_gpu = 0;
  double seconds = 0;
};

struct StepTimeFit {
  double max_utilization = 0, base = 0;
  double predicted_before_s = 0, predicted_after_s = 0;
  std::string status;  // "fitted" or the bound it stopped at and why
};

// Fits `cluster.gpu.max_utilization` in place. Throws InvalidArgument for an unknown workload,
// GPUs that do not fill whole nodes of the cluster, or a non-positive time or batch.
StepTimeFit fit_step_time(net::ClusterSpec& cluster, const StepTimeMeasurement& m);

}  // namespace compopt::calibration
