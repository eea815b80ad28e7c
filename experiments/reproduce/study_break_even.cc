// Break-even bandwidth (in none of the papers): for each workload and
// compressed optimizer, the inter-node bandwidth above which its compression
// stage is no faster than the baseline, on 256 GPUs of the paper's cluster.
// Found by bisection on log(bandwidth) over [0.01, 1000] Gbit/s with the step
// simulator, until the bracket is within 1% (speedup falls with bandwidth:
// the compressed step pays its compression compute at any speed, the
// baseline's allreduce shrinks).

#include <fmt/format.h>

#include <cmath>
#include <sstream>

#include "core/util/csv_schema.h"
#include "experiments/reproduce/compression_pairs.h"
#include "experiments/reproduce/markdown_table.h"
#include "experiments/reproduce/simulated_scenarios.h"
#include "experiments/reproduce/study.h"
#include "experiments/scenario/forked_jobs.h"
#include "net_models/bandwidth_spread.h"
#include "net_models/cluster_presets.h"

namespace compopt::cli::reproduce {
namespace {

constexpr int kGpus = 256;
constexpr double kLowGbps = 0.01, kHighGbps = 1000.0;

double speedup(const CompressionPair& p, double gbps) {
  const auto step = [&](const std::string& optimizer) {
    return steady_stage(
               sim::simulate_step(sim::resolve_scenario(pair_scenario(p, optimizer, kGpus, gbps))))
        .step_time_s;
  };
  return step(p.baseline) / step(p.optimizer);
}

struct Search {
  std::string status;
  double break_even = 0, speedup_at_low = 0;
  int evaluations = 0;
};

// Runs in a child: every simulation of one pair, one engine after another.
Search bisect(const CompressionPair& p) {
  Search s;
  s.speedup_at_low = speedup(p, kLowGbps);
  const double at_high = speedup(p, kHighGbps);
  s.evaluations = 2;
  if (s.speedup_at_low <= 1.0) {
    s.status = "below_range";
    return s;
  }
  if (at_high > 1.0) {
    s.status = "above_range";
    return s;
  }
  double lo = kLowGbps, hi = kHighGbps;  // speedup(lo) > 1 >= speedup(hi)
  while (hi / lo > 1.01) {
    const double mid = std::sqrt(lo * hi);
    (speedup(p, mid) > 1.0 ? lo : hi) = mid;
    ++s.evaluations;
  }
  s.status = "found";
  s.break_even = std::sqrt(lo * hi);
  return s;
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
  for (const CompressionPair& p : pairs)
    sim::resolve_scenario(pair_scenario(p, p.optimizer, kGpus, 1));
  const std::vector<std::string> texts = run_forked(
      {.count = pairs.size(),
       .parallel = context.jobs,
       .work =
           [&](size_t i) {
             const Search s = bisect(pairs[i]);
             return fmt::format("{} {:.17g} {:.17g} {}", s.status, s.break_even, s.speedup_at_low,
                                s.evaluations);
           },
       .describe =
           [&](size_t i) {
             return fmt::format("break-even search of {} vs {} on {}", pairs[i].optimizer,
                                pairs[i].baseline, pairs[i].workload);
           }});
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
  for (size_t i = 0; i < pairs.size(); ++i) {
    std::istringstream in(texts[i]);
    Search s;
    in >> s.status >> s.break_even >> s.speedup_at_low >> s.evaluations;
    add_pair_result(pairs[i], s, csv, table);
  }
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
