#include "experiments/scenario/sweep_summary.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "experiments/scenario/speedup_baseline.h"
#include "net_models/compute_model.h"
#include "sim/model_error.h"

namespace compopt::cli {
namespace {

// A field that tells scenario groups apart: its label and its value in a row.
struct GroupField {
  const char* label;
  std::string (*value)(const SweepRow&);
};

const std::vector<GroupField>& group_fields() {
  static const std::vector<GroupField> fields = {
      {"workload", [](const SweepRow& r) { return r.workload; }},
      {"cluster", [](const SweepRow& r) { return r.cluster; }},
      {"topology", [](const SweepRow& r) { return r.topology; }},
      {"gpu", [](const SweepRow& r) { return r.gpu; }},
      {"gpus", [](const SweepRow& r) { return fmt::format("{}", r.gpus); }},
      {"gpus/node", [](const SweepRow& r) { return fmt::format("{}", r.gpus_per_node); }},
      {"NICs/node", [](const SweepRow& r) { return fmt::format("{}", r.nics_per_node); }},
      {"Gbit/s", [](const SweepRow& r) { return fmt::format("{}", r.inter_node_gbps); }},
      {"batch", [](const SweepRow& r) { return fmt::format("{}", r.batch_per_gpu); }},
      {"accum", [](const SweepRow& r) { return fmt::format("{}", r.grad_accum); }},
      {"overlap", [](const SweepRow& r) { return r.overlap; }},
      {"implementation", [](const SweepRow& r) { return r.implementation; }},
      {"buckets given",  // the buckets used are in the header's per-optimizer notes
       [](const SweepRow& r) {
         if (r.overlap == "off" || r.buckets == 0) return std::string();
         return fmt::format("{}", r.buckets);
       }},
  };
  return fields;
}

struct Group {
  std::vector<std::string> key;          // one value per group_fields() entry
  std::map<std::string, double> step_s;  // optimizer -> step time of its last stage
  std::map<std::string, std::pair<double, double>> bounds_s;  // optimizer -> its low, high
};

// What a stage's rows were charged: the algorithms (distinct, in row order) and the fewest and
// most buckets used.
struct Charge {
  std::vector<std::string> algorithms;
  int min_buckets = 0, max_buckets = 0;
};

struct Optimizer {
  std::string name;
  std::vector<std::string> stages;       // distinct, in row order
  std::map<std::string, Charge> charge;  // by stage
};

struct Summary {
  std::vector<Group> groups;          // in row order
  std::vector<Optimizer> optimizers;  // in row order
  std::string training_baseline;      // the [training] baseline, or empty
  // speedup_baseline of each optimizer.
  std::map<std::string, std::string> baseline;
  double min_utilization = 1, max_utilization = 0;  // compute utilisation over the rows
  std::vector<std::string> utilization_sources;     // distinct, in row order
};

std::vector<std::string> key_of(const SweepRow& row) {
  std::vector<std::string> key;
  for (const GroupField& f : group_fields()) key.push_back(f.value(row));
  return key;
}

Optimizer& optimizer_named(std::vector<Optimizer>& optimizers, const std::string& name) {
  for (Optimizer& o : optimizers)
    if (o.name == name) return o;
  return optimizers.emplace_back(Optimizer{name, {}, {}});
}

void note_charge(Optimizer& o, const SweepRow& row) {
  Charge& c = o.charge[row.stage];
  if (std::find(c.algorithms.begin(), c.algorithms.end(), row.algorithm) == c.algorithms.end())
    c.algorithms.push_back(row.algorithm);
  c.min_buckets = c.min_buckets == 0 ? row.buckets_used : std::min(c.min_buckets, row.buckets_used);
  c.max_buckets = std::max(c.max_buckets, row.buckets_used);
}

// "adam: ring, 1 bucket" of the optimizer's last stage (the steady state the table shows).
std::string charge_note(const Optimizer& o) {
  const Charge& c = o.charge.at(o.stages.back());
  const std::string buckets = c.min_buckets == c.max_buckets
                                  ? fmt::format("{}", c.min_buckets)
                                  : fmt::format("{}-{}", c.min_buckets, c.max_buckets);
  return fmt::format("{}: {}, {} bucket{}", o.name, fmt::join(c.algorithms, " / "), buckets,
                     c.max_buckets == 1 ? "" : "s");
}

Summary summarize(const std::vector<SweepRow>& rows, const std::string& training_baseline) {
  Summary s;
  s.training_baseline = training_baseline;
  std::map<std::vector<std::string>, size_t> index;
  for (const SweepRow& row : rows) {
    std::vector<std::string> key = key_of(row);
    auto [it, added] = index.emplace(key, s.groups.size());
    if (added) s.groups.push_back({std::move(key), {}, {}});
    s.groups[it->second].step_s[row.optimizer] = row.step_time_s;  // the last stage stays
    s.groups[it->second].bounds_s[row.optimizer] = {row.step_time_low_s, row.step_time_high_s};
    Optimizer& o = optimizer_named(s.optimizers, row.optimizer);
    if (std::find(o.stages.begin(), o.stages.end(), row.stage) == o.stages.end())
      o.stages.push_back(row.stage);
    note_charge(o, row);
    s.min_utilization = std::min(s.min_utilization, row.compute_utilization);
    s.max_utilization = std::max(s.max_utilization, row.compute_utilization);
    std::vector<std::string>& sources = s.utilization_sources;
    if (std::find(sources.begin(), sources.end(), row.compute_utilization_source) == sources.end())
      sources.push_back(row.compute_utilization_source);
  }
  for (const Optimizer& o : s.optimizers)
    s.baseline[o.name] = speedup_baseline(o.name, training_baseline);
  return s;
}

// Milliseconds to 4 significant digits, without an exponent.
std::string format_ms(double seconds) {
  const double ms = seconds * 1e3;
  const int digits = ms > 0 ? static_cast<int>(std::floor(std::log10(ms))) : 0;
  return fmt::format("{:.{}f}", ms, std::clamp(3 - digits, 0, 3));
}

// Field indexes whose value differs between groups.
std::vector<size_t> varying_fields(const std::vector<Group>& groups) {
  std::vector<size_t> varying;
  for (size_t f = 0; f < group_fields().size(); ++f) {
    const auto differs = [&](const Group& g) { return g.key[f] != groups.front().key[f]; };
    if (std::any_of(groups.begin(), groups.end(), differs)) varying.push_back(f);
  }
  return varying;
}

// `items` joined by `separator`, in lines of at most kWidth columns (longer items stand alone);
// further lines indented by two spaces.
std::string wrapped(const std::vector<std::string>& items, const std::string& separator) {
  constexpr size_t kWidth = 100;
  std::string text, line;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string piece = items[i] + (i + 1 < items.size() ? separator : "");
    if (!line.empty() && line.size() + piece.size() > kWidth) {
      text += line.substr(0, line.find_last_not_of(' ') + 1) + "\n";
      line = "  ";
    }
    line += piece;
  }
  return text + line + "\n";
}

// Whether any cell has a low..high range (sweep rows from the simulator do).
bool has_bounds(const Summary& s) {
  for (const Group& g : s.groups)
    for (const auto& [name, bounds] : g.bounds_s)
      if (bounds.second > bounds.first) return true;
  return false;
}

bool in_sweep(const Summary& s, const std::string& optimizer) {
  return std::any_of(s.optimizers.begin(), s.optimizers.end(),
                     [&](const Optimizer& o) { return o.name == optimizer; });
}

// The line that names what the speedups are against (speedup_baseline.h).
std::string against_line(const Summary& s) {
  const auto missing = [&](const std::string& name) {
    return in_sweep(s, name) ? std::string() : std::string(", not in the sweep: no speedups");
  };
  if (!s.training_baseline.empty()) {
    return wrapped({fmt::format("speedup against: {} (the [training] baseline{})",
                                s.training_baseline, missing(s.training_baseline))},
                   "");
  }
  std::vector<std::string> baselines;  // in the order of the optimizers they serve
  std::map<std::string, std::vector<std::string>> served;
  for (const Optimizer& o : s.optimizers) {
    const std::string& base = s.baseline.at(o.name);
    if (base == o.name) continue;
    if (served[base].empty()) baselines.push_back(base);
    served[base].push_back(o.name);
  }
  if (baselines.empty())
    return "speedup against: none, every optimizer is its own registry baseline\n";
  std::vector<std::string> items;
  for (const std::string& base : baselines) {
    const std::string paren = in_sweep(s, base) ? "" : " (not in the sweep)";
    items.push_back(fmt::format("{}{} for {}", base, paren, fmt::join(served[base], ", ")));
  }
  items.front() = "speedup against: " + items.front();
  items.back() += " (registry baselines)";
  return wrapped(items, "; ");
}

std::string header(const Summary& s, const std::vector<size_t>& varying) {
  std::vector<std::string> fixed;
  for (size_t f = 0; f < group_fields().size(); ++f) {
    const std::string& value = s.groups.front().key[f];
    if (!value.empty() && std::find(varying.begin(), varying.end(), f) == varying.end())
      fixed.push_back(fmt::format("{} {}", group_fields()[f].label, value));
  }
  if (!fixed.empty()) fixed.front() = "same in all rows: " + fixed.front();
  std::vector<std::string> charges;
  for (const Optimizer& o : s.optimizers) charges.push_back(charge_note(o));
  charges.front() = "charged: " + charges.front();
  const std::string utilization =
      s.min_utilization == s.max_utilization
          ? fmt::format("{:.1f}%", 100 * s.min_utilization)
          : fmt::format("{:.1f}-{:.1f}%", 100 * s.min_utilization, 100 * s.max_utilization);
  charges.push_back(fmt::format("compute utilisation {} ({})", utilization,
                                fmt::join(s.utilization_sources, " / ")));
  std::vector<std::string> notes = {"ms per step (speedup in parentheses)"};
  if (has_bounds(s)) {
    notes.push_back(
        fmt::format("[low..high]: ms, the band over the measured inputs and the "
                    "model's error (+-{:.1f}%)",
                    100 * sim::model_error().fraction));
  }
  for (const Optimizer& o : s.optimizers)
    if (o.stages.size() > 1)
      notes.push_back(fmt::format("{}: {} stage (steady state)", o.name, o.stages.back()));
  return (fixed.empty() ? "" : wrapped(fixed, ", ")) + wrapped(charges, "; ") +
         wrapped(notes, "; ") + against_line(s);
}

std::string optimizer_cell(const Group& g, const Summary& s, const Optimizer& o) {
  const auto mine = g.step_s.find(o.name);
  if (mine == g.step_s.end()) return "-";
  std::string ms = format_ms(mine->second);
  const auto [low, high] = g.bounds_s.at(o.name);
  if (high > 0 && high > low) ms += fmt::format(" [{}..{}]", format_ms(low), format_ms(high));
  const std::string& baseline = s.baseline.at(o.name);
  const auto base = g.step_s.find(baseline);
  if (baseline == o.name || base == g.step_s.end() || mine->second <= 0) return ms;
  return fmt::format("{} ({:.2f}x)", ms, base->second / mine->second);
}

// Right-aligned columns two spaces apart.
std::string aligned(const std::vector<std::vector<std::string>>& lines) {
  std::vector<size_t> width(lines.front().size(), 0);
  for (const auto& line : lines)
    for (size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], line[c].size());
  std::string text;
  for (const auto& line : lines) {
    std::string out;
    for (size_t c = 0; c < line.size(); ++c)
      out += fmt::format("{}{:>{}}", c == 0 ? "" : "  ", line[c], width[c]);
    text += out + "\n";
  }
  return text;
}

}  // namespace

