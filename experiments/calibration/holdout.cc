#include "experiments/calibration/holdout.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "experiments/calibration/cluster_fit.h"
#include "net_models/cluster_presets.h"
#include "sim/collective_prediction.h"
#include "sim/public_checks.h"

namespace compopt::calibration {
namespace {

double calibrated_s(const net::ClusterSpec& fitted, const net::NcclTestsRow& row) {
  net::ClusterSpec c = sim::public_check_cluster(row);
  apply_fitted(fitted, c);
  return sim::predict_allreduce(c, row.bytes).seconds;
}

Measurement measurement_of(const net::NcclTestsRow& row) {
  const net::ClusterSpec own = sim::public_check_cluster(row);
  Measurement m{row.url,           row.case_name, "all_reduce",      row.nodes,
                row.gpus_per_node, row.bytes,     row.published_s(), nullptr};
  m.predict = [own, bytes = row.bytes](const net::ClusterSpec& fitted) {
    net::ClusterSpec c = own;
    apply_fitted(fitted, c);
    return sim::predict_allreduce(c, bytes).seconds;
  };
  return m;
}

// Whether a row of a thread calibrates, and the split in words: with several node counts, the
// next-to-largest one (and any 1-node rows, which set the GPU links) calibrates and every other
// node count is predicted; with one node count, the larger sizes are predicted from the
// smallest.
std::pair<std::vector<bool>, std::string> split(const std::vector<net::NcclTestsRow>& rows) {
  std::set<int> counts;
  for (const auto& r : rows) counts.insert(r.nodes);
  std::vector<bool> calibrates;
  if (counts.size() > 1) {
    const int below = *std::next(counts.rbegin());
    for (const auto& r : rows) calibrates.push_back(r.nodes == below || r.nodes == 1);
    std::vector<int> predicted;
    for (int n : counts)
      if (n != below && n != 1) predicted.push_back(n);
    return {calibrates, fmt::format("calibrated on {}{} nodes, predicts {} nodes", below,
                                    counts.contains(1) && below != 1 ? " (and 1)" : "",
                                    fmt::join(predicted, ", "))};
  }
  double smallest = rows.front().bytes;
  for (const auto& r : rows) smallest = std::min(smallest, r.bytes);
  for (const auto& r : rows) calibrates.push_back(r.bytes == smallest);
  return {calibrates,
          fmt::format("calibrated on {:.0f} MiB, predicts the larger sizes", smallest / (1 << 20))};
}

std::string fitted_words(const ClusterFit& fit) {
  std::string text;
  for (const FittedValue& v : fit.values)
    if (v.rows > 0) text += fmt::format("{}{} {:.4g}", text.empty() ? "" : ", ", v.name, v.value);
  return text.empty() ? "nothing fitted" : text;
}

ThreadHoldout holdout(const std::string& url, const std::vector<net::NcclTestsRow>& rows) {
  const auto [calibrates, words] = split(rows);
  std::vector<Measurement> part;
  for (size_t i = 0; i < rows.size(); ++i)
    if (calibrates[i]) part.push_back(measurement_of(rows[i]));
  const net::NcclTestsRow& first = rows[static_cast<size_t>(
      std::find(calibrates.begin(), calibrates.end(), true) - calibrates.begin())];
  const ClusterFit fit = fit_cluster(sim::public_check_cluster(first), part, "", "");
  ThreadHoldout out{url, words, fitted_words(fit), {}};
  for (size_t i = 0; i < rows.size(); ++i) {
    const net::NcclTestsRow& r = rows[i];
    HoldoutRow h{r.case_name,
                 calibrates[i],
                 r.published_s(),
                 sim::predict_public_check(r).predicted_s,
                 calibrated_s(fit.cluster, r),
                 0,
                 0};
    h.uncalibrated_error_pct = 100.0 * (h.uncalibrated_s / h.published_s - 1);
    h.calibrated_error_pct = 100.0 * (h.calibrated_s / h.published_s - 1);
    out.rows.push_back(h);
  }
  return out;
}

}  // namespace

std::vector<ThreadHoldout> holdout_threads(const std::vector<net::NcclTestsRow>& rows) {
  using Group = std::pair<std::string, int>;  // (thread, GPUs per node)
  std::vector<Group> order;
  std::map<Group, std::vector<net::NcclTestsRow>> groups;
  for (const auto& r : rows) {
    const Group g{r.url, r.gpus_per_node};
    if (!groups.contains(g)) order.push_back(g);
    groups[g].push_back(r);
  }
  std::vector<ThreadHoldout> out;
  for (const Group& g : order) {
    if (groups[g].size() < 2) continue;
    ThreadHoldout t = holdout(g.first, groups[g]);
    t.split = fmt::format("{} GPU(s) per node, {}", g.second, t.split);
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<PresetRecalibration> recalibrate_presets(const std::vector<net::ProfileRow>& rows) {
  std::vector<std::string> clusters;
  for (const auto& r : rows)
    if (std::find(clusters.begin(), clusters.end(), r.cluster) == clusters.end())
      clusters.push_back(r.cluster);
  std::vector<PresetRecalibration> out;
  for (const std::string& name : clusters) {
    const net::ClusterSpec preset = net::cluster_preset(name);
    const ClusterFit fit =
        fit_cluster(preset, table1_measurements(rows, preset, "onebit_adam_profile.csv"), "", "");
    for (const FittedValue& v : fit.values)
      out.push_back({name, v.name, v.value, v.base, v.rows, v.status});
  }
  return out;
}

}  // namespace compopt::calibration
