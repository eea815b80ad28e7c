#include "experiments/scenario/sensitivity_inputs.h"

#include <fmt/format.h>

#include <utility>

#include "sim/input_ranges.h"

namespace compopt::cli {
namespace {

// Buckets of an overlapped stage: the whole gradient in one, and 32 equal buckets.
constexpr int kBucketsLow = 1, kBucketsHigh = 32;
// Optimizer step bytes per parameter: a fused fp32 Adam kernel reads weight, gradient, m and
// v and writes weight, m and v once (7 x 4 B); the measured unfused step (docs/calibration.md).
constexpr double kFusedStepBytes = 28, kUnfusedStepBytes = 178;

bool low(InputEnd end) { return end == InputEnd::kLow; }

// A measured input of sim/input_ranges.h at one end of its range in `config`.
UncertainInput measured(const sim::MeasuredInput& input) {
  return {input.name, input.changes, true, [&input](sim::StepConfig& c, InputEnd end) {
            const sim::FactorRange range = input.range(c);
            return InputSetting{input.scale(c, low(end) ? range.low : range.high), range.source};
          }};
}

// A choice's setting: its value and the range's source.
using ChoiceSetter = std::string (*)(sim::StepConfig&, InputEnd);
UncertainInput choice(std::string name, std::string changes, std::string source, ChoiceSetter set) {
  return {std::move(name), std::move(changes), false,
          [source = std::move(source), set](sim::StepConfig& c, InputEnd end) {
            return InputSetting{set(c, end), source};
          }};
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

// The compressed allreduce's collectives: DeepSpeed's MPI backend, whose blocking Allgathers
// pay every hop at the slowest hop's latency, .. torch.distributed on NCCL, peers in flight and
// pipelined rings (sim/framework_collectives.h).
std::string set_collectives(sim::StepConfig& c, InputEnd end) {
  c.compressed_collectives = low(end) ? "deepspeed-mpi" : "torch-nccl";
  return c.compressed_collectives;
}

}  // namespace

const std::vector<UncertainInput>& uncertain_inputs() {
  static const std::vector<UncertainInput> inputs = [] {
    std::vector<UncertainInput> all;
    for (const sim::MeasuredInput& input : sim::measured_inputs()) all.push_back(measured(input));
    all.push_back(choice("buckets", "the buckets of an overlapped stage",
                         "choice: 1 bucket .. 32 buckets (the scenario's own: --buckets or its "
                         "implementation profile's)",
                         set_buckets));
    all.push_back(choice("allreduce algorithm", "the cluster's allreduce_algorithm",
                         "choice: the two algorithms NCCL_ALGO picks from, ring .. tree "
                         "(docs/simulator.md)",
                         set_algorithm));
    all.push_back(choice("overlap", "whether every stage overlaps backward",
                         "choice: overlap off .. on (docs/simulator.md)", set_overlap));
    all.push_back(choice("optimizer step kernel", "the workload's step_bytes_per_param",
                         "choice: fused Adam 28 B/param (counted) .. unfused 178 B/param "
                         "(measured, docs/calibration.md)",
                         set_step_bytes));
    all.push_back(
        choice("compressed collectives", "how the compressed allreduce's collectives are issued",
               "choice: DeepSpeed's MPI backend, blocking Allgathers .. torch.distributed "
               "on NCCL, peers in flight and pipelined rings (docs/simulator.md)",
               set_collectives));
    return all;
  }();
  return inputs;
}

}  // namespace compopt::cli
