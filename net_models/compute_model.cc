#include "net_models/compute_model.h"

#include <fmt/format.h>

#include "core/util/error.h"

namespace compopt::net {

double pass_seconds(const GpuSpec& gpu, Precision precision, double flops, int layers) {
  return layers * gpu.layer_overhead_s + flops / (gpu.peak_flops(precision) * gpu.max_utilization);
}

ComputeTimes compute_times(const WorkloadSpec& workload, const GpuSpec& gpu, int batch_per_gpu,
                           int grad_accum) {
  workload.validate();
  gpu.validate();
  if (batch_per_gpu < 1 || grad_accum < 1) {
    throw InvalidArgument(fmt::format("batch_per_gpu = {}, grad_accum = {}: expected both >= 1",
                                      batch_per_gpu, grad_accum));
  }
  const Precision precision = workload.compute_precision;
  const double forward_flops = batch_per_gpu * workload.forward_flops_per_sample;
  const double backward_flops = batch_per_gpu * workload.backward_flops();
  ComputeTimes t;
  t.forward_s = grad_accum * pass_seconds(gpu, precision, forward_flops, workload.layers);
  t.backward_s = grad_accum * pass_seconds(gpu, precision, backward_flops, workload.layers);
  const double hbm_bytes_per_s = gpu.hbm_gbps * 1e9;
  const auto parameters = static_cast<double>(workload.parameters);
  t.step_s = parameters * workload.step_bytes_per_param / hbm_bytes_per_s;
  t.compress_s = parameters * workload.compress_bytes_per_element / hbm_bytes_per_s;
  t.utilization = grad_accum * (forward_flops + backward_flops) /
                  ((t.forward_s + t.backward_s) * gpu.peak_flops(precision));
  return t;
}

}  // namespace compopt::net
