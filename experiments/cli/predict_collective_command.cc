// `compopt predict-collective [CLUSTER.toml]`: the nccl-tests table (size, count, time, algbw,
// busbw, and the algorithm NCCL would pick) that the step simulator predicts for a collective
// on a described cluster, before anyone buys or books it, so that the prediction and a real
// all_reduce_perf log can be diffed line by line. The cluster is described as `compopt
// profile` takes it (CONFIG.toml, --cluster and the other cluster flags, --set cluster.*
// keys; profile_scenario.h); the sizes as nccl-tests takes them (-b/-e/-f/-i). Each size is
// one fp32 sum allreduce through the step simulator's baseline allreduce
// (sim/collective_prediction.h), with its low..high band: the cluster's network inputs at the
// two ends of their ranges (sim/input_ranges.h, network_band) and the model's own error
// (sim/model_error.h), in a last column after the algorithm. The sizes are simulated in forked
// children, --jobs at a time (one SimGrid engine per process; the table does not depend on
// --jobs). The header lines state every assumption the numbers rest on. Writes
// predict_collective.csv and run.json in the run directory.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <string_view>

#include "core/util/csv_schema.h"
#include "core/util/error.h"
#include "experiments/cli/commands.h"
#include "experiments/cli/nccl_tests_format.h"
#include "experiments/cli/profile_scenario.h"
#include "experiments/run_directory/run_directory.h"
#include "experiments/scenario/forked_jobs.h"
#include "experiments/scenario/host_memory.h"
#include "experiments/scenario/option_ranges.h"
#include "net_models/cluster_presets.h"
#include "net_models/gpu_spec.h"
#include "net_models/nccl_tests_rows.h"
#include "sim/allreduce_algorithm.h"
#include "sim/allreduce_selection.h"
#include "sim/collective_prediction.h"
#include "sim/input_ranges.h"
#include "sim/model_error.h"
#include "sim/scenario.h"

namespace compopt::cli {
namespace {

// The collectives the step simulator predicts, by nccl-tests' name (and its binary's).
struct Collective {
  std::string_view name, binary;
};
constexpr std::array<Collective, 1> kCollectives = {{{"all_reduce", "all_reduce_perf"}}};

// A size far above any GPU's memory; the sweep's limit.
constexpr double kMaxPredictedBytes = 1e13;

struct Options {
  std::string config;      // CLUSTER.toml; empty: none
  sim::Scenario scenario;  // the cluster flags' (profile_scenario.h)
  std::vector<std::string> sets;
  std::string collective = "all_reduce";
  SweepFlags sweep;
  std::string out;
  bool overwrite = false;
  int jobs = 0;  // processes at once; 0: the core count
};

const Collective& find_collective(const std::string& name) {
  for (const Collective& c : kCollectives)
    if (name == c.name || name == c.binary) return c;
  throw InvalidArgument(
      fmt::format("--collective {}: the step simulator predicts all_reduce only (all_reduce_perf); "
                  "all_gather, reduce_scatter, alltoall and sendrecv are not modelled",
                  name));
}

std::string transport_note(const net::TransportProfile& t) {
  return fmt::format(
      "transport profile {}: {:g} us per message, stream cap {}, {} stream(s) per peer, {:g} of "
      "the line rate",
      t.name, 1e6 * t.message_overhead_s,
      t.stream_gbps > 0 ? fmt::format("{:g} Gbit/s", t.stream_gbps) : std::string("none"),
      t.streams_per_peer, t.line_rate_share);
}

std::string algorithm_note(const net::ClusterSpec& c) {
  const std::string version = c.nccl_version.empty() ? "a current NCCL" : "NCCL " + c.nccl_version;
  if (c.allreduce_algorithm != sim::kAutoAllreduceAlgorithm)
    return fmt::format("algorithm: {} forced (NCCL_ALGO), {}", c.allreduce_algorithm, version);
  return fmt::format("algorithm: chosen per size by {}'s rule ({}; sim/allreduce_selection.h)",
                     version, sim::allreduce_selection(c).name);
}

constexpr const char* kProtocolNote =
    "protocol: NCCL's Simple protocol only (LL and LL128 are not modelled: below about 1 MB a "
    "real NCCL can be faster than this); type float, redop sum; in place = out of place (one "
    "prediction per size); #wrong N/A (nothing ran)";

// What the band column moves: each network input of `cluster` at the ends of its range, and
// the model-error term.
std::string band_note(const net::ClusterSpec& cluster) {
  sim::StepConfig config;
  config.cluster = cluster;
  std::vector<std::string> ranges;
  for (const sim::MeasuredInput& input : sim::measured_inputs()) {
    if (!input.network) continue;
    const sim::FactorRange r = input.range(config);
    ranges.push_back(r.pinned() ? fmt::format("{} pinned", input.name)
                                : fmt::format("{} x{:.3g}..x{:.3g}", input.name, r.low, r.high));
  }
  return fmt::format(
      "band (low..high us): root-sum-square of {} and the {} (docs/whatif.md \"The band\")",
      fmt::join(ranges, ", "), sim::model_error().source);
}

// The assumptions every number of the table rests on, one header line each; `described`:
// the preset or name the resolved scenario gives the cluster.
std::vector<std::string> assumptions(const Options& o, const Collective& coll,
                                     const net::ClusterSpec& c, const std::string& described) {
  const std::string source = o.config.empty() ? "" : fmt::format(", config {}", o.config);
  return {fmt::format("Collective test starting: {}, predicted by compopt predict-collective (the "
                      "step simulator; nothing ran)",
                      coll.binary),
          fmt::format("nranks {}: cluster '{}' (described as: {}{}{})", c.gpus(), c.name, described,
                      source, o.sets.empty() ? "" : ", --set keys in run.json"),
          "network: " + sim::describe_cluster_network(c),
          fmt::format("intra-node: {} at {:g} Gbit/s per GPU x efficiency {:g}, {}",
                      net::intra_node_fabric_name(c.intra_node_fabric), c.intra_node_gbps,
                      c.intra_node_efficiency, transport_note(c.intra_node_transport)),
          fmt::format("inter-node: {} NIC(s) per node x {:g} Gbit/s x efficiency {:g}, {:g} us one "
                      "way, {}, {} topology",
                      c.nics_per_node, c.inter_node_gbps, c.inter_node_efficiency,
                      1e6 * c.inter_node_latency_s, transport_note(c.inter_node_transport),
                      net::topology_name(c.topology)),
          algorithm_note(c),
          kProtocolNote,
          band_note(c)};
}

struct Predicted {
  uint64_t bytes = 0;
  sim::AllreducePrediction p;
  sim::Band band;  // of p.seconds
};

// The prediction of `bytes` on `cluster` and its band.
Predicted predict(const net::ClusterSpec& cluster, uint64_t bytes) {
  const auto size = static_cast<double>(bytes);
  const sim::AllreducePrediction p = sim::predict_allreduce(cluster, size);
  const sim::Band inputs = sim::allreduce_network_band(cluster, size, p.seconds);
  return {bytes, p, sim::with_model_error(inputs, p.seconds, sim::model_error().fraction)};
}

// Shares per process running at once: enough that one slow share does not leave the other
// cores idle at the end.
constexpr size_t kSharesPerJob = 4;

// The predictions of sizes k, k + shares, ... as JSON ([seconds, algorithm, low, high] each),
// whose doubles round-trip exactly.
std::string predict_share(const net::ClusterSpec& cluster, const std::vector<uint64_t>& sizes,
                          size_t k, size_t shares) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = k; i < sizes.size(); i += shares) {
    const Predicted r = predict(cluster, sizes[i]);
    out.push_back({r.p.seconds, r.p.algorithm, r.band.low, r.band.high});
  }
  return out.dump();
}

