// The compute model: hand-derived pass times, the peak as a hard ceiling, and the V100 fit
// of the GPU presets reproduced from 1-bit Adam's Table 1.

#include "net_models/compute_model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "core/util/error.h"
#include "net_models/calibration_rows.h"
#include "net_models/compute_fit.h"

namespace compopt::net {
namespace {

GpuSpec toy_gpu() {
  GpuSpec g;
  g.name = "toy";
  g.fp32_tflops = 10;
  g.fp16_tflops = 100;
  g.hbm_gb = 16;
  g.hbm_gbps = 1000;
  g.max_utilization = 0.5;
  g.layer_overhead_s = 1e-3;
  return g;
}

WorkloadSpec toy_workload() {
  WorkloadSpec w;
  w.name = "toy";
  w.parameters = 1'000'000'000;
  w.layers = 4;
  w.forward_flops_per_sample = 1e12;
  w.compute_precision = Precision::kFp16;
  w.step_bytes_per_param = 20;
  w.compress_bytes_per_element = 10;
  return w;
}

TEST(ComputeModel, TimesByHand) {
  // forward: 4 x 1 ms + 2 samples x 1e12 / (1e14 x 0.5) = 44 ms; backward 4 + 80 = 84 ms;
  // accumulation 3 triples both. step 1e9 x 20 B / 1e12 B/s = 20 ms; compress 10 ms.
  const ComputeTimes t = compute_times(toy_workload(), toy_gpu(), 2, 3);
  EXPECT_NEAR(t.forward_s, 3 * 0.044, 1e-12);
  EXPECT_NEAR(t.backward_s, 3 * 0.084, 1e-12);
  EXPECT_NEAR(t.step_s, 0.020, 1e-12);
  EXPECT_NEAR(t.compress_s, 0.010, 1e-12);
  EXPECT_NEAR(t.utilization, 6e12 / (0.128 * 1e14), 1e-12);
}

TEST(ComputeModel, NeverExceedsThePeak) {
  GpuSpec g = toy_gpu();
  g.layer_overhead_s = 0;
  g.max_utilization = 1;
  for (int batch : {1, 16, 1024}) {
    const ComputeTimes t = compute_times(toy_workload(), g, batch, 1);
    EXPECT_LE(t.utilization, 1.0 + 1e-12);
    EXPECT_GE(t.forward_s, batch * 1e12 / 1e14 - 1e-12);
  }
  g.max_utilization = 1.2;  // a spec implying more than the peak is refused
  try {
    compute_times(toy_workload(), g, 1, 1);
    ADD_FAILURE() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("max_utilization = 1.2"));
  }
}

TEST(ComputeModel, RefusesAPrecisionTheGpuLacks) {
  WorkloadSpec w = toy_workload();
  w.compute_precision = Precision::kFp8;
  EXPECT_THROW(compute_times(w, toy_gpu(), 1, 1), InvalidArgument);
  EXPECT_THROW(compute_times(toy_workload(), toy_gpu(), 0, 1), InvalidArgument);
}

TEST(ComputeModel, FitRecoversAKnownCurve) {
  GpuSpec g = toy_gpu();
  std::vector<PassObservation> obs;
  for (double flops : {1e11, 1e12, 5e12}) {
    obs.push_back({4, flops, pass_seconds(g, Precision::kFp16, flops, 4)});
    obs.push_back({8, flops, pass_seconds(g, Precision::kFp16, flops, 8)});
  }
  const UtilizationFit fit = fit_utilization(obs, 1e14);
  EXPECT_NEAR(fit.max_utilization, 0.5, 1e-9);
  EXPECT_NEAR(fit.layer_overhead_s, 1e-3, 1e-12);
  EXPECT_LT(fit.max_abs_error_pct(), 1e-6);
  // Data implying more than the peak is clamped to it.
  const UtilizationFit clamped = fit_utilization({{1, 1e12, 1e-3}, {1, 2e12, 1.001e-3}}, 1e14);
  EXPECT_DOUBLE_EQ(clamped.max_utilization, 1.0);
}

// The V100 preset holds the fit of the 13 rows of 1-bit Adam's Table 1 (forward and
// backward-else per micro-batch of BERT-Large seq 128 in fp16), and the errors are those
// docs/calibration.md records.
TEST(ComputeModel, V100PresetIsTheFitOfTheOneBitAdamProfile) {
  const WorkloadSpec w = workload_preset("bert-large-seq128");
  std::vector<PassObservation> obs;
  for (const ProfileRow& row : onebit_adam_profile_rows()) {
    const double b = row.batch_per_gpu, accum = row.grad_accum;
    obs.push_back({1.0 * w.layers, b * w.forward_flops_per_sample, row.forward_ms / accum / 1e3});
    obs.push_back({1.0 * w.layers, b * w.backward_flops(), row.backward_else_ms / accum / 1e3});
  }
  const GpuSpec v100 = gpu_preset("V100");
  const UtilizationFit fit = fit_utilization(obs, v100.peak_flops(Precision::kFp16));
  EXPECT_NEAR(v100.max_utilization, fit.max_utilization, 1e-4);
  EXPECT_NEAR(v100.layer_overhead_s, fit.layer_overhead_s, 1e-7);
  std::printf("V100 fit: max_utilization %.6f layer_overhead_s %.6e median %.2f%% max %.2f%%\n",
              fit.max_utilization, fit.layer_overhead_s, fit.median_abs_error_pct(),
              fit.max_abs_error_pct());
  EXPECT_NEAR(fit.median_abs_error_pct(), 7.4, 0.1);
  EXPECT_NEAR(fit.max_abs_error_pct(), 39.2, 0.1);
}

TEST(ComputeModel, TensorPrecisionsTakeTheirOwnCurve) {
  GpuSpec g = toy_gpu();
  g.tensor_max_utilization = 0.25;
  g.tensor_calibration = "tensor source";
  // fp16: 4 x 1 ms + 1e12 / (1e14 x 0.25) = 44 ms; fp32 keeps 0.5: 4 + 1e12 / 5e12 = 204 ms.
  const ComputeTimes fp16 = compute_times(toy_workload(), g, 1, 1);
  EXPECT_NEAR(fp16.forward_s, 0.044, 1e-12);
  EXPECT_EQ(fp16.curve.source, "tensor source");
  WorkloadSpec w = toy_workload();
  w.compute_precision = Precision::kFp32;
  const ComputeTimes fp32 = compute_times(w, g, 1, 1);
  EXPECT_NEAR(fp32.forward_s, 0.204, 1e-12);
  EXPECT_DOUBLE_EQ(fp32.curve.max_utilization, 0.5);
  g.tensor_max_utilization = 0;  // none: fp16 takes the one curve
  EXPECT_NEAR(compute_times(toy_workload(), g, 1, 1).forward_s, 0.024, 1e-12);
}

TEST(ComputeModel, Tf32ComputesFp32OnAGpuWithoutATf32Unit) {
  WorkloadSpec tf32 = toy_workload(), fp32 = toy_workload();
  tf32.compute_precision = Precision::kTf32;
  fp32.compute_precision = Precision::kFp32;
  const ComputeTimes a = compute_times(tf32, toy_gpu(), 2, 1);  // toy GPU: no tf32 unit
  EXPECT_EQ(a.precision, Precision::kFp32);
  EXPECT_DOUBLE_EQ(a.forward_s, compute_times(fp32, toy_gpu(), 2, 1).forward_s);
  EXPECT_THAT(compute_summary(tf32, toy_gpu(), 2, 1),
              ::testing::HasSubstr("in fp32 (tf32 asked: toy has no tf32 unit"));
  GpuSpec g = toy_gpu();
  g.tf32_tflops = 80;  // with the unit: tf32 at 80 TFLOP/s, 4 + 2e12 / 4e13 = 54 ms
  const ComputeTimes b = compute_times(tf32, g, 2, 1);
  EXPECT_EQ(b.precision, Precision::kTf32);
  EXPECT_NEAR(b.forward_s, 0.054, 1e-12);
}

TEST(ComputeModel, MeasuredTimesReplaceThePassesAndScaleWithTheBatch) {
  WorkloadSpec w = toy_workload();
  w.measured_forward_s = 0.010;
  w.measured_backward_s = 0.025;
  w.measured_batch_per_gpu = 4;
  const ComputeTimes same = compute_times(w, toy_gpu(), 4, 1);
  EXPECT_TRUE(same.measured);
  EXPECT_DOUBLE_EQ(same.forward_s, 0.010);
  EXPECT_DOUBLE_EQ(same.backward_s, 0.025);
  EXPECT_NEAR(same.step_s, 0.020, 1e-12);  // no measured step: the model's
  // batch 8 with accumulation 2: twice the batch, twice the micro-batches
  const ComputeTimes more = compute_times(w, toy_gpu(), 8, 2);
  EXPECT_NEAR(more.forward_s, 0.040, 1e-12);
  EXPECT_NEAR(more.backward_s, 0.100, 1e-12);
  // utilisation in model FLOPs: 2 x 8 x 3e12 / (0.14 s x 1e14)
  EXPECT_NEAR(more.utilization, 48e12 / (0.14 * 1e14), 1e-9);
  w.measured_step_s = 0.003;
  EXPECT_DOUBLE_EQ(compute_times(w, toy_gpu(), 8, 2).step_s, 0.003);
  const std::string summary = compute_summary(w, toy_gpu(), 8, 1);
  EXPECT_THAT(summary, ::testing::StartsWith("compute: measured, forward 10 ms + backward 25 ms "
                                             "at batch 4, scaled linearly to batch 8; step 3 ms"));
  EXPECT_THAT(compute_summary(toy_workload(), toy_gpu(), 8, 1),
              ::testing::StartsWith("compute: model, "));
}

TEST(ComputeModel, MeasuredTimesComeTogetherAndFinite) {
  const auto error = [](WorkloadSpec w) {
    try {
      w.validate();
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  WorkloadSpec w = toy_workload();
  w.measured_forward_s = 0.010;  // without backward and batch
  EXPECT_THAT(error(w), ::testing::HasSubstr("measured_backward_ms > 0 and "
                                             "measured_batch_per_gpu >= 1 together"));
  w.measured_backward_s = 0.02;
  w.measured_batch_per_gpu = 2;
  EXPECT_EQ(error(w), "no exception");
  w.measured_backward_s = std::nan("");
  EXPECT_THAT(error(w), ::testing::HasSubstr("measured_backward_ms = nan"));
  w.measured_backward_s = -1;
  EXPECT_THAT(error(w), ::testing::HasSubstr("measured_backward_ms = -1000"));
}

// Every GPU preset names where each of its utilisation figures comes from: fitted on the
// reference rows, a public source, or borrowed from another GPU (and then says so).
TEST(GpuPresets, EveryUtilisationNamesItsSource) {
  const auto sourced = [](const std::string& text) {
    return text.starts_with("fitted: ") || text.starts_with("public: ") ||
           text.starts_with("borrowed: ");
  };
  for (const std::string& name : gpu_registry().names()) {
    const GpuSpec g = gpu_preset(name);
    EXPECT_TRUE(sourced(g.calibration)) << name << ": " << g.calibration;
    if (g.bf16_tflops > 0) {  // every GPU with bf16 units has a tensor-core figure of its own
      EXPECT_GT(g.tensor_max_utilization, 0) << name;
      EXPECT_TRUE(sourced(g.tensor_calibration)) << name << ": " << g.tensor_calibration;
    }
  }
  // The issue this guards: H100's bf16 no longer runs on the A100's tf32 fit (0.1123).
  EXPECT_DOUBLE_EQ(gpu_preset("H100").curve(Precision::kBf16).max_utilization, 0.40);
  EXPECT_DOUBLE_EQ(gpu_preset("A100").curve(Precision::kTf32).max_utilization, 0.1123);
  EXPECT_DOUBLE_EQ(gpu_preset("A100").curve(Precision::kBf16).max_utilization, 0.33);
}

// GPT-1.3B at micro-batch 4 on an H100: the achieved utilisation lies below the curve's 0.40
// and above 0.30 (the per-layer overhead of 24 layers is small beside 6.3 TFLOP per pass),
// against 11.1% when H100 carried the A100's tf32 fit.
TEST(GpuPresets, Gpt13bOnH100RunsNearThePublishedBf16Utilisation) {
  const ComputeTimes t = compute_times(workload_preset("gpt-1.3b"), gpu_preset("H100"), 4, 1);
  EXPECT_GT(t.utilization, 0.30);
  EXPECT_LT(t.utilization, 0.40);
}

}  // namespace
}  // namespace compopt::net
