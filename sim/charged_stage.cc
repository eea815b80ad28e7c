#include "sim/charged_stage.h"

#include <algorithm>
#include <cmath>

#include "net_models/compression_cost.h"

namespace compopt::sim {

namespace {

// Elements of a rank-r factor pair per element of the n x n matrix it stands for: 2r/n
// (PowerSGD's P and Q), the workload's tensors taken as square; never above the matrix.
double low_rank_scale(int rank, const net::WorkloadSpec& w) {
  const double side = std::sqrt(static_cast<double>(w.parameters) / std::max(1, w.tensors));
  return std::min(1.0, 2.0 * rank / side);
}

// What a step of the stage is charged (StageSpec's period, wire_fraction, low_rank, pattern).
ChargedStage charged_stage(const StageSpec& s, const net::WorkloadSpec& w, int gpus) {
  ChargedStage out;
  out.name = s.name;
  out.scheme = scheme_of(s.pattern);
  out.compressor = s.compressor;
  out.overlap = s.overlap;
  out.step_bytes_ratio = s.step_bytes_ratio;
  out.vector_scale = s.wire_fraction * (s.low_rank > 0 ? low_rank_scale(s.low_rank, w) : 1.0);
  // An uncompressed message's fraction is of fp32 bytes: in the workload's wire format its
  // elements are 4 / wire_bytes as many.
  const bool uncompressed = s.pattern == CommPattern::kRing || s.pattern == CommPattern::kAllGather;
  if (uncompressed && s.wire_fraction != 1.0) out.vector_scale *= 4.0 / w.wire_bytes();
  out.charge_scale = 1.0 / s.period;
  out.overlap_steps = s.overlap_steps;
  out.charge_note = stage_volume_text(s);
  if (s.pattern == CommPattern::kAllGather) {
    // A ring all-gather of every rank's message is the gather half of a ring allreduce of all
    // of them: same rounds, half the time and traffic.
    out.vector_scale *= gpus;
    out.charge_scale *= 0.5;
    out.ring_only = true;
    out.charge_note = "all-gather" + (out.charge_note.empty() ? "" : "; " + out.charge_note);
  }
  return out;
}

}  // namespace

std::vector<ChargedStage> charged_stages(std::string_view optimizer, const net::WorkloadSpec& w,
                                         int gpus) {
  std::vector<ChargedStage> out;
  for (const StageSpec& s : optimizer_registry().get(optimizer).stages)
    out.push_back(charged_stage(s, w, gpus));
  return out;
}

double compression_scale(const ChargedStage& stage, const net::ClusterSpec& cluster) {
  switch (stage.scheme) {
    case CommScheme::kRing:
      return 0.0;
    case CommScheme::kCompressedFlat:
      return net::relative_compression_bytes(stage.compressor, cluster.gpus(), 1.0);
    case CommScheme::kCompressedHierarchical:
      return net::relative_compression_bytes(stage.compressor, cluster.nodes,
                                             1.0 / cluster.gpus_per_node);
  }
  return 0.0;
}

ChargedStage parameter_gather_stage() {
  ChargedStage out;
  out.name = "parameter_all_gather";
  out.ring_only = true;
  out.charge_scale = 0.5;
  return out;
}

}  // namespace compopt::sim
