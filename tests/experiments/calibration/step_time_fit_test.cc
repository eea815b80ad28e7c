// The compute side of a calibration (experiments/calibration/step_time_fit.h): a step time the
// simulator gave at a known max_utilization is fitted back to it; steps outside what the GPU
// can explain stop at a bound and say so.

#include "experiments/calibration/step_time_fit.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "net_models/cluster_presets.h"
#include "sim/scenario.h"
#include "tests/support/invalid_argument_message.h"

namespace compopt::calibration {
namespace {

using ::testing::HasSubstr;

double step_s(const net::ClusterSpec& c, const StepTimeMeasurement& m) {
  sim::Scenario s;
  s.cluster_spec = net::with_gpus(c, m.gpus);
  s.cluster = c.name;
  s.workload = m.workload;
  s.batch_per_gpu = m.batch_per_gpu;
  return sim::simulate_step(sim::resolve_scenario(s)).front().step_time_s;
}

TEST(StepTimeFit, RecoversAKnownUtilization) {
  net::ClusterSpec truth = net::cluster_preset("infiniband-v100-8");
  truth.gpu.max_utilization = 0.37;
  StepTimeMeasurement m{"bert-large-seq128", 16, 16, 0};
  m.seconds = step_s(truth, m);
  net::ClusterSpec c = net::cluster_preset("infiniband-v100-8");
  const StepTimeFit fit = fit_step_time(c, m);
  EXPECT_EQ(fit.status, "fitted");
  EXPECT_NEAR(fit.max_utilization, 0.37, 0.01 * 0.37);
  EXPECT_EQ(c.gpu.max_utilization, fit.max_utilization);
  EXPECT_NEAR(fit.predicted_after_s, m.seconds, 1e-3 * m.seconds);
}

TEST(StepTimeFit, StopsAtItsBoundsAndRefusesBadFigures) {
  net::ClusterSpec c = net::cluster_preset("infiniband-v100-8");
  const StepTimeFit fast = fit_step_time(c, {"bert-large-seq128", 16, 16, 1e-6});
  EXPECT_EQ(fast.max_utilization, 1);
  EXPECT_THAT(fast.status, HasSubstr("at its bound 1"));
  EXPECT_THAT(testing_support::invalid_argument_message([&] {
                fit_step_time(c, {"bert-large-seq128", 16, 0, 0.5});
              }),
              HasSubstr("--batch 0"));
}

}  // namespace
}  // namespace compopt::calibration
