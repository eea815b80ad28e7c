#include "net_models/compute_model.h"

#include <fmt/format.h>

#include <string_view>
#include <utility>

#include "core/util/error.h"

namespace compopt::net {

Precision precision_on(const GpuSpec& gpu, Precision precision) {
  return precision == Precision::kTf32 && !(gpu.tf32_tflops > 0) ? Precision::kFp32 : precision;
}

double pass_seconds(const GpuSpec& gpu, Precision precision, double flops, int layers) {
  const UtilizationCurve curve = gpu.curve(precision);
  return layers * curve.layer_overhead_s +
         flops / (gpu.peak_flops(precision) * curve.max_utilization);
}

ComputeTimes compute_times(const WorkloadSpec& workload, const GpuSpec& gpu, int batch_per_gpu,
                           int grad_accum) {
  workload.validate();
  gpu.validate();
  if (batch_per_gpu < 1 || grad_accum < 1) {
    throw InvalidArgument(fmt::format("batch_per_gpu = {}, grad_accum = {}: expected both >= 1",
                                      batch_per_gpu, grad_accum));
  }
  ComputeTimes t;
  t.precision = precision_on(gpu, workload.compute_precision);
  t.curve = gpu.curve(t.precision);
  t.measured = workload.measured();
  const double forward_flops = batch_per_gpu * workload.forward_flops_per_sample;
  const double backward_flops = batch_per_gpu * workload.backward_flops();
  if (t.measured) {
    const double scale = static_cast<double>(batch_per_gpu) / workload.measured_batch_per_gpu;
    t.forward_s = grad_accum * workload.measured_forward_s * scale;
    t.backward_s = grad_accum * workload.measured_backward_s * scale;
  } else {
    t.forward_s = grad_accum * pass_seconds(gpu, t.precision, forward_flops, workload.layers);
    t.backward_s = grad_accum * pass_seconds(gpu, t.precision, backward_flops, workload.layers);
    // Full activation checkpointing runs each micro-batch's forward again inside backward.
    t.recomputes_forward = workload.activation_checkpointing.value_or(false);
    if (t.recomputes_forward) t.backward_s += t.forward_s;
  }
  const double hbm_bytes_per_s = gpu.hbm_gbps * 1e9;
  const auto parameters = static_cast<double>(workload.parameters);
  t.step_s = workload.measured_step_s > 0
                 ? workload.measured_step_s
                 : parameters * workload.step_bytes_per_param / hbm_bytes_per_s;
  t.compress_s = parameters * workload.compress_bytes_per_element / hbm_bytes_per_s;
  t.utilization = grad_accum * (forward_flops + backward_flops) /
                  ((t.forward_s + t.backward_s) * gpu.peak_flops(t.precision));
  return t;
}

namespace {

// The start of a curve's source text (gpu_spec.cc, cluster_table.cc) and the kind it names.
constexpr std::pair<std::string_view, std::string_view> kSourceKinds[] = {
    {"fitted:", "fitted"},
    {"public:", "public"},
    {"borrowed:", "borrowed"},
    {"the cluster config", "config"},
};

}  // namespace

std::string utilization_curve_kind(const UtilizationCurve& curve) {
  for (const auto& [start, kind] : kSourceKinds)
    if (curve.source.starts_with(start)) return std::string(kind);
  return "unstated";
}

std::string utilization_source_kind(const ComputeTimes& times) {
  return times.measured ? "measured" : utilization_curve_kind(times.curve);
}

namespace {

// "bf16", or "fp32 (tf32 asked: V100-32GB has no tf32 unit, PyTorch computes fp32 there)".
std::string precision_text(const WorkloadSpec& workload, const GpuSpec& gpu, Precision used) {
  if (used == workload.compute_precision) return std::string(precision_name(used));
  return fmt::format("{} ({} asked: {} has no {} unit, PyTorch computes {} there)",
                     precision_name(used), precision_name(workload.compute_precision), gpu.name,
                     precision_name(workload.compute_precision), precision_name(used));
}

}  // namespace

std::string compute_summary(const WorkloadSpec& workload, const GpuSpec& gpu, int batch_per_gpu,
                            int grad_accum) {
  const ComputeTimes times = compute_times(workload, gpu, batch_per_gpu, grad_accum);
  const std::string precision = precision_text(workload, gpu, times.precision);
  const double achieved_tflops = times.utilization * gpu.peak_flops(times.precision) / 1e12;
  if (times.measured) {
    const std::string scaled = batch_per_gpu == workload.measured_batch_per_gpu
                                   ? std::string()
                                   : fmt::format(", scaled linearly to batch {}", batch_per_gpu);
    return fmt::format(
        "compute: measured, forward {:.4g} ms + backward {:.4g} ms at batch {}{}; step {}; that "
        "is {:.1f}% of the {}'s {} peak in model FLOPs ({:.0f} TFLOP/s)",
        workload.measured_forward_s * 1e3, workload.measured_backward_s * 1e3,
        workload.measured_batch_per_gpu, scaled,
        workload.measured_step_s > 0
            ? fmt::format("{:.4g} ms measured", workload.measured_step_s * 1e3)
            : std::string("from the model (HBM traffic)"),
        100 * times.utilization, gpu.name, precision, achieved_tflops);
  }
  return fmt::format(
      "compute: model, {:.1f} GFLOP/sample in {} on {} at {:.1f}% of its peak ({:.0f} TFLOP/s){}; "
      "utilisation up to {:.3g} with {:.3g} ms per layer and pass, from {}",
      (workload.forward_flops_per_sample + workload.backward_flops()) / 1e9, precision, gpu.name,
      100 * times.utilization, achieved_tflops,
      times.recomputes_forward ? ", backward recomputing the forward (activation checkpointing)"
                               : "",
      times.curve.max_utilization, times.curve.layer_overhead_s * 1e3, times.curve.source);
}

}  // namespace compopt::net