// The predictions of `sizes` in their order, simulated in forked children `jobs` at a time,
// each child one share (predict_share): large and small sizes mixed in every share.
std::vector<Predicted> predict_forked(const net::ClusterSpec& cluster,
                                      const std::vector<uint64_t>& sizes, int jobs) {
  const size_t shares = std::min(sizes.size(), kSharesPerJob * static_cast<size_t>(jobs));
  const std::vector<std::string> texts =
      run_forked({.count = shares,
                  .parallel = jobs,
                  .work = [&](size_t k) { return predict_share(cluster, sizes, k, shares); },
                  .describe = [&](size_t k) { return fmt::format("the sizes of share {}", k); }});
  std::vector<Predicted> rows(sizes.size());
  for (size_t k = 0; k < shares; ++k) {
    const nlohmann::json share = nlohmann::json::parse(texts[k]);
    for (size_t j = 0, i = k; i < sizes.size(); ++j, i += shares) {
      const nlohmann::json& r = share.at(j);
      rows[i] = {sizes[i],
                 {.seconds = r.at(0).get<double>(), .algorithm = r.at(1).get<std::string>()},
                 {.low = r.at(2).get<double>(), .high = r.at(3).get<double>()}};
    }
  }
  return rows;
}

void report(const Options& o, const Collective& coll, const net::ClusterSpec& c,
            const std::string& described, const std::vector<Predicted>& rows) {
  RunDirectory dir("predict-collective", o.out, out_mode(o.overwrite));
  dir.run([&] {
    NcclTestsTable table;
    table.header = assumptions(o, coll, c, described);
    table.bus_factor = net::allreduce_bus_factor(c.gpus());
    table.extra_header = "algo  low..high(us)";
    static const CsvSchema schema("predict_collective.csv", {{"collective"},
                                                             {"ranks"},
                                                             {"bytes"},
                                                             {"count"},
                                                             {"time_us", "{:.3f}"},
                                                             {"algbw_GBps", "{:.6f}"},
                                                             {"busbw_GBps", "{:.6f}"},
                                                             {"algorithm"},
                                                             {"time_low_us", "{:.3f}"},
                                                             {"time_high_us", "{:.3f}"}});
    CsvWriter csv(schema);
    for (const Predicted& r : rows) {
      const double low_us = 1e6 * r.band.low, high_us = 1e6 * r.band.high;
      table.lines.push_back({r.bytes, r.bytes / 4, r.p.seconds, r.p.seconds,
                             fmt::format("{}  {:.1f}..{:.1f}", r.p.algorithm, low_us, high_us)});
      const double algbw = algbw_gbs(r.bytes, r.p.seconds);
      csv.add({std::string(coll.name), c.gpus(), r.bytes, r.bytes / 4, 1e6 * r.p.seconds, algbw,
               algbw * table.bus_factor, r.p.algorithm, low_us, high_us});
    }
    fmt::print("{}", format_nccl_tests_table(table));
    dir.write_file("predict_collective.csv", csv.text());
    dir.write_run_json({{"collective", coll.name},
                        {"cluster", described},
                        {"config_file", o.config},
                        {"sets", o.sets},
                        {"jobs", parallel_jobs(o.jobs)},
                        {"assumptions", table.header}});
  });
  fmt::print("\nwrote {}/predict_collective.csv and run.json\n", dir.path().string());
}

