// Break-even bandwidth (in none of the papers): for each workload and
// compressed optimizer, the inter-node bandwidth above which its compression
// stage is no faster than the baseline, on 256 GPUs of the paper's cluster.
// Found by bisection on log(bandwidth) over [0.01, 1000] Gbit/s with the step
// simulator, until the bracket is within 1% (speedup falls with bandwidth:
// the compressed step pays its compression compute at any speed, the
// baseline's allreduce shrinks). Twice: against the tuned baseline (the faster of the ring
// and the tree), the break-even of the optimizers, and against NCCL's default choice, where a
// bracket whose ends ran different algorithms marks NCCL's switch (status algorithm_switch).

#include <fmt/format.h>

#include <cmath>
#include <optional>
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

// The baseline a speedup is against: NCCL's default (allreduce_algorithm auto), or tuned, the
// faster of the ring and the tree forced (sim/tuned_baseline.h; at the DDP bucket default).
enum class Baseline { kNcclDefault, kTuned };

// One evaluation: the steady-stage speedup and the algorithm the baseline ran.
struct Speedup {
  double speedup = 0;
  std::string algorithm;
};

sim::Scenario forced(sim::Scenario s, const char* algorithm) {
  net::ClusterSpec c = net::cluster_preset(s.cluster);
  c.allreduce_algorithm = algorithm;
  s.cluster_spec = c;
  return s;
}

// The baseline's scenarios of one evaluation: auto, or ring and tree.
std::vector<sim::Scenario> baseline_scenarios(const sim::Scenario& s, Baseline baseline) {
  if (baseline == Baseline::kNcclDefault) return {s};
  return {forced(s, "ring"), forced(s, "tree")};
}

// pairs[which[k]]'s speedup at gbps[k] for every k: fastest baseline step / compressed step,
// all simulations forked together.
std::vector<Speedup> speedups(const std::vector<CompressionPair>& pairs,
                              const std::vector<size_t>& which, const std::vector<double>& gbps,
                              Baseline baseline, int jobs) {
  std::vector<sim::Scenario> scenarios;
  const size_t per = baseline == Baseline::kNcclDefault ? 2 : 3;
  for (size_t k = 0; k < which.size(); ++k) {
    const CompressionPair& p = pairs[which[k]];
    for (const sim::Scenario& s :
         baseline_scenarios(pair_scenario(p, p.baseline, kGpus, gbps[k]), baseline))
      scenarios.push_back(s);
    scenarios.push_back(pair_scenario(p, p.optimizer, kGpus, gbps[k]));
  }
  const std::vector<StageTimings> timings = simulate_scenarios(scenarios, jobs);
  std::vector<Speedup> out;
  for (size_t k = 0; k < which.size(); ++k) {
    const sim::StageTiming* best = &steady_stage(timings[per * k]);
    for (size_t b = 1; b + 1 < per; ++b) {
      const sim::StageTiming& t = steady_stage(timings[per * k + b]);
      if (t.step_time_s < best->step_time_s) best = &t;
    }
    const double compressed = steady_stage(timings[per * k + per - 1]).step_time_s;
    out.push_back({best->step_time_s / compressed, best->algorithm});
  }
  return out;
}

struct Search {
  std::string status;  // empty while bisecting
  double break_even = 0, speedup_at_low = 0;
  int evaluations = 0;
  double lo = kLowGbps, hi = kHighGbps;    // while bisecting: speedup(lo) > 1 >= speedup(hi)
  std::string algorithm_lo, algorithm_hi;  // the baseline's algorithm at lo and at hi
};

// Every pair's speedup at both ends of the range: below_range, above_range or a bracket.
std::vector<Search> search_ends(const std::vector<CompressionPair>& pairs, Baseline baseline,
                                int jobs) {
  const size_t n = pairs.size();
  std::vector<size_t> which(2 * n);
  std::vector<double> gbps(2 * n);
  for (size_t i = 0; i < n; ++i) {
    which[i] = which[n + i] = i;
    gbps[i] = kLowGbps;
    gbps[n + i] = kHighGbps;
  }
  const std::vector<Speedup> at = speedups(pairs, which, gbps, baseline, jobs);
  std::vector<Search> searches(n);
  for (size_t i = 0; i < n; ++i) {
    Search& s = searches[i];
    s.speedup_at_low = at[i].speedup;
    s.algorithm_lo = at[i].algorithm;
    s.algorithm_hi = at[n + i].algorithm;
    s.evaluations = 2;
    if (at[i].speedup <= 1.0)
      s.status = "below_range";
    else if (at[n + i].speedup > 1.0)
      s.status = "above_range";
  }
  return searches;
}

// Bisects every bracketed pair on log(bandwidth) until its bracket is within 1%; each round
// simulates the midpoints of all pairs still bisecting at once. A break-even against NCCL's
// default whose bracket ends ran different algorithms is the switch of NCCL's choice, not a
// crossing of the optimizers: status algorithm_switch.
std::vector<Search> bisect(const std::vector<CompressionPair>& pairs, Baseline baseline, int jobs) {
  std::vector<Search> searches = search_ends(pairs, baseline, jobs);
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
      s.status = s.algorithm_lo != s.algorithm_hi && baseline == Baseline::kNcclDefault
                     ? "algorithm_switch"
                     : "found";
      s.break_even = std::sqrt(s.lo * s.hi);
    }
    if (which.empty()) return searches;
    const std::vector<Speedup> at = speedups(pairs, which, mids, baseline, jobs);
    for (size_t k = 0; k < which.size(); ++k) {
      Search& s = searches[which[k]];
      const bool above = at[k].speedup > 1.0;
      (above ? s.lo : s.hi) = mids[k];
      (above ? s.algorithm_lo : s.algorithm_hi) = at[k].algorithm;
      ++s.evaluations;
    }
  }
}