SweepRow sweep_row(const sim::StepConfig& config, const sim::StageTiming& timing,
                   const sim::StageBounds& bounds) {
  const net::ClusterSpec& k = config.cluster;
  return {.workload = config.workload.name,
          .cluster = k.name,
          .topology = std::string(net::topology_name(k.topology)),
          .gpu = k.gpu.name,
          .gpus = k.gpus(),
          .gpus_per_node = k.gpus_per_node,
          .nics_per_node = k.nics_per_node,
          .inter_node_gbps = k.inter_node_gbps,
          .batch_per_gpu = config.batch_per_gpu,
          .grad_accum = config.grad_accum,
          .overlap = sim::overlap_mode_name(config.overlap),
          .buckets = config.buckets,
          .implementation = config.implementation,
          .optimizer = config.optimizer,
          .stage = timing.stage,
          .buckets_used = timing.buckets,
          .algorithm = timing.algorithm,
          .compute_utilization = timing.compute_utilization,
          .compute_utilization_source = net::utilization_source_kind(
              net::compute_times(config.workload, k.gpu, config.batch_per_gpu, config.grad_accum)),
          .step_time_s = timing.step_time_s,
          .step_time_low_s = bounds.step_time_low_s,
          .step_time_high_s = bounds.step_time_high_s};
}

std::string sweep_summary(const std::vector<SweepRow>& rows, const std::string& training_baseline) {
  if (rows.empty()) return "";
  const Summary s = summarize(rows, training_baseline);
  const std::vector<size_t> varying = varying_fields(s.groups);
  std::vector<std::vector<std::string>> lines(1);
  for (size_t f : varying) lines[0].emplace_back(group_fields()[f].label);
  for (const Optimizer& o : s.optimizers) lines[0].push_back(o.name);
  for (const Group& g : s.groups) {
    std::vector<std::string>& line = lines.emplace_back();
    for (size_t f : varying) line.push_back(g.key[f]);
    for (const Optimizer& o : s.optimizers) line.push_back(optimizer_cell(g, s, o));
  }
  return header(s, varying) + aligned(lines);
}

}  // namespace compopt::cli
