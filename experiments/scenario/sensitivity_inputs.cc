#include "experiments/scenario/sensitivity_inputs.h"

#include <fmt/format.h>

#include <algorithm>

#include "net_models/bandwidth_spread.h"
#include "net_models/compute_model.h"

namespace compopt::cli {
namespace {

// Compute utilisation: the GPU preset's max_utilization x 0.75 .. x 1.25 (at most 1), an
// assumption (docs/calibration.md, "Sensitivity ranges"): the presets' figures are fits on
// three or thirteen rows or one public run each, and a run's own MFU replaces them.
constexpr double kUtilizationLow = 0.75, kUtilizationHigh = 1.25;
// Inter-node latency: the InfiniBand and the Ethernet presets' figures (docs/calibration.md).
constexpr double kLatencyLowS = 2e-6, kLatencyHighS = 50e-6;
// Per-message software cost: the rdma profile's (no figure: 0) and the tcp profile's
// measured one (net_models/transport_profile.cc).
constexpr double kMessageCostLowS = 0, kMessageCostHighS = 38e-6;
// Buckets of an overlapped stage: the whole gradient in one, and 32 equal buckets.
constexpr int kBucketsLow = 1, kBucketsHigh = 32;
// Optimizer step bytes per parameter: a fused fp32 Adam kernel reads weight, gradient, m and
// v and writes weight, m and v once (7 x 4 B); the measured unfused step (docs/calibration.md).
constexpr double kFusedStepBytes = 28, kUnfusedStepBytes = 178;

bool low(InputEnd end) { return end == InputEnd::kLow; }

std::string microseconds(double seconds) { return fmt::format("{:.3g} us", seconds * 1e6); }

std::string scale_inter_node(sim::StepConfig& c, InputEnd end) {
  const net::BandwidthSpread spread = net::link_spreads(c.cluster).inter_node;
  const double factor = low(end) ? spread.low : spread.high;
  c.cluster = net::with_scaled_bandwidth(c.cluster, factor, 1);
  return fmt::format("x{:.3g}", factor);
}

std::string scale_intra_node(sim::StepConfig& c, InputEnd end) {
  const net::BandwidthSpread spread = net::link_spreads(c.cluster).intra_node;
  const double factor = low(end) ? spread.low : spread.high;
  c.cluster = net::with_scaled_bandwidth(c.cluster, 1, factor);
  return fmt::format("x{:.3g}", factor);
}

// Both of the GPU's figures (the fp16/bf16/fp8 one where it has one), so the workload's passes
// move whatever their precision; the value shown is the one they run on.
std::string scale_utilization(sim::StepConfig& c, InputEnd end) {
  net::GpuSpec& gpu = c.cluster.gpu;
  const double factor = low(end) ? kUtilizationLow : kUtilizationHigh;
  gpu.max_utilization = std::min(1.0, gpu.max_utilization * factor);
  gpu.tensor_max_utilization = std::min(1.0, gpu.tensor_max_utilization * factor);
  return fmt::format(
      "{:.3g}", gpu.curve(net::precision_on(gpu, c.workload.compute_precision)).max_utilization);
}

std::string set_latency(sim::StepConfig& c, InputEnd end) {
  c.cluster.inter_node_latency_s = low(end) ? kLatencyLowS : kLatencyHighS;
  return microseconds(c.cluster.inter_node_latency_s);
}

std::string set_message_cost(sim::StepConfig& c, InputEnd end) {
  c.cluster.inter_node_transport.message_overhead_s =
      low(end) ? kMessageCostLowS : kMessageCostHighS;
  return microseconds(c.cluster.inter_node_transport.message_overhead_s);
}

std::string set_buckets(sim::StepConfig& c, InputEnd end) {
  c.buckets = low(end) ? kBucketsLow : kBucketsHigh;
  return fmt::format("{}", c.buckets);
}

std::string set_algorithm(sim::StepConfig& c, InputEnd end) {
  c.cluster.allreduce_algorithm = low(end) ? "ring" : "tree";
  return c.cluster.allreduce_algorithm;
}

std::string set_overlap(sim::StepConfig& c, InputEnd end) {
  c.overlap = low(end) ? sim::OverlapMode::kOff : sim::OverlapMode::kOn;
  return sim::overlap_mode_name(c.overlap);
}

std::string set_step_bytes(sim::StepConfig& c, InputEnd end) {
  c.workload.step_bytes_per_param = low(end) ? kFusedStepBytes : kUnfusedStepBytes;
  c.workload.step_bytes_stated = true;  // else the implementation profile's figure replaces it
  return fmt::format("{:g} B/param", c.workload.step_bytes_per_param);
}

}  // namespace

const std::vector<UncertainInput>& uncertain_inputs() {
  static const std::vector<UncertainInput> inputs = {
      {"inter-node bandwidth", "every inter-node link's bandwidth x the spread factor",
       "the cluster's inter-node spread factors (docs/calibration.md, Spread)", scale_inter_node},
      {"intra-node bandwidth", "every GPU link's bandwidth x the spread factor",
       "the cluster's intra-node spread factors (docs/calibration.md, Spread)", scale_intra_node},
      {"compute utilisation", "the GPU's max_utilization",
       "assumption: the preset's x0.75 .. x1.25, at most 1 (docs/calibration.md)",
       scale_utilization},
      {"network latency", "the cluster's inter_node_latency_s",
       "InfiniBand and Ethernet preset latencies, 2 .. 50 us (docs/calibration.md)", set_latency},
      {"per-message cost", "the inter-node transport's message_overhead_s",
       "rdma (none known: 0) .. tcp (38 us measured) transport profiles (docs/calibration.md)",
       set_message_cost},
      {"buckets", "the buckets of an overlapped stage",
       "assumption: 1 bucket .. 32 buckets (as given: DDP's 25 MB buckets or one, whichever "
       "exposes less)",
       set_buckets},
      {"allreduce algorithm", "the cluster's allreduce_algorithm",
       "the two algorithms NCCL_ALGO picks from: ring .. tree (docs/simulator.md)", set_algorithm},
      {"overlap", "whether every stage overlaps backward", "overlap off .. on (docs/simulator.md)",
       set_overlap},
      {"optimizer step kernel", "the workload's step_bytes_per_param",
       "fused Adam 28 B/param (counted) .. unfused 178 B/param (measured, docs/calibration.md)",
       set_step_bytes},
  };
  return inputs;
}

}  // namespace compopt::cli
