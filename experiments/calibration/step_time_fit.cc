#include "experiments/calibration/step_time_fit.h"

#include <fmt/format.h>

#include <cmath>

#include "core/util/error.h"
#include "net_models/compute_model.h"
#include "sim/scenario.h"

namespace compopt::calibration {
namespace {

constexpr double kLowest = 0.01;
constexpr int kBisections = 50;

double simulated_step_s(const net::ClusterSpec& cluster, const StepTimeMeasurement& m) {
  sim::Scenario s;
  s.cluster_spec = net::with_gpus(cluster, m.gpus);
  s.cluster = cluster.name;
  s.workload = m.workload;
  s.batch_per_gpu = m.batch_per_gpu;
  s.optimizer = "adam";
  return sim::simulate_step(sim::resolve_scenario(s)).front().step_time_s;
}

}  // namespace

StepTimeFit fit_step_time(net::ClusterSpec& cluster, const StepTimeMeasurement& m) {
  if (!(m.seconds > 0) || m.batch_per_gpu < 1 || m.gpus < 1)
    throw InvalidArgument(
        fmt::format("--step-time {} s, --batch {}, --gpus {}: expected a time > 0 and counts >= 1",
                    m.seconds, m.batch_per_gpu, m.gpus));
  StepTimeFit fit;
  const net::Precision precision =
      net::precision_on(cluster.gpu, net::workload_preset(m.workload).compute_precision);
  fit.base = cluster.gpu.curve(precision).max_utilization;
  // The fitted figure is the GPU's for every precision: the preset's fp16/bf16/fp8 figure
  // would otherwise keep the passes of a half-precision workload off it.
  cluster.gpu.tensor_max_utilization = 0;
  fit.predicted_before_s = simulated_step_s(cluster, m);
  const auto at = [&](double u) {
    cluster.gpu.max_utilization = u;
    return simulated_step_s(cluster, m);
  };
  if (at(1.0) > m.seconds) {
    fit.status = "at its bound 1: even the GPU's peak gives a slower step than measured";
  } else if (at(kLowest) < m.seconds) {
    fit.status = fmt::format(
        "at its bound {}: the step is slower than compute at {} of the "
        "peak explains (check the workload and batch)",
        kLowest, kLowest);
  } else {
    double lo = std::log(kLowest), hi = 0;  // step(lo) >= measured >= step(hi)
    for (int i = 0; i < kBisections; ++i) {
      const double mid = (lo + hi) / 2;
      (at(std::exp(mid)) > m.seconds ? lo : hi) = mid;
    }
    cluster.gpu.max_utilization = std::exp((lo + hi) / 2);
    fit.status = "fitted";
  }
  fit.max_utilization = cluster.gpu.max_utilization;
  fit.predicted_after_s = simulated_step_s(cluster, m);
  return fit;
}

}  // namespace compopt::calibration
