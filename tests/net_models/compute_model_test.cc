// The compute model: hand-derived pass times, the peak as a hard ceiling, and the V100 fit
// of the GPU presets reproduced from 1-bit Adam's Table 1.

#include "net_models/compute_model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>

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

}  // namespace
}  // namespace compopt::net
