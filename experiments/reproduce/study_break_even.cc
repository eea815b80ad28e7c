// Break-even bandwidth (in none of the papers): for each workload and
// compressed optimizer, the inter-node bandwidth above which its compression
// stage is no faster than the baseline, on 256 GPUs of the paper's cluster.
// Found by bisection on log(bandwidth) over [0.01, 1000] Gbit/s with the step
// simulator, until the bracket is within 1% (speedup falls with bandwidth:
// the compressed step pays its compression compute at any speed, the
// baseline's allreduce shrinks).

#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/util/csv_schema.h"
#include "experiments/reproduce/compression_pairs.h"
#include "experiments/reproduce/markdown_table.h"
#include "experiments/reproduce/simulated_scenarios.h"
#include "experiments/reproduce/study.h"
#include "net_models/bandwidth_spread.h"
#include "net_models/cluster_presets.h"

namespace compopt::cli::reproduce {
namespace {

constexpr int kGpus = 256;
constexpr double kLowGbps = 0.01, kHighGbps = 1000.0;

// The steady-stage speedup of pairs[which[k]] at gbps[k] for every k: baseline step / compressed
// step, all 2 x which.size() simulations forked together.
std::vector<double> speedups(const std::vector<CompressionPair>& pairs,
                             const std::vector<size_t>& which, const std::vector<double>& gbps,
                             int jobs) {
  std::vector<sim::Scenario> scenarios;
  for (size_t k = 0; k < which.size(); ++k) {
    const CompressionPair& p = pairs[which[k]];
    scenarios.push_back(pair_scenario(p, p.baseline, kGpus, gbps[k]));
    scenarios.push_back(pair_scenario(p, p.optimizer, kGpus, gbps[k]));
  }
  const std::vector<StageTimings> timings = simulate_scenarios(scenarios, jobs);
  std::vector<double> out;
  for (size_t k = 0; k < which.size(); ++k) {
    out.push_back(steady_stage(timings[2 * k]).step_time_s /
                  steady_stage(timings[2 * k + 1]).step_time_s);
  }
  return out;
}

struct Search {
  std::string status;  // empty while bisecting
  double break_even = 0, speedup_at_low = 0;
  int evaluations = 0;
  double lo = kLowGbps, hi = kHighGbps;  // while bisecting: speedup(lo) > 1 >= speedup(hi)
};

// Every pair's speedup at both ends of the range: below_range, above_range or a bracket.
std::vector<Search> search_ends(const std::vector<CompressionPair>& pairs, int jobs) {
  const size_t n = pairs.size();
  std::vector<size_t> which(2 * n);
  std::vector<double> gbps(2 * n);
  for (size_t i = 0; i < n; ++i) {
    which[i] = which[n + i] = i;
    gbps[i] = kLowGbps;
    gbps[n + i] = kHighGbps;
  }
  const std::vector<double> at = speedups(pairs, which, gbps, jobs);
  std::vector<Search> searches(n);
  for (size_t i = 0; i < n; ++i) {
    Search& s = searches[i];
    s.speedup_at_low = at[i];
    s.evaluations = 2;
    if (at[i] <= 1.0)
      s.status = "below_range";
    else if (at[n + i] > 1.0)
      s.status = "above_range";
  }
  return searches;
}

// Bisects every bracketed pair on log(bandwidth) until its bracket is within 1%; each round
// simulates the midpoints of all pairs still bisecting at once.
std::vector<Search> bisect(const std::vector<CompressionPair>& pairs, int jobs) {
  std::vector<Search> searches = search_ends(pairs, jobs);
  for (;;) {
    std::vector<size_t> which;
    std::vector<double> mids;
    for (size_t i = 0; i < searches.size(); ++i) {
      Search& s = searches[i];
      if (!s.status.empty()) continue;
      if (s.hi / s.lo > 1.01) {
        which.push_back(i);
        mids.push_back(std::sqrt(s.lo * s.hi));
        continue;
      }
      s.status = "found";
      s.break_even = std::sqrt(s.lo * s.hi);
    }
    if (which.empty()) return searches;
    const std::vector<double> at = speedups(pairs, which, mids, jobs);
    for (size_t k = 0; k < which.size(); ++k) {
      Search& s = searches[which[k]];
      (at[k] > 1.0 ? s.lo : s.hi) = mids[k];
      ++s.evaluations;
    }
  }
}

// One pair's row of break_even.csv and of the report's table. The fit's effective rate may be
// off by the cluster's inter-node spread: compression pays below break_even / high ..
// break_even / low of the rate the model assumes.
void add_pair_result(const CompressionPair& p, const Search& s, CsvWriter& csv,
                     MarkdownTable& table) {
  const bool found = s.status == "found";
  const net::BandwidthSpread spread = net::link_spreads(net::cluster_preset(p.cluster)).inter_node;
  const auto bound = [&](double factor) {
    return found ? std::optional<double>(s.break_even / factor) : std::nullopt;
  };
  csv.add({p.workload, kGpus, p.baseline, p.optimizer,
           found ? std::optional<double>(s.break_even) : std::nullopt, bound(spread.high),
           bound(spread.low), kLowGbps, kHighGbps, s.speedup_at_low, s.status});
  const std::string where = found ? fmt::format("{:.3g} ({:.3g}..{:.3g})", s.break_even,
                                                *bound(spread.high), *bound(spread.low))
                            : s.status == "above_range" ? fmt::format("> {:g}", kHighGbps)
                                                        : fmt::format("< {:g}", kLowGbps);
  table.add({p.workload, p.cluster, p.optimizer + " / " + p.baseline, where,
             fmt::format("{:.2f}x", s.speedup_at_low), std::to_string(2 * s.evaluations)});
}

}  // namespace

std::string run_break_even_study(const StudyContext& context) {
  const auto& pairs = compression_pairs();
  const std::vector<Search> searches = bisect(pairs, context.jobs);
  // Effective rates (what collectives achieve): the preset's NIC rate x its efficiency.
  static const CsvSchema schema("break_even.csv", {{"workload"},
                                                   {"gpus"},
                                                   {"baseline"},
                                                   {"optimizer"},
                                                   {"break_even_effective_gbit_s", "{:.4g}"},
                                                   {"break_even_low_effective_gbit_s", "{:.4g}"},
                                                   {"break_even_high_effective_gbit_s", "{:.4g}"},
                                                   {"search_lo_effective_gbit_s", "{:g}"},
                                                   {"search_hi_effective_gbit_s", "{:g}"},
                                                   {"speedup_at_lo", "{:.4f}"},
                                                   {"status"}});
  CsvWriter csv(schema);
  MarkdownTable table({"workload", "cluster", "pair", "break-even (Gbit/s)",
                       "speedup at 0.01 Gbit/s", "simulations"});
  for (size_t i = 0; i < pairs.size(); ++i) add_pair_result(pairs[i], searches[i], csv, table);
  context.write_file("break_even.csv", csv.text());
  return fmt::format(
      "Effective inter-node bandwidth above which the compressed optimizer's compression stage is "
      "no "
      "faster than the baseline (speedup = 1), on {} GPUs of each workload's paper cluster, by "
      "bisection on the simulator over [{:g}, {:g}] Gbit/s to 1%. No paper reports this; the "
      "crossing is where the compression compute (docs/simulator.md, per-element costs from "
      "Birder) outweighs the allreduce time it saves. In brackets: the break-even over the "
      "cluster's inter-node spread (docs/calibration.md, \"Spread\"), the range of fitted rates "
      "below which compression pays if the real rate is off by that much.\n\n{}",
      kGpus, kLowGbps, kHighGbps, table.str());
}

}  // namespace compopt::cli::reproduce