// A search's break-even, or the end of the range it lies beyond.
std::string where(const Search& s) {
  if (s.status == "found" || s.status == "algorithm_switch")
    return fmt::format("{:.3g}", s.break_even);
  return s.status == "above_range" ? fmt::format("> {:g}", kHighGbps)
                                   : fmt::format("< {:g}", kLowGbps);
}

// One pair's row of break_even.csv and of the report's table: the break-even against the tuned
// baseline (its spread and the algorithm the tuned baseline runs there) and against NCCL's
// default. The fit's effective rate may be off by the cluster's inter-node spread: compression
// pays below break_even / high .. break_even / low of the rate the model assumes.
void add_pair_result(const CompressionPair& p, const Search& s, const Search& nccl, CsvWriter& csv,
                     MarkdownTable& table) {
  const bool found = s.status == "found";
  const net::BandwidthSpread spread = net::link_spreads(net::cluster_preset(p.cluster)).inter_node;
  const auto bound = [&](double factor) {
    return found ? std::optional<double>(s.break_even / factor) : std::nullopt;
  };
  const bool nccl_found = nccl.status == "found" || nccl.status == "algorithm_switch";
  csv.add({p.workload, kGpus, p.baseline, p.optimizer,
           found ? std::optional<double>(s.break_even) : std::nullopt, bound(spread.high),
           bound(spread.low), kLowGbps, kHighGbps, s.speedup_at_low, s.status, s.algorithm_lo,
           nccl_found ? std::optional<double>(nccl.break_even) : std::nullopt, nccl.status});
  const std::string tuned =
      found ? fmt::format("{} ({:.3g}..{:.3g}), {}", where(s), *bound(spread.high),
                          *bound(spread.low), s.algorithm_lo)
            : where(s);
  const std::string nccl_where =
      where(nccl) +
      (nccl.status == "algorithm_switch"
           ? fmt::format(" (algorithm switch {} -> {})", nccl.algorithm_lo, nccl.algorithm_hi)
           : "");
  table.add({p.workload, p.cluster, p.optimizer + " / " + p.baseline, tuned, nccl_where,
             fmt::format("{:.2f}x", s.speedup_at_low),
             std::to_string(3 * s.evaluations + 2 * nccl.evaluations)});
}

}  // namespace

std::string run_break_even_study(const StudyContext& context) {
  const auto& pairs = compression_pairs();
  const std::vector<Search> searches = bisect(pairs, Baseline::kTuned, context.jobs);
  const std::vector<Search> nccl = bisect(pairs, Baseline::kNcclDefault, context.jobs);
  // Effective rates (what collectives achieve): the preset's NIC rate x its efficiency.
  static const CsvSchema schema("break_even.csv",
                                {{"workload"},
                                 {"gpus"},
                                 {"baseline"},
                                 {"optimizer"},
                                 {"break_even_effective_gbit_s", "{:.4g}"},
                                 {"break_even_low_effective_gbit_s", "{:.4g}"},
                                 {"break_even_high_effective_gbit_s", "{:.4g}"},
                                 {"search_lo_effective_gbit_s", "{:g}"},
                                 {"search_hi_effective_gbit_s", "{:g}"},
                                 {"speedup_at_lo", "{:.4f}"},
                                 {"status"},
                                 {"tuned_algorithm"},
                                 {"nccl_default_break_even_effective_gbit_s", "{:.4g}"},
                                 {"nccl_default_status"}});
  CsvWriter csv(schema);
  MarkdownTable table({"workload", "cluster", "pair",
                       "break-even vs tuned baseline (Gbit/s), its algorithm", "vs NCCL's default",
                       "speedup at 0.01 Gbit/s", "simulations"});
  for (size_t i = 0; i < pairs.size(); ++i)
    add_pair_result(pairs[i], searches[i], nccl[i], csv, table);
  context.write_file("break_even.csv", csv.text());
  return fmt::format(
      "Effective inter-node bandwidth above which the compressed optimizer's compression stage is "
      "no faster than the baseline (speedup = 1), on {} GPUs of each workload's paper cluster, by "
      "bisection on the simulator over [{:g}, {:g}] Gbit/s to 1%. The baseline is tuned: the "
      "faster of the ring and the tree at each bandwidth (docs/simulator.md, \"Tuned "
      "baseline\"); against NCCL's default choice a break-even whose bracket ends ran different "
      "algorithms is NCCL's switch from one to the other, not a crossing of the optimizers, and is "
      "labelled so. No paper reports this; the crossing is where the compression compute "
      "(docs/simulator.md, per-element costs from Birder) outweighs the allreduce time it saves. "
      "In brackets: the break-even over the cluster's inter-node spread (docs/calibration.md, "
      "\"Spread\"), the range of fitted rates below which compression pays if the real rate is "
      "off by that much.\n\n{}",
      kGpus, kLowGbps, kHighGbps, table.str());
}

}  // namespace compopt::cli::reproduce
