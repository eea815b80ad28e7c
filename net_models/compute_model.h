#pragma once
// The compute model: how long a workload's forward pass, backward pass, optimizer step and
// compression take on a GPU (docs/whatif.md, "Compute model").
//
//   forward  = accum x pass(b x forward FLOPs),  backward = accum x pass(b x backward FLOPs)
//              (+ forward under full activation checkpointing: the forward runs again in
//              backward, WorkloadSpec::activation_checkpointing)
//   pass(W)  = layers x layer_overhead_s + W / (peak(precision) x max_utilization(precision))
//   step     = parameters x step_bytes_per_param / HBM bandwidth
//   compress = parameters x compress_bytes_per_element / HBM bandwidth
// compress is the reference compression_cost.h scales: Birder's binary compressed allreduce
// on 8 GPUs; the step simulator scales it per stage, compressor and cluster.
//
// The achieved utilisation W / (pass(W) x peak) is below max_utilization <= 1, so no workload
// is ever computed faster than the GPU's peak; a GPU without the workload's compute precision
// (an fp8 workload on a V100) is refused, except tf32 on a GPU without a tf32 unit, which
// computes in fp32 as PyTorch does there (the summary says so).
//
// A workload with measured times (WorkloadSpec::measured_*) takes them instead of the passes:
// forward and backward scale linearly from the measured micro-batch to `batch_per_gpu`, the
// measured step replaces the memory-bound one.

#include <string>

#include "net_models/gpu_spec.h"
#include "net_models/workload.h"

namespace compopt::net {

struct ComputeTimes {
  double forward_s = 0, backward_s = 0;    // of the whole step (all micro-batches)
  double step_s = 0;                       // optimizer step, once per step
  double compress_s = 0;                   // reference compression (binary, 8 GPUs)
  double utilization = 0;                  // achieved fraction of the peak in the passes
  Precision precision = Precision::kFp32;  // the precision the passes run at on this GPU
  UtilizationCurve curve;                  // the GPU's curve at that precision
  bool measured = false;                   // the passes come from the workload's measurement
  bool recomputes_forward = false;         // backward_s includes a second forward (checkpointing)
};

// Throws InvalidArgument for an invalid workload or GPU, a batch or accumulation below 1, or
// a compute precision the GPU lacks.
ComputeTimes compute_times(const WorkloadSpec& workload, const GpuSpec& gpu, int batch_per_gpu,
                           int grad_accum);

// The precision a pass of `precision` runs at on `gpu`: tf32 becomes fp32 on a GPU without a
// tf32 unit; every other precision is itself.
Precision precision_on(const GpuSpec& gpu, Precision precision);

// One pass of `flops` over `layers` layers at `precision` (validated GPU).
double pass_seconds(const GpuSpec& gpu, Precision precision, double flops, int layers);

// Where the passes' utilisation comes from, one word for the outputs (CSV, run.json, trace):
// "measured" (the workload's measured times), else the kind of its curve's source: "fitted"
// (a fit on published rows of this GPU), "public" (a published training figure of this GPU),
// "borrowed" (another GPU's figure, gpu_spec.h), "config" (given in the cluster config), or
// "unstated" for a source text of none of these kinds.
std::string utilization_source_kind(const ComputeTimes& times);
// The kind of a curve's source alone, as above without "measured".
std::string utilization_curve_kind(const UtilizationCurve& curve);

// One line for the output saying where the compute times come from: "compute: measured ..."
// with the measurement, or "compute: model ..." with the utilisation and its source.
// Throws as compute_times.
std::string compute_summary(const WorkloadSpec& workload, const GpuSpec& gpu, int batch_per_gpu,
                            int grad_accum);

}  // namespace compopt::net
