#include "net_models/calibration_rows.h"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "core/util/csv_table.h"
#include "core/util/error.h"
#include "net_models/published_tables.h"

namespace compopt::net {
namespace {

// The network column of 1-bit Adam's Table 1 -> the cluster preset of that cluster
// (data/published/clusters.csv).
constexpr std::array<std::pair<std::string_view, std::string_view>, 2> kProfileClusters = {{
    {"ethernet", "ethernet-v100-4"},
    {"infiniband", "infiniband-v100-8"},
}};

std::string cluster_of_network(const std::string& network, std::string_view source) {
  for (const auto& [name, preset] : kProfileClusters)
    if (name == network) return std::string(preset);
  throw InvalidArgument(
      fmt::format("{}: network '{}', expected ethernet or infiniband", source, network));
}

}  // namespace

std::vector<ProfileRow> parse_profile_rows(std::string_view csv, std::string_view source) {
  const CsvTable t(csv, source);
  std::vector<ProfileRow> rows;
  for (size_t r = 0; r < t.rows(); ++r)
    rows.push_back({cluster_of_network(t.text(r, "network"), source), t.integer(r, "nodes"),
                    t.integer(r, "gpus"), t.integer(r, "batch_per_gpu"), t.integer(r, "grad_accum"),
                    t.number(r, "forward_ms"), t.number(r, "backward_allreduce_ms"),
                    t.number(r, "backward_else_ms"), t.number(r, "step_ms"),
                    t.number(r, "allreduce_pct")});
  return rows;
}

std::vector<ThroughputRow> parse_throughput_rows(std::string_view csv, std::string_view source) {
  const CsvTable t(csv, source);
  std::vector<ThroughputRow> rows;
  for (size_t r = 0; r < t.rows(); ++r)
    rows.push_back({t.text(r, "workload"), t.text(r, "optimizer"), t.integer(r, "gpus"),
                    t.integer(r, "batch_per_gpu"), t.number(r, "throughput_samples_s")});
  return rows;
}

const std::vector<ProfileRow>& onebit_adam_profile_rows() {
  static const std::vector<ProfileRow> rows =
      parse_profile_rows(onebit_adam_profile_table().text, onebit_adam_profile_table().file);
  return rows;
}

const std::vector<ThroughputRow>& birder_single_node_rows() {
  static const std::vector<ThroughputRow> rows =
      parse_throughput_rows(birder_single_node_table().text, birder_single_node_table().file);
  return rows;
}

}  // namespace compopt::net
