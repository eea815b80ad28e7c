#include "sim/network_fit.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "core/util/error.h"
#include "net_models/cluster_presets.h"
#include "sim/input_ranges.h"
#include "sim/scenario.h"

namespace compopt::sim {
namespace {

using net::ClusterSpec;
using net::ProfileRow;

// The presets whose link parameters come from the published rows.
constexpr std::array<const char*, 2> kFittedClusters = {"ethernet-v100-4", "infiniband-v100-8"};
constexpr int kMaxIterations = 50;
constexpr double kTolerance = 1e-6;  // on the geometric mean of predicted / published

// What a parameter without rows takes, and why; `fit` holds the clusters fitted so far.
using Fallback = std::pair<double, std::string>;

Fallback intra_fallback(const NetworkFit& fit, const ClusterSpec& spec) {
  for (const FittedParameter& other : fit.parameters) {
    if (other.name == "intra_node_efficiency" && other.cluster != spec.name &&
        other.fallback.empty())
      return {other.value, fmt::format("no 1-node row: {}'s fit {:.4f}, the only other GPU-link "
                                       "measurement",
                                       other.cluster, other.value)};
  }
  return {1.0, "no 1-node row on any cluster: the nominal GPU link"};
}

Fallback inter_fallback(const NetworkFit&, const ClusterSpec&) {
  return {1.0, "no multi-node row: the nominal NIC (the clusters' fabrics differ)"};
}

// One free parameter, an efficiency: how to read and set it, which rows it governs and what
// it takes without rows. Its search starts from the nominal link (efficiency 1).
struct Parameter {
  const char* name;
  double (*get)(const ClusterSpec&);
  void (*set)(ClusterSpec&, double);
  bool (*governs)(const ProfileRow&);
  Fallback (*fallback)(const NetworkFit&, const ClusterSpec&);
};

const std::vector<Parameter>& parameters() {
  static const std::vector<Parameter> table = {
      {"intra_node_efficiency", [](const ClusterSpec& c) { return c.intra_node_efficiency; },
       [](ClusterSpec& c, double v) { c.intra_node_efficiency = std::min(v, 1.0); },
       [](const ProfileRow& r) { return r.nodes == 1; }, intra_fallback},
      {"inter_node_efficiency", [](const ClusterSpec& c) { return c.inter_node_efficiency; },
       [](ClusterSpec& c, double v) { c.inter_node_efficiency = std::min(v, 1.0); },
       [](const ProfileRow& r) { return r.nodes > 1; }, inter_fallback},
  };
  return table;
}

// Multiplies the parameter by the geometric mean of predicted / published over `rows` until
// that mean is 1; returns the value.
double fit_parameter(ClusterSpec& spec, const Parameter& p, const std::vector<ProfileRow>& rows) {
  p.set(spec, 1.0);
  for (int i = 0; i < kMaxIterations; ++i) {
    double log_sum = 0;
    for (const ProfileRow& row : rows)
      log_sum += std::log(predicted_allreduce_ms(spec, row) / row.allreduce_ms);
    const double factor = std::exp(log_sum / static_cast<double>(rows.size()));
    p.set(spec, p.get(spec) * factor);
    if (std::abs(factor - 1) < kTolerance) break;
  }
  return p.get(spec);
}

// Fits parameter `p` of every cluster in `fit` that has rows for it, then gives the others
// their fallback.
void fit_across_clusters(NetworkFit& fit, const Parameter& p, const std::vector<ProfileRow>& rows) {
  std::vector<size_t> without;
  for (size_t c = 0; c < fit.clusters.size(); ++c) {
    ClusterSpec& spec = fit.clusters[c];
    std::vector<ProfileRow> mine;
    for (const ProfileRow& row : rows)
      if (row.cluster == spec.name && p.governs(row)) mine.push_back(row);
    if (mine.empty()) {
      without.push_back(c);
      continue;
    }
    const double value = fit_parameter(spec, p, mine);
    fit.parameters.push_back({spec.name, p.name, value, static_cast<int>(mine.size()), ""});
  }
  for (size_t c : without) {
    ClusterSpec& spec = fit.clusters[c];
    const auto [value, why] = p.fallback(fit, spec);
    p.set(spec, value);
    fit.parameters.push_back({spec.name, p.name, value, 0, why});
  }
}

}  // namespace

const ClusterSpec& NetworkFit::cluster(const std::string& name) const {
  for (const ClusterSpec& spec : clusters)
    if (spec.name == name) return spec;
  throw InvalidArgument(fmt::format("cluster '{}' has no fitted network, expected one of {}", name,
                                    fmt::join(kFittedClusters, ", ")));
}

double predicted_allreduce_ms(const ClusterSpec& cluster, const ProfileRow& row) {
  Scenario s;
  s.cluster = cluster.name;
  s.cluster_spec = cluster;
  s.gpus = row.gpus;
  s.batch_per_gpu = row.batch_per_gpu;
  s.grad_accum = row.grad_accum;
  s.implementation = "deepspeed-2020";  // the engine the paper profiled (after backward)
  return 1e3 * simulate_step(resolve_scenario(s)).front().comm_s;
}

NetworkFit fit_network(const std::vector<ProfileRow>& rows) {
  NetworkFit fit;
  for (const char* name : kFittedClusters) {
    ClusterSpec spec = net::cluster_preset(name);
    for (const Parameter& p : parameters()) p.set(spec, 1.0);  // nothing of the preset's fit stays
    fit.clusters.push_back(spec);
  }
  for (const Parameter& p : parameters()) fit_across_clusters(fit, p, rows);
  return fit;
}

double preset_parameter(const ClusterSpec& spec, const std::string& name) {
  for (const Parameter& p : parameters())
    if (name == p.name) return p.get(spec);
  throw InvalidArgument(fmt::format("fitted parameter '{}' is unknown", name));
}

std::vector<HeldOutRow> cross_validate(const std::vector<ProfileRow>& rows) {
  std::vector<HeldOutRow> out;
  for (size_t i = 0; i < rows.size(); ++i) {
    std::vector<ProfileRow> others = rows;
    others.erase(others.begin() + static_cast<std::ptrdiff_t>(i));
    const NetworkFit fit = fit_network(others);
    const ClusterSpec& cluster = fit.cluster(rows[i].cluster);
    const auto predict = [&](const ClusterSpec& c) { return predicted_allreduce_ms(c, rows[i]); };
    HeldOutRow held{i + 1, rows[i], predict(cluster), 0, 0, 0, {}};
    const Band band = network_band(cluster, held.predicted_ms, predict);
    held.low_ms = band.low;
    held.high_ms = band.high;
    held.error_pct = 100.0 * (held.predicted_ms - rows[i].allreduce_ms) / rows[i].allreduce_ms;
    for (const FittedParameter& p : fit.parameters)
      if (p.cluster == rows[i].cluster && !p.fallback.empty())
        held.fallbacks.push_back(p.name + ": " + p.fallback);
    out.push_back(std::move(held));
  }
  return out;
}

}  // namespace compopt::sim
