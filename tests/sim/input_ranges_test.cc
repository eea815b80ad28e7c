// The ranges of a scenario's measured inputs (sim/input_ranges.h): the band's rule by hand,
// the utilisation range chosen by the figure's source, the fitted range recomputed from the
// V100 fit, the network inputs' ranges by transport, and the band of a network-only
// prediction.

#include "sim/input_ranges.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "net_models/calibration_rows.h"
#include "net_models/cluster_presets.h"
#include "net_models/compute_fit.h"
#include "net_models/workload.h"
#include "sim/scenario.h"

namespace compopt::sim {
namespace {

using ::testing::HasSubstr;

const MeasuredInput& input(const std::string& name) {
  const auto& all = measured_inputs();
  return *std::find_if(all.begin(), all.end(),
                       [&](const MeasuredInput& m) { return m.name == name; });
}

StepConfig config_of(const std::string& cluster, const std::string& workload) {
  Scenario s;
  s.cluster = cluster;
  s.workload = workload;
  return resolve_scenario(s);
}

TEST(BandOf, RootSumSquareOnEachSideByHand) {
  // Deviations below 10: 2 and 0; above: 1 and 3 -> low 10 - 2, high 10 + sqrt(10).
  const Band b = band_of(10, {{8, 11}, {13, 10}});
  EXPECT_DOUBLE_EQ(b.low, 8);
  EXPECT_DOUBLE_EQ(b.high, 10 + std::sqrt(10.0));
  // Both ends on one side: only that side grows; a pinned input adds nothing.
  const Band one = band_of(10, {{12, 14}, {10, 10}});
  EXPECT_DOUBLE_EQ(one.low, 10);
  EXPECT_DOUBLE_EQ(one.high, 14);
  EXPECT_DOUBLE_EQ(band_of(5, {}).low, 5);
}

TEST(InputRanges, UtilisationRangeFollowsTheFiguresSource) {
  const auto range = [](const StepConfig& c) { return input("compute utilisation").range(c); };
  // V100, fp16 BERT-Large: the V100 fit.
  const FactorRange v100 = range(config_of("infiniband-v100-8", "bert-large-seq128"));
  EXPECT_DOUBLE_EQ(v100.low, 1 - 0.198);
  EXPECT_DOUBLE_EQ(v100.high, 1 + 0.198);
  EXPECT_THAT(v100.source, HasSubstr("fitted on published rows"));
  // H100 in bf16: one public report; H200: borrowed from the H100.
  const FactorRange h100 = range(config_of("dgx-h100", "gpt2-small"));
  EXPECT_DOUBLE_EQ(h100.high, 1.2);
  EXPECT_THAT(h100.source, HasSubstr("one public MFU report"));
  StepConfig h200 = config_of("dgx-h100", "gpt2-small");
  h200.cluster.gpu = net::gpu_preset("H200");
  EXPECT_DOUBLE_EQ(range(h200).low, 0.7);
  // A figure the config states, and one without any source.
  StepConfig stated = h200;
  stated.cluster.gpu.tensor_calibration = "the cluster config ([cluster.gpu])";
  EXPECT_DOUBLE_EQ(range(stated).high, 1.2);
  stated.cluster.gpu.tensor_calibration.clear();
  EXPECT_DOUBLE_EQ(range(stated).high, 1.3);
  // Measured passes: pinned.
  StepConfig measured = h200;
  measured.workload.measured_forward_s = 0.01;
  measured.workload.measured_backward_s = 0.02;
  measured.workload.measured_batch_per_gpu = 4;
  EXPECT_TRUE(range(measured).pinned());
}

// kFittedRange is the 80th-percentile absolute residual of the V100 fit: the 21st of its 26
// pass times (forward and backward-else of the 13 rows), sorted.
TEST(InputRanges, FittedRangeIsTheV100FitsResidual) {
  const net::WorkloadSpec w = net::workload_preset("bert-large-seq128");
  std::vector<net::PassObservation> obs;
  for (const net::ProfileRow& row : net::onebit_adam_profile_rows()) {
    const double b = row.batch_per_gpu, accum = row.grad_accum;
    obs.push_back({1.0 * w.layers, b * w.forward_flops_per_sample, row.forward_ms / accum / 1e3});
    obs.push_back({1.0 * w.layers, b * w.backward_flops(), row.backward_else_ms / accum / 1e3});
  }
  const net::GpuSpec v100 = net::gpu_preset("V100");
  std::vector<double> errors =
      net::fit_utilization(obs, v100.peak_flops(net::Precision::kFp16)).error_pct;
  for (double& e : errors) e = std::abs(e);
  std::sort(errors.begin(), errors.end());
  ASSERT_EQ(errors.size(), 26u);
  const size_t k = static_cast<size_t>(std::ceil(0.8 * errors.size()));  // 21
  EXPECT_NEAR(kFittedRange, errors[k - 1] / 100, 5e-4);
}

TEST(InputRanges, NetworkRangesFollowTheTransport) {
  const StepConfig eth = config_of("ethernet-v100-4", "bert-large-seq128");
  EXPECT_NEAR(input("network latency").range(eth).high, 34.2 / 18.6, 1e-12);
  EXPECT_NEAR(input("per-message cost").range(eth).low, 20.0 / 38, 1e-12);
  const StepConfig ib = config_of("infiniband-v100-8", "bert-large-seq128");
  EXPECT_DOUBLE_EQ(input("network latency").range(ib).low, 0.5);
  EXPECT_THAT(input("network latency").range(ib).source, HasSubstr("not measured over rdma"));
  EXPECT_TRUE(input("per-message cost").range(ib).pinned());
  EXPECT_DOUBLE_EQ(input("inter-node bandwidth").range(ib).low, 0.954);
  // Scaling moves the field by the factor and prints the new value.
  StepConfig scaled = eth;
  EXPECT_EQ(input("network latency").scale(scaled, 2), "100 us");
  EXPECT_DOUBLE_EQ(scaled.cluster.inter_node_latency_s, 100e-6);
}

// A prediction linear in the inter-node rate and in the latency: the band by hand.
TEST(InputRanges, NetworkBandOfAClusterPrediction) {
  const net::ClusterSpec ib = config_of("infiniband-v100-8", "bert-large-seq128").cluster;
  const auto predict = [](const net::ClusterSpec& c) {
    return 1.0 / c.inter_node_gbps + 1e3 * c.inter_node_latency_s;
  };
  const double t0 = predict(ib);
  const double bw_low = 1 / (ib.inter_node_gbps * 1.070),
               bw_high = 1 / (ib.inter_node_gbps * 0.954);
  const double lat = 1e3 * ib.inter_node_latency_s;
  const Band b = network_band(ib, t0, predict);
  EXPECT_NEAR(b.high - t0, std::hypot(bw_high - 1 / ib.inter_node_gbps, lat), 1e-12);
  EXPECT_NEAR(t0 - b.low, std::hypot(1 / ib.inter_node_gbps - bw_low, lat / 2), 1e-12);
}

}  // namespace
}  // namespace compopt::sim
