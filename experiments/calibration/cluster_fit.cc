#include "experiments/calibration/cluster_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/util/error.h"
#include "core/util/median.h"
#include "experiments/calibration/alpha_beta.h"
#include "sim/collective_prediction.h"
#include "sim/public_checks.h"

namespace compopt::calibration {
namespace {

using net::ClusterSpec;

constexpr double kLatencyRegime = 2;    // time <= 2 x the log's latency
constexpr double kBandwidthRegime = 4;  // time >= 4 x the log's latency
constexpr double kSmallBytes = 65536;   // a log's smallest size that shows its latency
constexpr int kPasses = 2;
constexpr size_t kRowsPerLog = 4;  // a parameter's rows of one log: its 4 largest / smallest
constexpr int kRateIterations = 50;
constexpr double kRateTolerance = 1e-6;
constexpr int kGoldenIterations = 20;
constexpr int kGridPoints = 11;

enum class Side { kIntra, kInter };
enum class Regime { kLatency, kBandwidth, kBetween, kNotTimed };

constexpr const char* regime_name(Regime r) {
  switch (r) {
    case Regime::kLatency:
      return "latency";
    case Regime::kBandwidth:
      return "bandwidth";
    case Regime::kBetween:
      return "between";
    case Regime::kNotTimed:
      return "not timed";
  }
  return "";
}

enum class Method { kFixedPoint, kLogSearch };

// One fitted parameter: its key, how to read and set it, the rows it governs, its range and
// how it is searched.
struct Parameter {
  const char* name;
  Side side;
  Regime regime;
  double low, high;
  Method method;
  double (*get)(const ClusterSpec&);
  void (*set)(ClusterSpec&, double);
};

const std::vector<Parameter>& parameters() {
  static const std::vector<Parameter> table = {
      {"intra_node_efficiency", Side::kIntra, Regime::kBandwidth, 1e-3, 1, Method::kFixedPoint,
       [](const ClusterSpec& c) { return c.intra_node_efficiency; },
       [](ClusterSpec& c, double v) { c.intra_node_efficiency = v; }},
      {"intra_node_latency_s", Side::kIntra, Regime::kLatency, 1e-7, 1e-2, Method::kLogSearch,
       [](const ClusterSpec& c) { return c.intra_node_latency_s; },
       [](ClusterSpec& c, double v) { c.intra_node_latency_s = v; }},
      {"inter_node_efficiency", Side::kInter, Regime::kBandwidth, 1e-3, 1, Method::kFixedPoint,
       [](const ClusterSpec& c) { return c.inter_node_efficiency; },
       [](ClusterSpec& c, double v) { c.inter_node_efficiency = v; }},
      {"inter_node_latency_s", Side::kInter, Regime::kLatency, 1e-7, 1e-2, Method::kLogSearch,
       [](const ClusterSpec& c) { return c.inter_node_latency_s; },
       [](ClusterSpec& c, double v) { c.inter_node_latency_s = v; }},
  };
  return table;
}

Side side_of(const Measurement& m) { return m.nodes > 1 ? Side::kInter : Side::kIntra; }
const char* side_rows(Side s) { return s == Side::kIntra ? "1-node" : "multi-node"; }

using LogKey = std::tuple<std::string, int, int>;  // (file, nodes, GPUs per node)
LogKey key_of(const Measurement& m) { return {m.file, m.nodes, m.gpus_per_node}; }

// A log's latency: its smallest size's time when that size is <= 64 KiB, else the alpha of its
// latency-bandwidth fit (2 sizes or more), else the simulator's 8-byte allreduce on `base`.
double log_latency(const ClusterSpec& base, const std::vector<Measurement>& rows,
                   const LogKey& key) {
  std::vector<const Measurement*> mine;
  std::set<double> sizes;
  for (const Measurement& o : rows)
    if (o.predict && key_of(o) == key) mine.push_back(&o), sizes.insert(o.bytes);
  const auto smallest = *std::min_element(mine.begin(), mine.end(),
                                          [](auto* a, auto* b) { return a->bytes < b->bytes; });
  if (smallest->bytes > 0 && smallest->bytes <= kSmallBytes) return smallest->seconds;
  if (sizes.size() > 1 && *sizes.begin() > 0) {
    const double alpha = fit_alpha_beta(mine).alpha_s;
    if (alpha > 0) return alpha;
  }
  return sim::predict_allreduce(shaped(base, smallest->nodes, smallest->gpus_per_node), 8).seconds;
}

// Each row's regime: its measured time against its log's latency.
std::vector<Regime> classify(const ClusterSpec& base, const std::vector<Measurement>& rows) {
  std::map<LogKey, double> latency;
  for (const Measurement& m : rows)
    if (m.predict && !latency.contains(key_of(m)))
      latency[key_of(m)] = log_latency(base, rows, key_of(m));
  std::vector<Regime> out;
  for (const Measurement& m : rows) {
    if (!m.predict) {
      out.push_back(Regime::kNotTimed);
      continue;
    }
    const double l = latency.at(key_of(m));
    out.push_back(m.seconds <= kLatencyRegime * l     ? Regime::kLatency
                  : m.seconds >= kBandwidthRegime * l ? Regime::kBandwidth
                                                      : Regime::kBetween);
  }
  return out;
}

double log_ratio(const ClusterSpec& c, const Measurement& m) {
  return std::log(predict_on(c, m) / m.seconds);
}

// Efficiency: multiplied by the geometric mean of predicted / measured until it is 1.
void fit_rate(ClusterSpec& c, const Parameter& p, const std::vector<const Measurement*>& rows) {
  for (int i = 0; i < kRateIterations; ++i) {
    double sum = 0;
    for (const Measurement* m : rows) sum += log_ratio(c, *m);
    const double factor = std::exp(sum / static_cast<double>(rows.size()));
    const double next = std::clamp(p.get(c) * factor, p.low, p.high);
    const bool stuck = next == p.get(c);
    p.set(c, next);
    if (std::abs(factor - 1) < kRateTolerance || stuck) return;
  }
}

// Latency: the summed squared log error over log10 of the value, first on a grid of
// kGridPoints (ties go to the larger value), then by golden-section search in the grid cell
// around the best point.
void fit_log_search(ClusterSpec& c, const Parameter& p,
                    const std::vector<const Measurement*>& rows) {
  const auto cost = [&](double x) {
    p.set(c, std::pow(10.0, x));
    double sum = 0;
    for (const Measurement* m : rows) sum += std::pow(log_ratio(c, *m), 2);
    return sum;
  };
  const double lo = std::log10(p.low), hi = std::log10(p.high);
  const double step = (hi - lo) / (kGridPoints - 1);
  double best = hi, best_cost = cost(hi);
  for (int i = kGridPoints - 2; i >= 0; --i) {
    const double x = lo + i * step, f = cost(x);
    if (f < best_cost * (1 - 1e-9)) best = x, best_cost = f;
  }
  const double g = (std::sqrt(5.0) - 1) / 2;
  double a = std::max(lo, best - step), b = std::min(hi, best + step);
  double x1 = b - g * (b - a), x2 = a + g * (b - a), f1 = cost(x1), f2 = cost(x2);
  for (int i = 0; i < kGoldenIterations; ++i) {
    if (f1 < f2) {
      b = x2, x2 = x1, f2 = f1, x1 = b - g * (b - a), f1 = cost(x1);
    } else {
      a = x1, x1 = x2, f1 = f2, x2 = a + g * (b - a), f2 = cost(x2);
    }
  }
  const double refined = (a + b) / 2;
  p.set(c, std::pow(10.0, cost(refined) <= best_cost ? refined : best));
}

// The rows `p` is fitted on: of its side and regime, per log the kRowsPerLog largest sizes for
// a rate or the kRowsPerLog smallest for a latency (the ones its value shows most in; more
// rows of one log add time, not information).
std::vector<const Measurement*> governed(const Parameter& p, const std::vector<Measurement>& rows,
                                         const std::vector<Regime>& regimes) {
  std::map<LogKey, std::vector<const Measurement*>> by_log;
  for (size_t i = 0; i < rows.size(); ++i)
    if (regimes[i] == p.regime && side_of(rows[i]) == p.side)
      by_log[key_of(rows[i])].push_back(&rows[i]);
  std::vector<const Measurement*> out;
  for (auto& [key, mine] : by_log) {
    std::stable_sort(mine.begin(), mine.end(), [&](const Measurement* a, const Measurement* b) {
      return p.regime == Regime::kBandwidth ? a->bytes > b->bytes : a->bytes < b->bytes;
    });
    const auto kept = static_cast<std::ptrdiff_t>(std::min(mine.size(), kRowsPerLog));
    out.insert(out.end(), mine.begin(), mine.begin() + kept);
  }
  return out;
}

// Why a parameter without rows kept its value.
std::string kept_reason(const Parameter& p, const std::vector<Measurement>& rows) {
  const bool any = std::any_of(rows.begin(), rows.end(), [&](const Measurement& m) {
    return m.predict && side_of(m) == p.side;
  });
  if (!any) return fmt::format("kept: no {} allreduce rows", side_rows(p.side));
  if (p.regime == Regime::kBandwidth)
    return fmt::format(
        "kept: sizes too small to see bandwidth (no {} row reaches {:.0f} x its log's "
        "latency); add larger sizes (-e 1G or more)",
        side_rows(p.side), kBandwidthRegime);
  return fmt::format("kept: no {} row in the latency regime (add sizes down to 8 bytes: -b 8)",
                     side_rows(p.side));
}

double median_error(const ClusterSpec& c, const std::vector<const Measurement*>& rows) {
  std::vector<double> errors;
  errors.reserve(rows.size());
  for (const Measurement* m : rows) errors.push_back(100.0 * (predict_on(c, *m) / m->seconds - 1));
  return median_abs(errors);
}

// What the logs cannot tell, and the node counts they cover.
std::vector<std::string> coverage_notes(const ClusterFit& fit,
                                        const std::vector<Measurement>& rows) {
  const ClusterSpec& c = fit.cluster;
  std::vector<std::string> notes = {
      fmt::format("inter_node_message_overhead_s kept {:g}: one collective's rows do not "
                  "separate a per-message cost from inter_node_latency_s",
                  c.inter_node_transport.message_overhead_s),
      fmt::format("inter_node_stream_gbps (per-flow cap) kept {:g}: not fitted; it shows only "
                  "against runs that vary the streams per peer (NCCL_IB_QPS_PER_CONNECTION, "
                  "NCCL_NSOCKS_PERTHREAD x NCCL_SOCKET_NTHREADS)",
                  c.inter_node_transport.stream_gbps)};
  std::map<int, std::vector<double>> by_nodes;  // bandwidth residuals by node count
  for (const Residual& r : fit.residuals)
    if (r.regime == std::string("bandwidth") && r.row->nodes > 1)
      by_nodes[r.row->nodes].push_back(r.calibrated_error_pct);
  std::set<int> counts;
  for (const Measurement& m : rows)
    if (m.predict && m.nodes > 1) counts.insert(m.nodes);
  if (counts.size() == 1)
    notes.push_back(fmt::format(
        "one multi-node count only ({} nodes): the fitted inter-node figures are assumed to "
        "hold at every node count; logs at a second node count would test that",
        *counts.begin()));
  if (by_nodes.size() > 1) {
    std::string text = "bandwidth residual by node count after the fit:";
    for (const auto& [nodes, errors] : by_nodes) {
      std::vector<double> e = errors;
      std::sort(e.begin(), e.end());
      text += fmt::format(" {} nodes {:+.1f}%", nodes, e[e.size() / 2]);
    }
    notes.push_back(text +
                    " (a trend here is a node-count effect the fitted figures do not "
                    "carry)");
  }
  return notes;
}

}  // namespace

double predict_on(const ClusterSpec& cluster, const Measurement& row) {
  return row.predict(shaped(cluster, row.nodes, row.gpus_per_node));
}

void apply_fitted(const ClusterSpec& fitted, ClusterSpec& cluster) {
  for (const Parameter& p : parameters()) p.set(cluster, p.get(fitted));
  cluster.allreduce_algorithm = fitted.allreduce_algorithm;
  cluster.nccl_version = fitted.nccl_version;
}

void check_fittable(const std::vector<Measurement>& rows) {
  if (std::none_of(rows.begin(), rows.end(), [](const Measurement& m) { return !!m.predict; }))
    throw InvalidArgument(
        "no allreduce row among the inputs: the simulator times allreduce only, so there is "
        "nothing to fit (add an all_reduce_perf log or a comm-bench CSV)");
}

ClusterFit fit_cluster(const ClusterSpec& base, const std::vector<Measurement>& rows,
                       const std::string& nccl_version, const std::string& algorithm) {
  check_fittable(rows);
  ClusterFit fit{base, {}, {}, {}};
  if (!nccl_version.empty()) fit.cluster.nccl_version = nccl_version;
  if (!algorithm.empty()) fit.cluster.allreduce_algorithm = algorithm;
  const std::vector<Regime> regimes = classify(fit.cluster, rows);
  const ClusterSpec start = fit.cluster;
  for (int pass = 0; pass < kPasses; ++pass) {
    for (const Parameter& p : parameters()) {
      const auto mine = governed(p, rows, regimes);
      if (mine.empty()) continue;
      (p.method == Method::kFixedPoint ? fit_rate : fit_log_search)(fit.cluster, p, mine);
    }
  }
  for (const Parameter& p : parameters()) {
    const auto mine = governed(p, rows, regimes);
    FittedValue v{p.name, p.get(fit.cluster), p.get(base), static_cast<int>(mine.size()), 0, ""};
    if (mine.empty()) {
      v.status = kept_reason(p, rows);
    } else {
      v.median_error_pct = median_error(fit.cluster, mine);
      const bool at_bound = v.value <= p.low * 1.0001 || v.value >= p.high * 0.9999;
      v.status = at_bound ? fmt::format(
                                "fitted, at its bound {:g}: the rows ask for a value beyond it "
                                "(check the base cluster's nominal figures)",
                                v.value)
                          : "fitted";
    }
    fit.values.push_back(v);
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    Residual r{&rows[i], regime_name(regimes[i]), 0, 0, 0, 0};
    if (rows[i].predict) {
      r.uncalibrated_s = predict_on(start, rows[i]);
      r.calibrated_s = predict_on(fit.cluster, rows[i]);
      r.uncalibrated_error_pct = 100.0 * (r.uncalibrated_s / rows[i].seconds - 1);
      r.calibrated_error_pct = 100.0 * (r.calibrated_s / rows[i].seconds - 1);
    }
    fit.residuals.push_back(r);
  }
  fit.notes = coverage_notes(fit, rows);
  return fit;
}

}  // namespace compopt::calibration
