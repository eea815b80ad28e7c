// The A100 preset's utilisation curve is the fit of Birder's single-node baseline rows
// (momentum SGD on ResNet-50 at batch 32 and 128, BertAdam on BERT-Base at batch 3): each
// row's step time (8 GPUs x batch / throughput) minus the simulated NVLink allreduce and the
// optimizer step is the forward + backward compute. docs/calibration.md records these errors.

#include <gtest/gtest.h>

#include <cstdio>

#include "net_models/calibration_rows.h"
#include "net_models/compute_fit.h"
#include "net_models/compute_model.h"
#include "sim/scenario.h"

namespace compopt::sim {
namespace {

TEST(ComputeCalibration, A100PresetIsTheFitOfBirdersSingleNodeBaselines) {
  std::vector<net::PassObservation> obs;
  for (const net::ThroughputRow& row : net::birder_single_node_rows()) {
    if (row.optimizer != "sgdm" && row.optimizer != "bertadam") continue;
    Scenario s;
    s.workload = row.workload;
    s.cluster = "ethernet-a100-8";
    s.optimizer = row.optimizer;
    s.gpus = row.gpus;
    s.batch_per_gpu = row.batch_per_gpu;
    // The preset was fitted with the whole allreduce exposed and the 2020 DeepSpeed step
    // (178 B/param): the deepspeed-2020 profile.
    s.implementation = "deepspeed-2020";
    const StepConfig config = resolve_scenario(s);
    const StageTiming t = simulate_step(config).front();
    const double step = row.gpus * row.batch_per_gpu / row.throughput_samples_s;
    const net::WorkloadSpec& w = config.workload;
    obs.push_back({2.0 * w.layers,
                   row.batch_per_gpu * (w.forward_flops_per_sample + w.backward_flops()),
                   step - t.comm_s - t.step_s});
  }
  ASSERT_EQ(obs.size(), 3u);
  const net::GpuSpec a100 = net::gpu_preset("A100-80GB");
  const net::UtilizationFit fit = net::fit_utilization(obs, a100.peak_flops(net::Precision::kTf32));
  std::printf("A100 fit: max_utilization %.6f layer_overhead_s %.6e errors %.2f %.2f %.2f %%\n",
              fit.max_utilization, fit.layer_overhead_s, fit.error_pct[0], fit.error_pct[1],
              fit.error_pct[2]);
  EXPECT_NEAR(a100.max_utilization, fit.max_utilization, 1e-4);
  EXPECT_NEAR(a100.layer_overhead_s, fit.layer_overhead_s, 1e-7);
  EXPECT_LT(fit.max_abs_error_pct(), 7.0);
}

}  // namespace
}  // namespace compopt::sim
