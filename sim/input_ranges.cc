#include "sim/input_ranges.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "net_models/bandwidth_spread.h"
#include "net_models/compute_model.h"
#include "net_models/transport_profile.h"

namespace compopt::sim {
namespace {

// How a GPU's utilisation figure was obtained (net::utilization_curve_kind: fitted, public,
// borrowed, or config for a [cluster.gpu] figure), and its range (docs/calibration.md,
// "Sensitivity ranges").
struct UtilizationKind {
  std::string_view kind;
  double range;
  const char* reason;
};
constexpr UtilizationKind kUtilizationKinds[] = {
    {"fitted", kFittedRange,
     "fitted on published rows: the V100 fit's 80th-percentile residual (the A100 fit's 3 rows "
     "for 2 parameters cannot measure its own error and take the same)"},
    {"public", kPublicReportRange,
     "one public MFU report, of another model and scale than this workload (assumption)"},
    {"borrowed", kBorrowedRange, "borrowed from another GPU or precision (assumption)"},
    {"config", kPublicReportRange,
     "stated in the scenario: one figure, as uncertain as one public report (assumption)"},
};
constexpr UtilizationKind kUnnamedUtilization = {
    "", kBorrowedRange, "the figure names no source (assumption, as for a borrowed one)"};

// Inter-node latency: the one-way time of a 64-byte TCP ping-pong measured over eight runs,
// 13.7 .. 34.2 us around its median 18.6 us (docs/calibration.md, "Transport profiles"), over
// the tcp transport; no measurement of any other transport: a factor 2 either way.
constexpr double kTcpLatencyLow = 13.7 / 18.6, kTcpLatencyHigh = 34.2 / 18.6;
constexpr double kOtherLatencyLow = 0.5, kOtherLatencyHigh = 2;
// Per-message cost: the tcp profile's 38 us measured 20 .. 44 us across its runs.
constexpr double kMessageCostLow = 20.0 / 38, kMessageCostHigh = 44.0 / 38;

std::string microseconds(double seconds) { return fmt::format("{:.3g} us", seconds * 1e6); }

constexpr const char* kOneNode = "pinned: one node, no inter-node link";

FactorRange inter_node_range(const StepConfig& c) {
  if (c.cluster.nodes == 1) return {1, 1, kOneNode};
  const net::LinkSpreads s = net::link_spreads(c.cluster);
  return {s.inter_node.low, s.inter_node.high, s.inter_node_source};
}

FactorRange intra_node_range(const StepConfig& c) {
  if (c.cluster.gpus_per_node == 1) return {1, 1, "pinned: one GPU per node, no GPU link"};
  const net::LinkSpreads s = net::link_spreads(c.cluster);
  return {s.intra_node.low, s.intra_node.high, s.intra_node_source};
}

std::string scale_inter_node(StepConfig& c, double factor) {
  c.cluster = net::with_scaled_bandwidth(c.cluster, factor, 1);
  return fmt::format("x{:.3g}", factor);
}

std::string scale_intra_node(StepConfig& c, double factor) {
  c.cluster = net::with_scaled_bandwidth(c.cluster, 1, factor);
  return fmt::format("x{:.3g}", factor);
}

FactorRange utilization_range(const StepConfig& c) {
  if (c.workload.measured())
    return {1, 1, "pinned: the workload's passes are measured, no utilisation enters them"};
  const net::UtilizationCurve curve =
      c.cluster.gpu.curve(net::precision_on(c.cluster.gpu, c.workload.compute_precision));
  const std::string curve_kind = net::utilization_curve_kind(curve);
  const auto* kind = std::find_if(std::begin(kUtilizationKinds), std::end(kUtilizationKinds),
                                  [&](const UtilizationKind& k) { return k.kind == curve_kind; });
  const UtilizationKind& k = kind != std::end(kUtilizationKinds) ? *kind : kUnnamedUtilization;
  return {1 - k.range, 1 + k.range, fmt::format("+-{:g}%: {}", 100 * k.range, k.reason)};
}

// Both of the GPU's figures, so the passes move whatever their precision; at most 1. The value
// shown is the one they run on.
std::string scale_utilization(StepConfig& c, double factor) {
  net::GpuSpec& gpu = c.cluster.gpu;
  gpu.max_utilization = std::min(1.0, gpu.max_utilization * factor);
  gpu.tensor_max_utilization = std::min(1.0, gpu.tensor_max_utilization * factor);
  return fmt::format(
      "{:.3g}", gpu.curve(net::precision_on(gpu, c.workload.compute_precision)).max_utilization);
}

FactorRange latency_range(const StepConfig& c) {
  if (c.cluster.nodes == 1) return {1, 1, kOneNode};
  if (!c.cluster.platform_file.empty())
    return {1, 1, "pinned: a platform file's links carry their own latencies"};
  const net::TransportProfile& t = c.cluster.inter_node_transport;
  if (net::transport_registry().get(t.name).profile.name == "tcp") {
    return {kTcpLatencyLow, kTcpLatencyHigh,
            "tcp: the measured TCP one-way time's spread, 13.7 .. 34.2 us around 18.6 us"};
  }
  return {kOtherLatencyLow, kOtherLatencyHigh,
          fmt::format("not measured over {}: a factor 2 either way (assumption)", t.name)};
}

std::string scale_latency(StepConfig& c, double factor) {
  c.cluster.inter_node_latency_s *= factor;
  return microseconds(c.cluster.inter_node_latency_s);
}

FactorRange message_cost_range(const StepConfig& c) {
  if (c.cluster.nodes == 1) return {1, 1, kOneNode};
  if (c.cluster.inter_node_transport.message_overhead_s == 0)
    return {1, 1, "pinned: the transport charges no per-message cost"};
  return {kMessageCostLow, kMessageCostHigh,
          "the tcp measurement's run-to-run spread, 20 .. 44 us around 38 us"};
}

std::string scale_message_cost(StepConfig& c, double factor) {
  c.cluster.inter_node_transport.message_overhead_s *= factor;
  return microseconds(c.cluster.inter_node_transport.message_overhead_s);
}

}  // namespace

const std::vector<MeasuredInput>& measured_inputs() {
  static const std::vector<MeasuredInput> inputs = {
      {"inter-node bandwidth", "every inter-node link's bandwidth x the spread factor", true,
       inter_node_range, scale_inter_node},
      {"intra-node bandwidth", "every GPU link's bandwidth x the spread factor", true,
       intra_node_range, scale_intra_node},
      {"compute utilisation", "the GPU's max_utilization and tensor_max_utilization", false,
       utilization_range, scale_utilization},
      {"network latency", "the cluster's inter_node_latency_s", true, latency_range, scale_latency},
      {"per-message cost", "the inter-node transport's message_overhead_s", true,
       message_cost_range, scale_message_cost},
  };
  return inputs;
}

Band band_of(double expected, const std::vector<std::pair<double, double>>& ends) {
  double below = 0, above = 0;  // sums of squared deviations
  for (const auto& [a, b] : ends) {
    const double shortfall = std::max(0.0, expected - std::min(a, b));
    const double excess = std::max(0.0, std::max(a, b) - expected);
    below += shortfall * shortfall;
    above += excess * excess;
  }
  return {expected - std::sqrt(below), expected + std::sqrt(above)};
}

Band network_band(const net::ClusterSpec& cluster, double expected,
                  const std::function<double(const net::ClusterSpec&)>& predict) {
  StepConfig config;
  config.cluster = cluster;
  std::vector<std::pair<double, double>> ends;
  for (const MeasuredInput& input : measured_inputs()) {
    const FactorRange range = input.range(config);
    if (!input.network || range.pinned()) continue;
    StepConfig low = config, high = config;
    input.scale(low, range.low);
    input.scale(high, range.high);
    ends.emplace_back(predict(low.cluster), predict(high.cluster));
  }
  return band_of(expected, ends);
}

}  // namespace compopt::sim