void run(const Options& o, const std::vector<std::string>& given) {
  const Collective& coll = find_collective(o.collective);
  const std::vector<uint64_t> sizes = fp32_sweep_sizes(o.sweep, kMaxPredictedBytes);
  sim::Scenario s = profile_scenario(o.config, o.scenario, given, o.sets);
  s.overlap = sim::OverlapMode::kOff;
  s.workload_spec = sim::allreduce_workload(static_cast<double>(sizes.back()));
  const net::ClusterSpec cluster = sim::resolve_scenario(s).cluster;
  const int jobs = parallel_jobs(o.jobs);
  check_simulation_memory({s}, jobs, "--gpus", MemoryBudget::of_this_machine());
  check_out_dir(o.out, out_mode(o.overwrite));
  report(o, coll, cluster, s.cluster, predict_forked(cluster, sizes, jobs));
}

// The long names of the options given on the command line (e.g. "--gpus").
std::vector<std::string> given_flags(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::Option* option : cmd.get_options())
    if (option->count() > 0) names.push_back(option->get_name());
  return names;
}

void add_cluster_flags(CLI::App& cmd, Options& o) {
  cmd.add_option("config", o.config,
                 "CLUSTER.toml: a sweep config of one scenario whose [cluster] table describes the "
                 "cluster (as compopt profile reads it); flags and --set keys apply over it");
  cmd.add_option("--cluster", o.scenario.cluster,
                 "cluster preset: " + net::cluster_registry().expected())
      ->capture_default_str();
  cmd.add_option("--gpu", o.scenario.gpu,
                 "GPU of every node (default: the cluster's): " + net::gpu_registry().expected());
  cmd.add_option("--gpus", o.scenario.gpus, "ranks, one per GPU (0 = the preset's)")
      ->capture_default_str();
  cmd.add_option("--gpus-per-node", o.scenario.gpus_per_node, "GPUs per node (0 = the preset's)");
  cmd.add_option("--inter-node-gbps", o.scenario.inter_node_gbps,
                 "NIC bandwidth, Gbit/s (0 = the preset's)");
  cmd.add_option("--topology", o.scenario.topology,
                 "star, fat-tree, torus or dragonfly (default: the preset's)");
  cmd.add_option("--set", o.sets,
                 "cluster.KEY=VALUE over CLUSTER.toml and the flags (repeatable), e.g. --set "
                 "cluster.nics_per_node=4 --set cluster.allreduce_algorithm=ring");
}

}  // namespace

void register_predict_collective_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "predict-collective",
      "Predict the nccl-tests table (time, algbw, busbw, algorithm) of all_reduce on a described "
      "cluster with the step simulator, to diff against a real all_reduce_perf log");
  add_cluster_flags(*cmd, *o);
  cmd->add_option("--collective,--op", o->collective,
                  "nccl-tests collective (all_reduce or all_reduce_perf; the only one modelled)")
      ->capture_default_str();
  add_sweep_flags(*cmd, o->sweep);
  cmd->add_option("--out", o->out, "run directory (default runs/predict-collective-<time>)")
      ->check(non_empty_out());
  add_overwrite_flag(*cmd, o->overwrite);
  cmd->add_option("--jobs", o->jobs, "processes at once (0 = all cores)")
      ->check(in_range("--jobs", 0, kMaxJobs, "processes at once, 0 = all cores"))
      ->capture_default_str();
  cmd->callback([o, cmd] { run(*o, given_flags(*cmd)); });
}

}  // namespace compopt::cli
