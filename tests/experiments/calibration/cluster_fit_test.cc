// The cluster fit (experiments/calibration/cluster_fit.h): rows the simulator itself timed on
// a cluster of known parameters give those parameters back within 2%; a parameter without
// rows keeps its value and says why; 1-bit Adam's Table 1 through this fit gives the presets'
// calibrated efficiencies (net_models/cluster_presets.cc, fitted by sim/network_fit.h).

#include "experiments/calibration/cluster_fit.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "net_models/calibration_rows.h"
#include "net_models/cluster_presets.h"
#include "sim/collective_prediction.h"
#include "sim/public_checks.h"
#include "tests/support/invalid_argument_message.h"

namespace compopt::calibration {
namespace {

using ::testing::HasSubstr;

// A 2-GPU-per-node cluster of 100 Gbit/s RDMA NICs with its four fitted figures at their
// nominal values, as a user would describe it before calibration.
net::ClusterSpec nominal() {
  net::ClusterSpec c = net::cluster_preset("infiniband-v100-8");
  c.name = "synthetic";
  c.gpus_per_node = 2;
  c.inter_node_efficiency = 1;
  c.intra_node_efficiency = 1;
  c.inter_node_latency_s = 2e-6;
  c.intra_node_latency_s = 2e-6;
  c.allreduce_algorithm = "ring";
  return c;
}

// The cluster the "measurements" come from.
net::ClusterSpec truth() {
  net::ClusterSpec c = nominal();
  c.inter_node_efficiency = 0.55;
  c.inter_node_latency_s = 9e-6;
  c.intra_node_efficiency = 0.8;
  c.intra_node_latency_s = 4e-6;
  return c;
}

// nccl-tests-like rows, 8 B .. 1 GiB by x16, timed by the simulator on `truth` at `nodes`.
std::vector<Measurement> rows_of(const net::ClusterSpec& truth, int nodes, double largest) {
  std::vector<Measurement> rows;
  for (double bytes = 8; bytes <= largest; bytes *= 16) {
    Measurement m{fmt::format("n{}.log", nodes), "", "all_reduce", nodes, 2, bytes, 0, nullptr};
    m.predict = [bytes](const net::ClusterSpec& c) {
      return sim::predict_allreduce(c, bytes).seconds;
    };
    m.seconds = predict_on(truth, m);
    rows.push_back(m);
  }
  return rows;
}

const FittedValue& value(const ClusterFit& fit, const std::string& name) {
  for (const FittedValue& v : fit.values)
    if (v.name == name) return v;
  throw std::runtime_error("no " + name);
}

TEST(ClusterFit, RecoversKnownParametersWithinTwoPercent) {
  std::vector<Measurement> rows = rows_of(truth(), 1, 1 << 30);
  for (int nodes : {2, 4})
    for (const Measurement& m : rows_of(truth(), nodes, 1 << 30)) rows.push_back(m);
  const ClusterFit fit = fit_cluster(nominal(), rows, "", "");
  for (const char* name : {"inter_node_efficiency", "inter_node_latency_s", "intra_node_efficiency",
                           "intra_node_latency_s"}) {
    const FittedValue& v = value(fit, name);
    EXPECT_EQ(v.status, "fitted") << name;
    EXPECT_GT(v.rows, 0) << name;
  }
  EXPECT_NEAR(value(fit, "inter_node_efficiency").value, 0.55, 0.02 * 0.55);
  EXPECT_NEAR(value(fit, "intra_node_efficiency").value, 0.8, 0.02 * 0.8);
  EXPECT_NEAR(value(fit, "inter_node_latency_s").value, 9e-6, 0.02 * 9e-6);
  EXPECT_NEAR(value(fit, "intra_node_latency_s").value, 4e-6, 0.02 * 4e-6);
  for (const Residual& r : fit.residuals) EXPECT_LT(std::abs(r.calibrated_error_pct), 2.0);
}

TEST(ClusterFit, KeepsWhatTheRowsCannotTellAndSaysWhy) {
  // Two nodes only, sizes up to 512 B: latency-bound, no bandwidth, no 1-node rows.
  const ClusterFit fit = fit_cluster(nominal(), rows_of(truth(), 2, 512), "2.18.3", "tree");
  const FittedValue& rate = value(fit, "inter_node_efficiency");
  EXPECT_EQ(rate.rows, 0);
  EXPECT_EQ(rate.value, 1);
  EXPECT_THAT(rate.status, HasSubstr("sizes too small to see bandwidth"));
  EXPECT_THAT(value(fit, "intra_node_efficiency").status, HasSubstr("no 1-node allreduce rows"));
  EXPECT_EQ(fit.cluster.nccl_version, "2.18.3");
  EXPECT_EQ(fit.cluster.allreduce_algorithm, "tree");
  bool one_count = false;
  for (const std::string& note : fit.notes) one_count |= note.find("one multi-node count") == 0;
  EXPECT_TRUE(one_count);
}

TEST(ClusterFit, RefusesInputsWithoutAnAllreduce) {
  Measurement gather{"g.log", "g.log line 1", "all_gather", 2, 2, 1024, 1e-4, nullptr};
  EXPECT_THAT(
      testing_support::invalid_argument_message([&] { fit_cluster(nominal(), {gather}, "", ""); }),
      HasSubstr("no allreduce row among the inputs"));
}

// The presets hold the Table-1 fit (sim/network_fit.h); the same rows through this fit give
// the same efficiencies.
TEST(ClusterFit, TableOneReproducesThePresetsFit) {
  for (const char* name : {"ethernet-v100-4", "infiniband-v100-8"}) {
    const net::ClusterSpec preset = net::cluster_preset(name);
    const std::vector<Measurement> rows =
        table1_measurements(net::onebit_adam_profile_rows(), preset, "table1");
    ASSERT_FALSE(rows.empty());
    const ClusterFit fit = fit_cluster(preset, rows, "", "");
    const FittedValue& inter = value(fit, "inter_node_efficiency");
    EXPECT_GT(inter.rows, 0) << name;
    EXPECT_NEAR(inter.value, preset.inter_node_efficiency, 1e-3 * preset.inter_node_efficiency)
        << name;
    const FittedValue& intra = value(fit, "intra_node_efficiency");
    EXPECT_NEAR(intra.value, preset.intra_node_efficiency, 1e-3 * preset.intra_node_efficiency)
        << name;
  }
}

}  // namespace
}  // namespace compopt::calibration
